from typing import Any

from rest_framework import serializers

from apps.core.params import QuerySerializer, choice
from apps.core.v2 import REGIONS as V2_REGIONS
from apps.core.v2 import FieldsQuery, value_format_param
from apps.quotes.serializers import GQL_QUOTE_SCHEMA, LangParam
from marketdata.records.market import (
    INDEX_GROUP_ALIASES,
    INDEX_GROUPS,
    INDEX_IDS,
    REGION_ALIASES,
    REGIONS,
)


class IndicesQuery(QuerySerializer):
    index = serializers.ListField(
        child=choice(INDEX_IDS), required=False,
        help_text="Index identifier; repeat the parameter for several "
                  "(`?index=snp&index=dax`). All indices when neither `index` nor `region` "
                  "is given")
    region = choice(REGIONS, required=False,
                    help_text="Add every index of this region (NA includes the US indices)")


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


V2_INDICES_RESPONSE: dict[str, Any] = {
    "type": "array", "items": GQL_QUOTE_SCHEMA,
    "description": "One quote per index, in the groups' order; only the members a quote "
                   "batch carries are filled"}
