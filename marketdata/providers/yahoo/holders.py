"""Ownership data from v10 quoteSummary modules: the major-holders breakdown, institutional
and mutual-fund holders, insider transactions, net insider purchases and the insider
roster.

One module per call, for the same reasons as :mod:`.analysis`: a module Yahoo has no data
for is a 404 of its own, and each (symbol, module) pair is cached on its own. Parsers take
the module body and read bare numbers and ``{raw, fmt}`` objects alike (Yahoo sends the
breakdown as bare numbers and the ownership lists as objects, both with ``formatted=false``).
Dates are epochs turned into UTC datetimes; a missing date stays None.

v2 serves these modules raw through :func:`raw_module`, shared with :mod:`.analysis`. The
capability table's ``holders`` fetcher is :func:`holders_data`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from marketdata.formatting import integer, mapping, number, raw, rows, text, utc_datetime
from marketdata.providers.yahoo.analysis import raw_module as raw_module  # v2's raw reading
from marketdata.providers.yahoo.analysis import read_module
from marketdata.providers.yahoo.quote_summary import fetch_module
from marketdata.records.fundamentals import (
    BREAKDOWN_METRICS,
    FUND_OWNERSHIP,
    INSIDER_HOLDERS,
    INSIDER_TRANSACTIONS,
    INSTITUTION_OWNERSHIP,
    MAJOR_HOLDERS_BREAKDOWN,
    NET_SHARE_PURCHASE_ACTIVITY,
    Holder,
    InsiderPurchases,
    InsiderRosterMember,
    InsiderTransaction,
    MajorHolders,
    ModuleData,
)

_COUNT_METRICS = frozenset({"institutionsCount"})

# Strings pass through as Yahoo sends them ("" stays "": transactionText is "" on gifts).
_as_sent = partial(text, clean=False)


# -- parsers (module body -> typed values) ----------------------------------------------------
def parse_major_holders_breakdown(module: Any) -> MajorHolders:
    """Metric name -> number: the four named metrics always (None when missing), then any
    other numeric metric Yahoo adds. Percentages are fractions (0.62706 is 62.7%)."""
    data = mapping(module)
    out: MajorHolders = {}
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


# -- the fetcher (the capability table's) -----------------------------------------------------
# The record each holders module is read into.
READERS: dict[str, Callable[[Any], Any]] = {
    MAJOR_HOLDERS_BREAKDOWN: parse_major_holders_breakdown,
    INSTITUTION_OWNERSHIP: parse_ownership_list,
    FUND_OWNERSHIP: parse_ownership_list,
    INSIDER_TRANSACTIONS: parse_insider_transactions,
    NET_SHARE_PURCHASE_ACTIVITY: parse_net_share_purchase_activity,
    INSIDER_HOLDERS: parse_insider_holders,
}


def holders_data(symbol: str, module: str, *, members: bool = False) -> ModuleData:
    """The ``holders`` fetcher: one module of a validated symbol; NotFound when Yahoo has
    no such symbol or no data for the module."""
    return read_module(fetch_holders_module(symbol, module), READERS[module], members)
