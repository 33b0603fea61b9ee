"""Query declaration and response schema of GET /v2/forex/{from}/{to}."""

from __future__ import annotations

from apps.core.v2 import INTEGER, NUMBER, FieldsQuery, nullable, object_schema

_STR = {"type": "string"}


class V2ForexQuery(FieldsQuery):
    """Only ``fields``: the pair is the path."""


FOREX_QUOTE_SCHEMA = object_schema({
    "symbol": {**_STR, "description": "`{FROM}{TO}`, e.g. `EURUSD` (no `=X`)"},
    "baseCurrency": {**_STR, "description": "ISO 4217 code of `from`, upper case"},
    "quoteCurrency": {**_STR, "description": "ISO 4217 code of `to`, upper case"},
    "price": {"type": "number", "description": "Units of `to` per unit of `from`"},
    "bid": nullable("number", description="Yahoo's bid; null from the ECB reference rate "
                                          "or when Yahoo has no book"),
    "ask": nullable("number", description="Yahoo's ask; null from the ECB reference rate "
                                          "or when Yahoo has no book"),
    "change": {**NUMBER, "description": "Against the previous close (Yahoo) or the previous "
                                        "fix (ECB)"},
    "changePercent": {**NUMBER, "description": "Percent units: 0.5 is 0.5%"},
    "timestamp": {**INTEGER, "description": "Unix seconds: Yahoo's regularMarketTime, or the "
                                            "fix date at 00:00 UTC"},
}, "GqlForexQuote; `fields` selects these members",
    required=("symbol", "baseCurrency", "quoteCurrency", "price", "bid", "ask", "change",
              "changePercent", "timestamp"))


CURRENCY_MEMBERS = ("symbol", "shortName", "longName", "localLongName")
CURRENCIES_RESPONSE = {
    "type": "array", "description": "The currencies Yahoo Finance quotes, in its order",
    "items": object_schema({
        "symbol": {**_STR, "description": "ISO 4217 code (or Yahoo's, e.g. `GBp` for pence)"},
        "shortName": nullable("string"), "longName": nullable("string"),
        "localLongName": nullable("string", description="The name in the answer's "
                                                        "language"),
    }, required=CURRENCY_MEMBERS),
    "example": [{"symbol": "MXN", "shortName": "MXN", "longName": "Mexican Peso",
                 "localLongName": "Mexican Peso"}]}
