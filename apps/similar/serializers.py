from rest_framework import serializers

from apps.core.params import QuerySerializer


class SimilarQuery(QuerySerializer):
    symbol = serializers.CharField(help_text="Ticker symbol, e.g. AAPL")
    limit = serializers.IntegerField(required=False, default=10, min_value=1, max_value=20,
                                     help_text="How many similar symbols, 1 to 20")
