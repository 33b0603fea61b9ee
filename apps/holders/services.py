"""Holders: one quoteSummary module per holder type, served as v1's HoldersData, as the
reference implementation's v1 sub-route bodies and as v2's raw module.

:data:`TYPES` is the one table of holder types: for each, its Yahoo module, its v1 name
(query form), its kebab name (v1 sub-route and v2 path), the v1 builder (parsed dataclasses),
its HoldersData member and reference body key, and v2's known members and paged list member.
v1's query choices, v1's sub-route aliases and v2's path enum are all derived from it.

A holder type with no data (Yahoo's 404 for the module, an empty list, or a module with no
numbers, as the v1 builder decides) is a 404 like an unknown symbol in both interfaces; a
missing field is null, and a missing date stays null (it is never replaced by the current
time).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.errors import NotFound
from marketdata.formatting import json_ready
from marketdata.providers.yahoo import holders as yahoo_holders
from marketdata.providers.yahoo.holders import (
    FUND_OWNERSHIP,
    INSIDER_HOLDERS,
    INSIDER_TRANSACTIONS,
    INSTITUTION_OWNERSHIP,
    MAJOR_HOLDERS_BREAKDOWN,
    NET_SHARE_PURCHASE_ACTIVITY,
    raw_module,
)

Module = dict[str, Any]


# -- v1 builders: module body -> the HoldersData member (None when there is no data) -----------
def _major(module: Module) -> dict[str, Any] | None:
    breakdown = yahoo_holders.parse_major_holders_breakdown(module)
    if all(value is None for value in breakdown.values()):
        return None
    return {"breakdown_data": breakdown}


def _ownership(module: Module) -> list[dict[str, Any]] | None:
    return [json_ready(h) for h in yahoo_holders.parse_ownership_list(module)] or None


def _insider_transactions(module: Module) -> list[dict[str, Any]] | None:
    return [json_ready(t) for t in yahoo_holders.parse_insider_transactions(module)] or None


def _insider_purchases(module: Module) -> dict[str, Any] | None:
    purchases = yahoo_holders.parse_net_share_purchase_activity(module)
    return json_ready(purchases) if purchases.has_data else None


def _insider_roster(module: Module) -> list[dict[str, Any]] | None:
    return [json_ready(m) for m in yahoo_holders.parse_insider_holders(module)] or None


# -- the table ------------------------------------------------------------------------------
@dataclass(frozen=True)
class HolderType:
    """One holder type, everything both interfaces need to know about it."""

    v1_name: str  # v1 query form value ("insider_transactions")
    route: str  # kebab name: v1 sub-route alias and v2 {type} ("insider-transactions")
    module: str  # the Yahoo quoteSummary module it is read from
    build: Callable[[Module], Any]  # v1: module body -> member, None when there is no data
    label: str  # "No {label} data found for SYM"
    v1_member: str  # the HoldersData member it fills
    reference_key: str  # the member of the reference's sub-route body
    v2_members: tuple[str, ...]  # v2's known top-level members (Yahoo's names)
    v2_list: str | None = None  # the v2 member `cursor`/`limit` page; None: not a list type


_OWNERSHIP = ("maxAge", "ownershipList")
TYPES: dict[str, HolderType] = {t.v1_name: t for t in (
    HolderType("major", "major", MAJOR_HOLDERS_BREAKDOWN, _major, "major holders",
               "major_breakdown", "breakdown",
               ("maxAge", "insidersPercentHeld", "institutionsPercentHeld",
                "institutionsFloatPercentHeld", "institutionsCount")),
    HolderType("institutional", "institutional", INSTITUTION_OWNERSHIP, _ownership,
               "institutional holders", "institutional_holders", "holders", _OWNERSHIP,
               "ownershipList"),
    HolderType("mutualfund", "mutualfund", FUND_OWNERSHIP, _ownership, "mutual fund holders",
               "mutualfund_holders", "holders", _OWNERSHIP, "ownershipList"),
    HolderType("insider_transactions", "insider-transactions", INSIDER_TRANSACTIONS,
               _insider_transactions, "insider transactions", "insider_transactions",
               "transactions", ("transactions", "maxAge"), "transactions"),
    HolderType("insider_purchases", "insider-purchases", NET_SHARE_PURCHASE_ACTIVITY,
               _insider_purchases, "insider purchases", "insider_purchases", "summary",
               ("maxAge", "period", "buyInfoCount", "buyInfoShares", "buyPercentInsiderShares",
                "sellInfoCount", "sellInfoShares", "sellPercentInsiderShares", "netInfoCount",
                "netInfoShares", "netPercentInsiderShares", "totalInsiderShares")),
    HolderType("insider_roster", "insider-roster", INSIDER_HOLDERS, _insider_roster,
               "insider roster", "insider_roster", "roster", ("holders", "maxAge"),
               "holders"),
)}

# Derived: v1's query choices and members, v1's sub-route aliases, v2's path enum.
HOLDER_TYPES = tuple(TYPES)
# HoldersData member filled for each type.
MEMBERS = {name: t.v1_member for name, t in TYPES.items()}
# The reference implementation's sub-route names (/v1/holders/{symbol}/{name}) -> type.
ALIASES = {t.route: t.v1_name for t in TYPES.values() if t.route != t.v1_name}
# The reference's sub-route bodies: {symbol, <key>: <same value as the HoldersData member>}.
ALIAS_KEYS = {name: t.reference_key for name, t in TYPES.items()}
V2_TYPES: Mapping[str, HolderType] = {t.route: t for t in TYPES.values()}


def _no_data(kind: HolderType, symbol: str) -> NotFound:
    return NotFound(f"No {kind.label} data found for {symbol}")


def _module(symbol: str, kind: HolderType) -> Module:
    """The type's module for a validated symbol; Yahoo's 404 (no such symbol, or no data
    for the module) is this type's "no data" 404."""
    try:
        return yahoo_holders.fetch_holders_module(symbol, kind.module)
    except NotFound:
        raise _no_data(kind, symbol) from None


def holder_member(symbol: str, holder_type: str) -> Any:
    """The data for one type of a validated symbol; NotFound when there is none."""
    kind = TYPES[holder_type]
    member = kind.build(_module(symbol, kind))
    if member is None:
        raise _no_data(kind, symbol)
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


def holders_module(symbol_text: str, route: str) -> tuple[HolderType, dict[str, Any]]:
    """v2: the type named ``route`` (a v2 path name) and its module as Yahoo sends it, every
    ``{raw, fmt}`` value reduced to raw. 404 for a malformed or unknown symbol and when the
    type has no data (the same decision as v1's)."""
    symbol = require_symbol(symbol_text)
    kind = V2_TYPES[route]
    module = _module(symbol, kind)
    body = raw_module(module)
    if not any(name != "maxAge" for name in body) or kind.build(module) is None:
        raise _no_data(kind, symbol)
    return kind, body
