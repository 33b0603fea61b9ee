from rest_framework import serializers

from apps.core.params import QuerySerializer, SymbolListParam


class SymbolsQuery(QuerySerializer):
    # Documentation only: the views read ``symbols`` with symbol_list().
    symbols = SymbolListParam(
        help_text="Comma-separated symbols (at most 50 after removing empty items and "
                  "duplicates); order is kept. Empty, blank or only commas: 422")


class SimpleQuote(serializers.Serializer):
    symbol = serializers.CharField()
    name = serializers.CharField()
    price = serializers.CharField()
    preMarketPrice = serializers.CharField(required=False)  # noqa: N815
    afterHoursPrice = serializers.CharField(required=False)  # noqa: N815
    change = serializers.CharField()
    percentChange = serializers.CharField()  # noqa: N815
    logo = serializers.URLField(required=False)


_OPTIONAL_STRINGS = (
    "preMarketPrice afterHoursPrice open high low yearHigh yearLow marketCap beta pe eps "
    "dividend yield exDividend netAssets nav expenseRatio category lastCapitalGain fundRating "
    "fundRiskRating holdingsTurnover earningsDate lastDividend inceptionDate sector industry "
    "about employees fiveDaysReturn oneMonthReturn threeMonthReturn sixMonthReturn ytdReturn "
    "yearReturn threeYearReturn fiveYearReturn tenYearReturn maxReturn logo"
).split()

Quote = type("Quote", (serializers.Serializer,), {
    "symbol": serializers.CharField(),
    "name": serializers.CharField(),
    "price": serializers.CharField(),
    "change": serializers.CharField(),
    "percentChange": serializers.CharField(),
    "volume": serializers.IntegerField(required=False),
    "avgVolume": serializers.IntegerField(required=False),
    **{name: serializers.CharField(required=False) for name in _OPTIONAL_STRINGS},
})
