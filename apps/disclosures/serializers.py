"""Query declarations and response schemas of the v2 disclosure endpoints (fails-to-deliver,
congressional trades)."""

from __future__ import annotations

from apps.core.params import IntegerParam
from apps.core.v2 import (
    OrderedPageQuery,
    connection_schema,
    nullable,
    object_schema,
    order_param,
)
from marketdata.records.disclosures import (
    DEFAULT_FTD_MONTHS,
    FTD_MEMBERS,
    MAX_FTD_MONTHS,
    TRADE_MEMBERS,
)


class V2FailsToDeliverQuery(OrderedPageQuery):
    order = order_param("desc", "balances (by settlement day)")
    months = IntegerParam(
        required=False, default=DEFAULT_FTD_MONTHS, min_value=1, max_value=MAX_FTD_MONTHS,
        help_text=f"Months of published data, 1..{MAX_FTD_MONTHS} (two SEC files a month); "
                  f"default {DEFAULT_FTD_MONTHS}")


class V2CongressionalTradesQuery(OrderedPageQuery):
    order = order_param("desc", "trades (by transaction date)")


_FTD_KINDS = {"quantity": "integer", "price": "number"}
_FTD_DESCRIPTIONS = {
    "symbol": "The symbol asked for",
    "date": "Settlement date, `YYYY-MM-DD`",
    "quantity": "Fails-to-deliver balance, shares (the aggregate outstanding that day, not "
                "the day's new fails)",
    "price": "Previous day's closing price, USD",
    "name": "Issuer as the SEC's file names it",
    "description": "The security's description in the source (the SEC file's DESCRIPTION)",
    "cusip": "CUSIP",
}
FAIL_TO_DELIVER_SCHEMA = object_schema(
    {name: ({"type": "string", "description": _FTD_DESCRIPTIONS[name]} if name == "symbol"
            else nullable(_FTD_KINDS.get(name, "string"), description=_FTD_DESCRIPTIONS[name]))
     for name in FTD_MEMBERS},
    "One settlement day's fails-to-deliver balance", required=FTD_MEMBERS)
FAILS_TO_DELIVER_RESPONSE = connection_schema(
    FAIL_TO_DELIVER_SCHEMA, "balances, newest settlement day first (`order=desc`, the "
                            "default) or oldest first (`order=asc`)")

_TRADE_DESCRIPTIONS = {
    "symbol": "The symbol asked for",
    "chamber": "`senate` or `house`",
    "office": "The member's office as FMP names it (a senator's full name)",
    "district": "A representative's district, e.g. `CA11`",
    "tradeType": "FMP's `type`, e.g. `Purchase`, `Sale (Full)`, `Sale (Partial)`, `Exchange`",
    "amount": "The disclosed value range, e.g. `$1,001 - $15,000`",
    "owner": "Whose account: `Self`, `Spouse`, `Joint`, `Child`",
    "transactionDate": "`YYYY-MM-DD`",
    "disclosureDate": "`YYYY-MM-DD`",
    "link": "The filed report",
}
CONGRESSIONAL_TRADE_SCHEMA = object_schema(
    {name: ({"type": "string", "enum": ["senate", "house"],
             "description": _TRADE_DESCRIPTIONS[name]} if name == "chamber" else
            {"type": "string", "description": _TRADE_DESCRIPTIONS[name]} if name == "symbol"
            else nullable("string", **({"description": _TRADE_DESCRIPTIONS[name]}
                                       if name in _TRADE_DESCRIPTIONS else {})))
     for name in TRADE_MEMBERS},
    "One trade a member of Congress disclosed", required=TRADE_MEMBERS)
CONGRESSIONAL_TRADES_RESPONSE = connection_schema(
    CONGRESSIONAL_TRADE_SCHEMA, "trades, newest transaction first (`order=desc`, the "
                                "default) or oldest first (`order=asc`)")
