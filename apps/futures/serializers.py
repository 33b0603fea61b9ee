"""Query declaration and response schema of GET /v2/futures/{symbol}."""

from __future__ import annotations

from apps.core.v2 import INTEGER, NUMBER, STRING, FieldsQuery, object_schema


class V2FuturesQuery(FieldsQuery):
    """Only ``fields``: the contract is the path."""


FUTURES_QUOTE_SCHEMA = object_schema({
    "symbol": {"type": "string", "description": "Yahoo's symbol, e.g. `GC=F`"},
    "name": {**STRING, "description": "Yahoo's long name, else its short name "
                                      "(`Gold Apr 25`)"},
    "exchange": {**STRING, "description": "Yahoo's exchange code, e.g. `CMX`"},
    "underlying": {**STRING, "description": "The contract the continuous symbol stands for "
                                            "now, e.g. `GCJ25.CMX` (Yahoo's underlyingSymbol)"},
    "expirationDate": {**STRING, "format": "date",
                       "description": "Expiration of that contract, `YYYY-MM-DD` (UTC)"},
    "price": NUMBER,
    "change": {**NUMBER, "description": "Against the previous settlement/close"},
    "changePercent": {**NUMBER, "description": "Percent units: 0.33 is 0.33%"},
    "openInterest": {**INTEGER, "description": "Contracts open (Yahoo's openInterest)"},
    "volume": {**INTEGER, "description": "Contracts traded in the session"},
    "timestamp": {**INTEGER, "description": "Unix seconds of the last trade "
                                            "(regularMarketTime)"},
}, "GqlFuturesQuote; `fields` selects these members",
    required=("symbol", "name", "exchange", "underlying", "expirationDate", "price", "change",
              "changePercent", "openInterest", "volume", "timestamp"))
