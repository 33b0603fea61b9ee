"""Holders: one quoteSummary module per holder type, shaped as the spec's HoldersData, and
the reference implementation's sub-route bodies built from the same parsed data.

A holder type with no data (Yahoo's 404 for the module, an empty list, or a module with no
numbers) is a 404 like an unknown symbol; a missing field is null, and a missing date stays
null (it is never replaced by the current time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.errors import NotFound
from marketdata.formatting import json_ready
from marketdata.providers.yahoo import holders as yahoo_holders

HOLDER_TYPES = ("major", "institutional", "mutualfund", "insider_transactions",
                "insider_purchases", "insider_roster")
# HoldersData member filled for each type.
MEMBERS = {"major": "major_breakdown", "institutional": "institutional_holders",
           "mutualfund": "mutualfund_holders", "insider_transactions": "insider_transactions",
           "insider_purchases": "insider_purchases", "insider_roster": "insider_roster"}
# The reference implementation's sub-route names (/v1/holders/{symbol}/{name}) -> type.
ALIASES = {"insider-transactions": "insider_transactions",
           "insider-purchases": "insider_purchases", "insider-roster": "insider_roster"}
# The reference's sub-route bodies: {symbol, <key>: <same value as the HoldersData member>}.
ALIAS_KEYS = {"major": "breakdown", "institutional": "holders", "mutualfund": "holders",
              "insider_transactions": "transactions", "insider_purchases": "summary",
              "insider_roster": "roster"}
_LABELS = {"major": "major holders", "institutional": "institutional holders",
           "mutualfund": "mutual fund holders", "insider_transactions": "insider transactions",
           "insider_purchases": "insider purchases", "insider_roster": "insider roster"}



def _major(symbol: str) -> dict[str, Any] | None:
    breakdown = yahoo_holders.fetch_major_holders_breakdown(symbol)
    if all(value is None for value in breakdown.values()):
        return None
    return {"breakdown_data": breakdown}


def _institutional(symbol: str) -> list[dict[str, Any]] | None:
    return [json_ready(h) for h in yahoo_holders.fetch_institutional_holders(symbol)] or None


def _mutualfund(symbol: str) -> list[dict[str, Any]] | None:
    return [json_ready(h) for h in yahoo_holders.fetch_mutualfund_holders(symbol)] or None


def _insider_transactions(symbol: str) -> list[dict[str, Any]] | None:
    return [json_ready(t) for t in yahoo_holders.fetch_insider_transactions(symbol)] or None


def _insider_purchases(symbol: str) -> dict[str, Any] | None:
    purchases = yahoo_holders.fetch_insider_purchases(symbol)
    return json_ready(purchases) if purchases.has_data else None


def _insider_roster(symbol: str) -> list[dict[str, Any]] | None:
    return [json_ready(m) for m in yahoo_holders.fetch_insider_roster(symbol)] or None


_BUILDERS: dict[str, Callable[[str], Any]] = {
    "major": _major,
    "institutional": _institutional,
    "mutualfund": _mutualfund,
    "insider_transactions": _insider_transactions,
    "insider_purchases": _insider_purchases,
    "insider_roster": _insider_roster,
}


def holder_member(symbol: str, holder_type: str) -> Any:
    """The data for one type of a validated symbol; NotFound when there is none."""
    label = _LABELS[holder_type]
    try:
        member = _BUILDERS[holder_type](symbol)
    except NotFound:
        raise NotFound(f"No {label} data found for {symbol}") from None
    if member is None:
        raise NotFound(f"No {label} data found for {symbol}")
    return member


def holders_data(symbol_text: str, holder_type: str) -> dict[str, Any]:
    """HoldersData: every member present, only the requested one filled."""
    symbol = require_symbol(symbol_text)
    member = holder_member(symbol, holder_type)
    body: dict[str, Any] = {"symbol": symbol, "holder_type": holder_type}
    body.update((name, None) for name in MEMBERS.values())
    body[MEMBERS[holder_type]] = member
    return body


def reference_body(symbol_text: str, holder_type: str) -> dict[str, Any]:
    """The reference's sub-route body, e.g. ``{symbol, holders: [...]}``, so its clients
    work unchanged."""
    symbol = require_symbol(symbol_text)
    return {"symbol": symbol, ALIAS_KEYS[holder_type]: holder_member(symbol, holder_type)}
