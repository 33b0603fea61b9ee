"""Holders: one data module per holder type, served as v1's HoldersData, as the reference
implementation's v1 sub-route bodies (records of v1's members) and as v2's raw module (the
shared machinery: :mod:`apps.analysis.modules`).

:data:`TYPES` is the one table of holder types: for each, its module, its v1 name (query
form), its kebab name (v1 sub-route and v2 path), the v1 builder, its HoldersData member and
reference body record, and v2's module record (its known members: marketdata.records.fundamentals)
and paged list member. v1's query choices, v1's
sub-route aliases and v2's path enum are all derived from it. A missing date stays null (it
is never replaced by the current time).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from apps.analysis.modules import ModuleEndpoint, ModuleType, listed
from marketdata.capabilities import fundamentals
from marketdata.records import fundamentals as records
from marketdata.records.fundamentals import (
    FUND_OWNERSHIP,
    INSIDER_HOLDERS,
    INSIDER_TRANSACTIONS,
    INSTITUTION_OWNERSHIP,
    MAJOR_HOLDERS_BREAKDOWN,
    NET_SHARE_PURCHASE_ACTIVITY,
    InsiderPurchasesModule,
    InsiderRosterModule,
    InsiderTransactionsModule,
    MajorHoldersModule,
    OwnershipModule,
)
from marketdata.records.members import DOUBLE, member

_DATE = "ISO 8601, UTC"


# -- v1: the HoldersData member of each type, records of v1's members --------------------------
@dataclass(frozen=True)
class MajorHoldersBreakdown:
    breakdown_data: dict[str, float | None] = member(
        "Metric -> number: institutionsPercentHeld, insidersPercentHeld, "
        "institutionsFloatPercentHeld (fractions: 0.627 = 62.7%) and institutionsCount "
        "(integer); the four are always present (null when Yahoo has no value), other "
        "metrics Yahoo adds are passed through", name="breakdown_data",
        schema={"additionalProperties": {"type": ["number", "null"], "format": "double"}})

    @classmethod
    def of(cls, breakdown: records.MajorHolders) -> MajorHoldersBreakdown | None:
        if all(value is None for value in breakdown.values()):
            return None
        return cls(breakdown)  # type: ignore[arg-type]  # institutionsCount is an int


@dataclass(frozen=True)
class Holder:
    holder: str | None = member()
    shares: int | None = member()
    date_reported: datetime | None = member(_DATE, name="date_reported")
    percent_out: float | None = member("Fraction of shares outstanding", name="percent_out",
                                       schema=DOUBLE)
    value: int | None = member()

    @classmethod
    def of(cls, row: records.Holder) -> Holder:
        return cls(row.holder, row.shares, row.date_reported, row.percent_out, row.value)


@dataclass(frozen=True)
class InsiderTransaction:
    start_date: datetime | None = member(_DATE, name="start_date")
    insider: str | None = member()
    position: str | None = member()
    transaction: str | None = member('Yahoo\'s text; "" on grants and gifts')
    shares: int | None = member()
    value: int | None = member()
    ownership: str | None = member("D (direct) or I (indirect)")

    @classmethod
    def of(cls, row: records.InsiderTransaction) -> InsiderTransaction:
        return cls(row.start_date, row.insider, row.position, row.transaction, row.shares,
                   row.value, row.ownership)


@dataclass(frozen=True)
class InsiderPurchase:
    period: str | None = member('e.g. "6m"')
    purchases_shares: int | None = member(name="purchases_shares")
    purchases_transactions: int | None = member(name="purchases_transactions")
    sales_shares: int | None = member(name="sales_shares")
    sales_transactions: int | None = member(name="sales_transactions")
    net_shares: int | None = member(name="net_shares")
    net_transactions: int | None = member(name="net_transactions")
    total_insider_shares: int | None = member(name="total_insider_shares")
    net_percent_insider_shares: float | None = member(name="net_percent_insider_shares",
                                                      schema=DOUBLE)
    buy_percent_insider_shares: float | None = member(name="buy_percent_insider_shares",
                                                      schema=DOUBLE)
    sell_percent_insider_shares: float | None = member(name="sell_percent_insider_shares",
                                                       schema=DOUBLE)

    @classmethod
    def of(cls, row: records.InsiderPurchases) -> InsiderPurchase | None:
        if not row.has_data:
            return None
        return cls(row.period, row.purchases_shares, row.purchases_transactions,
                   row.sales_shares, row.sales_transactions, row.net_shares,
                   row.net_transactions, row.total_insider_shares,
                   row.net_percent_insider_shares, row.buy_percent_insider_shares,
                   row.sell_percent_insider_shares)


@dataclass(frozen=True)
class InsiderRosterMember:
    name: str | None = member()
    position: str | None = member()
    most_recent_transaction: str | None = member(name="most_recent_transaction")
    latest_transaction_date: datetime | None = member(name="latest_transaction_date")
    shares_owned_directly: int | None = member(name="shares_owned_directly")
    shares_owned_indirectly: int | None = member(name="shares_owned_indirectly")
    position_direct_date: datetime | None = member(name="position_direct_date")

    @classmethod
    def of(cls, row: records.InsiderRosterMember) -> InsiderRosterMember:
        return cls(row.name, row.position, row.most_recent_transaction,
                   row.latest_transaction_date, row.shares_owned_directly,
                   row.shares_owned_indirectly, row.position_direct_date)


# -- the reference's sub-route bodies: {symbol, <its key>: <the HoldersData member>} ----------
@dataclass(frozen=True)
class _Reference:
    symbol: str = member()


@dataclass(frozen=True)
class MajorHoldersResponse(_Reference):
    breakdown: MajorHoldersBreakdown = member()


@dataclass(frozen=True)
class HolderListResponse(_Reference):
    holders: list[Holder] = member()


@dataclass(frozen=True)
class InsiderTransactionsResponse(_Reference):
    transactions: list[InsiderTransaction] = member()


@dataclass(frozen=True)
class InsiderPurchasesResponse(_Reference):
    summary: InsiderPurchase = member()


@dataclass(frozen=True)
class InsiderRosterResponse(_Reference):
    roster: list[InsiderRosterMember] = member()


# -- the table ------------------------------------------------------------------------------
HOLDERS = ModuleEndpoint("holder_type", fundamentals.holders, (
    ModuleType("major", "major", MAJOR_HOLDERS_BREAKDOWN, MajorHoldersBreakdown.of,
               "major holders", v1_member="major_breakdown", reference=MajorHoldersResponse,
               v2_record=MajorHoldersModule),
    ModuleType("institutional", "institutional", INSTITUTION_OWNERSHIP, listed(Holder.of),
               "institutional holders", v1_member="institutional_holders",
               reference=HolderListResponse, v2_record=OwnershipModule, v2_list="ownershipList"),
    ModuleType("mutualfund", "mutualfund", FUND_OWNERSHIP, listed(Holder.of),
               "mutual fund holders", v1_member="mutualfund_holders",
               reference=HolderListResponse,
               v2_record=OwnershipModule, v2_list="ownershipList"),
    ModuleType("insider_transactions", "insider-transactions", INSIDER_TRANSACTIONS,
               listed(InsiderTransaction.of), "insider transactions",
               v1_member="insider_transactions", reference=InsiderTransactionsResponse,
               v2_record=InsiderTransactionsModule, v2_list="transactions", v2_order="desc"),
    ModuleType("insider_purchases", "insider-purchases", NET_SHARE_PURCHASE_ACTIVITY,
               InsiderPurchase.of, "insider purchases", v1_member="insider_purchases",
               reference=InsiderPurchasesResponse, v2_record=InsiderPurchasesModule),
    ModuleType("insider_roster", "insider-roster", INSIDER_HOLDERS,
               listed(InsiderRosterMember.of), "insider roster", v1_member="insider_roster",
               reference=InsiderRosterResponse,
               v2_record=InsiderRosterModule, v2_list="holders"),
))

# Derived: the table, v1's query choices and members, v1's sub-route aliases, v2's path enum.
TYPES: dict[str, ModuleType] = HOLDERS.types
HOLDER_TYPES = HOLDERS.names
# HoldersData member filled for each type.
MEMBERS = HOLDERS.members
ALIASES = HOLDERS.aliases
V2_TYPES: Mapping[str, ModuleType] = HOLDERS.v2_types


@dataclass(frozen=True)
class HoldersData:
    """v1's answer: every type's member present, only the requested one filled."""

    symbol: str = member("The symbol, upper-cased")
    holder_type: str = member(name="holder_type", schema={"enum": list(HOLDER_TYPES)})
    major_breakdown: MajorHoldersBreakdown | None = member(name="major_breakdown",
                                                           default=None)
    institutional_holders: list[Holder] | None = member(name="institutional_holders",
                                                        default=None)
    mutualfund_holders: list[Holder] | None = member(name="mutualfund_holders", default=None)
    insider_transactions: list[InsiderTransaction] | None = member(
        name="insider_transactions", default=None)
    insider_purchases: InsiderPurchase | None = member(name="insider_purchases", default=None)
    insider_roster: list[InsiderRosterMember] | None = member(name="insider_roster",
                                                              default=None)


def holders_data(symbol_text: str, holder_type: str) -> HoldersData:
    """HoldersData: every member present, only the requested one filled."""
    return HOLDERS.body(symbol_text, holder_type, HoldersData)


def reference_body(symbol_text: str, holder_type: str) -> Any:
    """The reference's sub-route body, e.g. ``{symbol, holders: [...]}`` (the type's
    reference record), so its clients work unchanged."""
    return HOLDERS.reference_body(symbol_text, holder_type)
