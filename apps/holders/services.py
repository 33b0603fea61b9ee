"""Holders: one data module per holder type, served as v1's HoldersData, as the reference
implementation's v1 sub-route bodies and as v2's raw module (the shared machinery:
:mod:`apps.analysis.modules`).

:data:`TYPES` is the one table of holder types: for each, its module, its v1 name (query
form), its kebab name (v1 sub-route and v2 path), the v1 builder, its HoldersData member and
reference body key, and v2's module record (its known members: marketdata.records.fundamentals)
and paged list member. v1's query choices, v1's
sub-route aliases and v2's path enum are all derived from it. A missing date stays null (it
is never replaced by the current time).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apps.analysis.modules import ModuleEndpoint, ModuleType
from marketdata.capabilities import fundamentals
from marketdata.formatting import json_ready
from marketdata.records.fundamentals import (
    FUND_OWNERSHIP,
    INSIDER_HOLDERS,
    INSIDER_TRANSACTIONS,
    INSTITUTION_OWNERSHIP,
    MAJOR_HOLDERS_BREAKDOWN,
    NET_SHARE_PURCHASE_ACTIVITY,
    Holder,
    InsiderPurchases,
    InsiderPurchasesModule,
    InsiderRosterMember,
    InsiderRosterModule,
    InsiderTransaction,
    InsiderTransactionsModule,
    MajorHolders,
    MajorHoldersModule,
    OwnershipModule,
)


# -- v1 builders: module record -> the HoldersData member (None when there is no data) --------
def _major(breakdown: MajorHolders) -> dict[str, Any] | None:
    if all(value is None for value in breakdown.values()):
        return None
    return {"breakdown_data": breakdown}


def _ownership(holders: list[Holder]) -> list[dict[str, Any]] | None:
    return [json_ready(h) for h in holders] or None


def _insider_transactions(transactions: list[InsiderTransaction]) -> list[dict[str, Any]] | None:
    return [json_ready(t) for t in transactions] or None


def _insider_purchases(purchases: InsiderPurchases) -> dict[str, Any] | None:
    return json_ready(purchases) if purchases.has_data else None


def _insider_roster(roster: list[InsiderRosterMember]) -> list[dict[str, Any]] | None:
    return [json_ready(m) for m in roster] or None


# -- the table ------------------------------------------------------------------------------
HOLDERS = ModuleEndpoint("holder_type", fundamentals.holders, (
    ModuleType("major", "major", MAJOR_HOLDERS_BREAKDOWN, _major, "major holders",
               v1_member="major_breakdown", reference_key="breakdown",
               v2_record=MajorHoldersModule),
    ModuleType("institutional", "institutional", INSTITUTION_OWNERSHIP, _ownership,
               "institutional holders", v1_member="institutional_holders",
               reference_key="holders", v2_record=OwnershipModule, v2_list="ownershipList"),
    ModuleType("mutualfund", "mutualfund", FUND_OWNERSHIP, _ownership, "mutual fund holders",
               v1_member="mutualfund_holders", reference_key="holders",
               v2_record=OwnershipModule, v2_list="ownershipList"),
    ModuleType("insider_transactions", "insider-transactions", INSIDER_TRANSACTIONS,
               _insider_transactions, "insider transactions",
               v1_member="insider_transactions", reference_key="transactions",
               v2_record=InsiderTransactionsModule, v2_list="transactions", v2_order="desc"),
    ModuleType("insider_purchases", "insider-purchases", NET_SHARE_PURCHASE_ACTIVITY,
               _insider_purchases, "insider purchases", v1_member="insider_purchases",
               reference_key="summary", v2_record=InsiderPurchasesModule),
    ModuleType("insider_roster", "insider-roster", INSIDER_HOLDERS, _insider_roster,
               "insider roster", v1_member="insider_roster", reference_key="roster",
               v2_record=InsiderRosterModule, v2_list="holders"),
))

# Derived: the table, v1's query choices and members, v1's sub-route aliases, v2's path enum.
TYPES: dict[str, ModuleType] = HOLDERS.types
HOLDER_TYPES = HOLDERS.names
# HoldersData member filled for each type.
MEMBERS = HOLDERS.members
ALIASES = HOLDERS.aliases
# The reference's sub-route bodies: {symbol, <key>: <same value as the HoldersData member>}.
ALIAS_KEYS = {name: t.reference_key for name, t in TYPES.items()}
V2_TYPES: Mapping[str, ModuleType] = HOLDERS.v2_types


def holders_data(symbol_text: str, holder_type: str) -> dict[str, Any]:
    """HoldersData: every member present, only the requested one filled."""
    return HOLDERS.body(symbol_text, holder_type)


def reference_body(symbol_text: str, holder_type: str) -> dict[str, Any]:
    """The reference's sub-route body, e.g. ``{symbol, holders: [...]}``, so its clients
    work unchanged."""
    return HOLDERS.reference_body(symbol_text, holder_type)
