"""Ownership data from v10 quoteSummary modules: the major-holders breakdown, institutional
and mutual-fund holders, insider transactions, net insider purchases and the insider
roster.

One module per call, for the same reasons as :mod:`.analysis`: a module Yahoo has no data
for is a 404 of its own, and each (symbol, module) pair is cached on its own. Parsers take
the module body and read bare numbers and ``{raw, fmt}`` objects alike (Yahoo sends the
breakdown as bare numbers and the ownership lists as objects, both with ``formatted=false``).
Dates are epochs turned into UTC datetimes; a missing date stays None.

v2 serves these modules raw through :func:`raw_module`, shared with :mod:`.analysis`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from marketdata.formatting import integer, mapping, number, raw, rows, text, utc_datetime
from marketdata.providers.yahoo.analysis import raw_module as raw_module  # v2's raw reading
from marketdata.providers.yahoo.quote_summary import fetch_module

MAJOR_HOLDERS_BREAKDOWN = "majorHoldersBreakdown"
INSTITUTION_OWNERSHIP = "institutionOwnership"
FUND_OWNERSHIP = "fundOwnership"
INSIDER_TRANSACTIONS = "insiderTransactions"
NET_SHARE_PURCHASE_ACTIVITY = "netSharePurchaseActivity"
INSIDER_HOLDERS = "insiderHolders"

# The breakdown metrics the interface names; others Yahoo may add are passed through.
BREAKDOWN_METRICS = ("institutionsPercentHeld", "insidersPercentHeld",
                     "institutionsFloatPercentHeld", "institutionsCount")
_COUNT_METRICS = frozenset({"institutionsCount"})

# Strings pass through as Yahoo sends them ("" stays "": transactionText is "" on gifts).
_as_sent = partial(text, clean=False)


@dataclass(frozen=True)
class Holder:
    """An institution or a fund holding the stock (same shape for both lists)."""

    holder: str | None
    shares: int | None
    date_reported: datetime | None
    percent_out: float | None  # a fraction of shares outstanding: 0.0929 is 9.29%
    value: int | None


@dataclass(frozen=True)
class InsiderTransaction:
    start_date: datetime | None
    insider: str | None
    position: str | None
    transaction: str | None
    shares: int | None
    value: int | None
    ownership: str | None  # D (direct) or I (indirect)


@dataclass(frozen=True)
class InsiderPurchases:
    """Net insider buying and selling over ``period`` (Yahoo: the last six months)."""

    period: str | None
    purchases_shares: int | None
    purchases_transactions: int | None
    sales_shares: int | None
    sales_transactions: int | None
    net_shares: int | None
    net_transactions: int | None
    total_insider_shares: int | None
    net_percent_insider_shares: float | None
    buy_percent_insider_shares: float | None
    sell_percent_insider_shares: float | None

    @property
    def has_data(self) -> bool:
        return any(v is not None for k, v in vars(self).items() if k != "period")


@dataclass(frozen=True)
class InsiderRosterMember:
    name: str | None
    position: str | None
    most_recent_transaction: str | None
    latest_transaction_date: datetime | None
    shares_owned_directly: int | None
    shares_owned_indirectly: int | None
    position_direct_date: datetime | None





# -- parsers (module body -> typed values) ----------------------------------------------------
def parse_major_holders_breakdown(module: Any) -> dict[str, float | int | None]:
    """Metric name -> number: the four named metrics always (None when missing), then any
    other numeric metric Yahoo adds. Percentages are fractions (0.62706 is 62.7%)."""
    data = mapping(module)
    out: dict[str, float | int | None] = {}
    for name in BREAKDOWN_METRICS:
        out[name] = integer(data.get(name)) if name in _COUNT_METRICS else number(data.get(name))
    for name, value in data.items():
        if name not in out and name != "maxAge" and number(value) is not None:
            out[name] = raw(value)
    return out


def parse_ownership_list(module: Any) -> list[Holder]:
    """institutionOwnership or fundOwnership: the top holders, largest first."""
    return [Holder(holder=_as_sent(row.get("organization")), shares=integer(row.get("position")),
                   date_reported=utc_datetime(row.get("reportDate")),
                   percent_out=number(row.get("pctHeld")), value=integer(row.get("value")))
            for row in rows(mapping(module).get("ownershipList"))]


def parse_insider_transactions(module: Any) -> list[InsiderTransaction]:
    """Filings, newest first. ``transactionText`` is "" on grants and gifts, as Yahoo sends
    it; ``value`` is absent on those rows (None)."""
    return [InsiderTransaction(start_date=utc_datetime(row.get("startDate")),
                               insider=_as_sent(row.get("filerName")),
                               position=_as_sent(row.get("filerRelation")),
                               transaction=_as_sent(row.get("transactionText")),
                               shares=integer(row.get("shares")), value=integer(row.get("value")),
                               ownership=_as_sent(row.get("ownership")))
            for row in rows(mapping(module).get("transactions"))]


def parse_net_share_purchase_activity(module: Any) -> InsiderPurchases:
    data = mapping(module)
    return InsiderPurchases(
        period=_as_sent(data.get("period")),
        purchases_shares=integer(data.get("buyInfoShares")),
        purchases_transactions=integer(data.get("buyInfoCount")),
        sales_shares=integer(data.get("sellInfoShares")),
        sales_transactions=integer(data.get("sellInfoCount")),
        net_shares=integer(data.get("netInfoShares")),
        net_transactions=integer(data.get("netInfoCount")),
        total_insider_shares=integer(data.get("totalInsiderShares")),
        net_percent_insider_shares=number(data.get("netPercentInsiderShares")),
        buy_percent_insider_shares=number(data.get("buyPercentInsiderShares")),
        sell_percent_insider_shares=number(data.get("sellPercentInsiderShares")))


def parse_insider_holders(module: Any) -> list[InsiderRosterMember]:
    return [InsiderRosterMember(name=_as_sent(row.get("name")),
                                position=_as_sent(row.get("relation")),
                                most_recent_transaction=_as_sent(row.get("transactionDescription")),
                                latest_transaction_date=utc_datetime(row.get("latestTransDate")),
                                shares_owned_directly=integer(row.get("positionDirect")),
                                shares_owned_indirectly=integer(row.get("positionIndirect")),
                                position_direct_date=utc_datetime(row.get("positionDirectDate")))
            for row in rows(mapping(module).get("holders"))]


# -- fetch (through the cache) ----------------------------------------------------------------
def fetch_holders_module(symbol: str, module: str) -> dict[str, Any]:
    """One module for a validated symbol, cached under the holders policy."""
    return fetch_module(symbol, module, policy="holders", group="holders")


def fetch_major_holders_breakdown(symbol: str) -> dict[str, float | int | None]:
    return parse_major_holders_breakdown(fetch_holders_module(symbol, MAJOR_HOLDERS_BREAKDOWN))


def fetch_institutional_holders(symbol: str) -> list[Holder]:
    return parse_ownership_list(fetch_holders_module(symbol, INSTITUTION_OWNERSHIP))


def fetch_mutualfund_holders(symbol: str) -> list[Holder]:
    return parse_ownership_list(fetch_holders_module(symbol, FUND_OWNERSHIP))


def fetch_insider_transactions(symbol: str) -> list[InsiderTransaction]:
    return parse_insider_transactions(fetch_holders_module(symbol, INSIDER_TRANSACTIONS))


def fetch_insider_purchases(symbol: str) -> InsiderPurchases:
    return parse_net_share_purchase_activity(
        fetch_holders_module(symbol, NET_SHARE_PURCHASE_ACTIVITY))


def fetch_insider_roster(symbol: str) -> list[InsiderRosterMember]:
    return parse_insider_holders(fetch_holders_module(symbol, INSIDER_HOLDERS))
