"""Query declaration and response schema of the v2 weekly positioning endpoint."""

from __future__ import annotations

from typing import Any

from apps.core.v2 import (
    INTEGER,
    OrderedPageQuery,
    connection_schema,
    object_schema,
    order_param,
)
from marketdata.records.macro import LEGACY_NULL_MEMBERS, POSITION_MEMBERS


class V2CotQuery(OrderedPageQuery):
    """`cursor`/`limit` page the weekly observations; `fields` selects top-level members."""

    order = order_param("asc", "weekly observations")


_STR = {"type": "string"}
_LEGACY_NOTE = ("Null for contracts served from the legacy report (financial futures) and "
                "where the CFTC row has no value")
_INTEGER_WHEN_LEGACY_NULL = {**INTEGER, "description": _LEGACY_NOTE}

OBSERVATION_SCHEMA = object_schema({
    "reportDate": {"type": "string", "format": "date",
                   "description": "The Tuesday the positions are as of (YYYY-MM-DD)"},
    **{member: (_INTEGER_WHEN_LEGACY_NULL if member in LEGACY_NULL_MEMBERS else INTEGER)
       for member in POSITION_MEMBERS},
}, "Commitments observation: positions in contracts, as the CFTC reports them; null where "
   "the CFTC row has no value (never 0)", required=("reportDate", *POSITION_MEMBERS))

COT_RESPONSE: dict[str, Any] = object_schema({
    "symbol": {**_STR, "description": "The symbol as asked for, upper-cased"},
    "contractMarketCode": {**_STR, "description": "CFTC contract market code (newest row)"},
    "marketAndExchangeName": {**_STR, "description": "CFTC market and exchange name "
                                                     "(newest row)"},
    "observations": connection_schema(OBSERVATION_SCHEMA, "weekly observations, oldest "
                                                     "first (`order=asc`, the default) or newest "
                                                     "first (`order=desc`)"),
}, "Weekly positioning; `fields` selects these members")
