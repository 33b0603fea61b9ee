from typing import Any

from rest_framework import serializers

from apps.core.params import QuerySerializer, choice
from apps.core.v2 import NUMBER, STRING, FieldsQuery, object_schema, value_format_param
from apps.core.v2 import REGIONS as V2_REGIONS
from apps.quotes.serializers import GQL_QUOTE_SCHEMA, LangParam
from marketdata.records.market import (
    INDEX_GROUP_ALIASES,
    INDEX_GROUPS,
    INDEX_IDS,
    REGION_ALIASES,
    REGIONS,
    SUMMARY_NUMBERS,
)
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


# -- v2 -----------------------------------------------------------------------------------------
def yahoo_region_param() -> serializers.ChoiceField:
    """``region``: a Region (exact upper case; ``UK`` for GB), default US."""
    return choice(V2_REGIONS + tuple(REGION_ALIASES), required=False, default="US",
                  help_text="Region (exact upper case; `UK` is GB); default US")


class V2IndicesQuery(FieldsQuery):
    region = choice(
        tuple(INDEX_GROUPS) + tuple(INDEX_GROUP_ALIASES), required=False,
        help_text="Index group: " + "; ".join(
            f"`{name}`: " + ", ".join(f"`{s}`" for s in symbols)
            for name, symbols in INDEX_GROUPS.items())
        + ". Aliases: " + ", ".join(f"`{a}` = `{g}`" for a, g in INDEX_GROUP_ALIASES.items())
        + ". Every group when absent")
    format = value_format_param()


class V2MarketSummaryQuery(FieldsQuery):
    region = yahoo_region_param()
    format = value_format_param()
    lang = LangParam(required=False, help_text=(
        "BCP 47 language tag for Yahoo's texts (e.g. `de-DE`); default the region's own "
        "language (`en-US` for US, `ja-JP` for JP...). The `Accept-Language` header is not "
        "read (the response cache does not key on it)"))


class V2TrendingQuery(FieldsQuery):
    region = yahoo_region_param()


_VALUE: dict[str, Any] = {"type": ["number", "string", "object", "null"], "description": (
    "A number with `format=raw` (default); Yahoo's formatted string with `format=pretty` "
    "(null when Yahoo sends none); a `{raw, fmt, longFmt}` object with `format=both`")}
_SUMMARY_DESCRIPTIONS = {
    "regularMarketChangePercent": "Percent units (1.5 is 1.5 %)",
    "regularMarketTime": "Unix seconds (raw); Yahoo's clock text (pretty), e.g. `4:00PM EDT`",
}
SUMMARY_SPARK_SCHEMA = object_schema({
    "symbol": STRING,
    "timestamp": {"type": "array", "items": {"type": "integer"},
                  "description": "Unix seconds, oldest first"},
    "close": {"type": "array", "items": NUMBER,
              "description": "The close at each timestamp (null where Yahoo has none)"},
    "previousClose": NUMBER, "chartPreviousClose": NUMBER,
}, "The day's line as Yahoo draws it (5-minute closes)",
    required=("symbol", "timestamp", "close", "previousClose", "chartPreviousClose"))
MARKET_SUMMARY_ITEM = object_schema({
    **{name: STRING for name in ("symbol", "shortName", "exchange", "fullExchangeName",
                                 "quoteType", "marketState")},
    **{name: {**_VALUE, **({"description": _VALUE["description"] + ". "
                            + _SUMMARY_DESCRIPTIONS[name]}
                           if name in _SUMMARY_DESCRIPTIONS else {})}
       for name in SUMMARY_NUMBERS},
    "spark": {**SUMMARY_SPARK_SCHEMA, "type": ["object", "null"]},
}, "One instrument of the market summary; `fields` selects these members")
MARKET_SUMMARY_RESPONSE: dict[str, Any] = {
    "type": "array", "items": MARKET_SUMMARY_ITEM,
    "description": "The region's headline instruments, in Yahoo's order"}

TRENDING_ITEM = object_schema({
    "symbol": {"type": "string"}, "shortName": STRING, "regularMarketPrice": NUMBER,
    "regularMarketChangePercent": {**NUMBER, "description": "Percent units (1.5 is 1.5 %)"},
}, "One trending symbol (null members: the quote batch has no quote for it); `fields` "
   "selects these members", required=("symbol",))
TRENDING_RESPONSE: dict[str, Any] = {
    "type": "array", "items": TRENDING_ITEM,
    "description": "The region's trending symbols, in Yahoo's order"}

V2_INDICES_RESPONSE: dict[str, Any] = {
    "type": "array", "items": GQL_QUOTE_SCHEMA,
    "description": "One quote per index, in the groups' order; only the members a quote "
                   "batch carries are filled"}
