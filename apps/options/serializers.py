"""Query declarations and response schemas of the v2 option chain endpoints."""

from __future__ import annotations

from typing import Any

from apps.core.params import IntegerParam
from apps.core.v2 import (
    ERRORS_SCHEMA,
    PageQuery,
    SymbolsParam,
    connection_schema,
    nullable,
    object_schema,
)
from marketdata.records.options import (
    CONTRACT_BOOLEANS,
    CONTRACT_INTEGERS,
    CONTRACT_MEMBERS,
    CONTRACT_NUMBERS,
    CONTRACT_STRINGS,
)

# Unix seconds up to the end of year 9999.
MAX_EPOCH = 253402300799


class V2OptionsQuery(PageQuery):
    date = IntegerParam(
        required=False, min_value=0, max_value=MAX_EPOCH,
        help_text="Expiry to serve, Unix seconds as listed in `expirationDates`; the nearest "
                  "when absent. A date that is not listed gives empty `calls` and `puts`")


class V2OptionsBatchQuery(V2OptionsQuery):
    symbols = SymbolsParam(help_text="Comma-separated symbols (at most 50); `cursor`/`limit` "
                                     "page over them")


_DESCRIPTIONS = {
    "contractSymbol": "OCC symbol, e.g. `AAPL250228C00110000`",
    "percentChange": "Percent units: 1.5 is 1.5%",
    "contractSize": "`REGULAR` (100 shares), or `MINI`",
    "expiration": "Expiry, Unix seconds (00:00 UTC of the expiry day)",
    "lastTradeDate": "Unix seconds of the last trade",
    "impliedVolatility": "A fraction (0.25 is 25 %), as Yahoo sends it",
}
_KINDS = {**dict.fromkeys(CONTRACT_NUMBERS, "number"),
          **dict.fromkeys(CONTRACT_INTEGERS, "integer"),
          **dict.fromkeys(CONTRACT_STRINGS, "string"),
          **dict.fromkeys(CONTRACT_BOOLEANS, "boolean")}
CONTRACT_SCHEMA = object_schema(
    {name: nullable(_KINDS[name], **({"description": _DESCRIPTIONS[name]}
                                     if name in _DESCRIPTIONS else {}))
     for name in CONTRACT_MEMBERS},
    "One option contract, every member Yahoo sends (null where it sends none)",
    required=CONTRACT_MEMBERS)


def chain_schema(paged: bool) -> dict[str, Any]:
    side: dict[str, Any] = (connection_schema(CONTRACT_SCHEMA, "contracts by strike")
                            if paged else {"type": "array", "items": CONTRACT_SCHEMA})
    return object_schema({
        "symbol": {"type": "string", "description": "The underlying"},
        "expirationDates": {"type": "array", "items": {"type": "integer"},
                            "description": "Every listed expiry, Unix seconds, ascending"},
        "expirationDate": nullable("integer", description="The expiry served (null when "
                                                          "none is listed)"),
        "strikes": {"type": "array", "items": {"type": "number"},
                    "description": "The strikes of the expiry served, ascending"},
        "calls": {**side, "description": "Calls by strike. " + side.get("description", "")},
        "puts": {**side, "description": "Puts by strike. " + side.get("description", "")},
    }, "One expiry of an option chain; `fields` selects these members")


OPTIONS_RESPONSE = chain_schema(paged=True)
OPTIONS_BATCH_RESPONSE = object_schema({
    "options": connection_schema(
        object_schema({"symbol": {"type": "string"}, "options": chain_schema(paged=False)},
                      required=("symbol", "options")),
        "`{symbol, options}` items (request order)"),
    "errors": ERRORS_SCHEMA,
}, required=("options", "errors"))
