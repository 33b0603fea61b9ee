from rest_framework import serializers

from apps.core.params import QuerySerializer, choice

COUNTS = ("25", "50", "100")


class MoversQuery(QuerySerializer):
    count = choice(COUNTS, required=False, default="50",
                   help_text="How many movers to return at most")


class MarketMover(serializers.Serializer):
    symbol = serializers.CharField()
    name = serializers.CharField()
    price = serializers.CharField(help_text="Last traded price, e.g. '1,234.50'")
    change = serializers.CharField(help_text="Signed change in price, e.g. '+1.23'")
    percentChange = serializers.CharField(help_text="Signed percent change, e.g. '+2.51%'")  # noqa: N815
