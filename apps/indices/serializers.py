from rest_framework import serializers

from apps.core.params import QuerySerializer, choice
from marketdata.records.market import INDEX_IDS, REGIONS
from marketdata.records.quotes import RETURN_NAMES


class IndicesQuery(QuerySerializer):
    index = serializers.ListField(
        child=choice(INDEX_IDS), required=False,
        help_text="Index identifier; repeat the parameter for several "
                  "(`?index=snp&index=dax`). All indices when neither `index` nor `region` "
                  "is given")
    region = choice(REGIONS, required=False,
                    help_text="Add every index of this region (NA includes the US indices)")


MarketIndex = type("MarketIndex", (serializers.Serializer,), {
    "name": serializers.CharField(),
    "value": serializers.FloatField(help_text="Index level, rounded to 2 decimals"),
    "change": serializers.CharField(help_text="Signed change in points, e.g. '+12.34'"),
    "percentChange": serializers.CharField(help_text="Signed percent change, e.g. '-0.52%'"),
    **{name: serializers.CharField(required=False, help_text="Signed percent return")
       for name, _ in RETURN_NAMES},
})
