"""The market indices of ``/v1/indices`` from Yahoo: the ``indices`` fetcher.

The indices themselves (identifiers, order, symbols, display names) are the contract's, in
:mod:`marketdata.records.market`. Each index is one quoteSummary call (``price`` for the
level and the day's move, ``quoteUnadjustedPerformanceOverview`` for the period returns).
"""

from __future__ import annotations

from typing import Any

from marketdata.formatting import mapping, number
from marketdata.providers.yahoo.full_quote import parse_returns
from marketdata.providers.yahoo.quote_summary import fetch_quote_summary
from marketdata.records.market import (  # noqa: F401 - the records' old home re-exports them
    BY_ID,
    INDEX_IDS,
    INDICES,
    REGIONS,
    IndexSnapshot,
    MarketIndexInfo,
    select_indices,
)
from marketdata.records.quotes import RETURN_NAMES

INDEX_MODULES = ("price", "quoteUnadjustedPerformanceOverview")


def parse_index(symbol: str, modules: dict[str, Any]) -> IndexSnapshot:
    """quoteSummary ``price`` + performance modules -> snapshot (numbers bare or {raw, fmt})."""
    price = mapping(modules.get("price"))
    period = parse_returns(mapping(modules.get("quoteUnadjustedPerformanceOverview")))
    hint = number(price.get("priceHint"))
    returns = {name: value for name, member in RETURN_NAMES
               if (value := getattr(period, member)) is not None}
    return IndexSnapshot(
        symbol=price.get("symbol") or symbol,
        long_name=price.get("longName") or None,
        short_name=price.get("shortName") or None,
        price=number(price.get("regularMarketPrice")),
        change=number(price.get("regularMarketChange")),
        change_fraction=number(price.get("regularMarketChangePercent")),
        price_hint=int(hint) if hint is not None else 2,
        returns=returns,
    )


def fetch_index(info: MarketIndexInfo) -> IndexSnapshot:
    """The ``indices`` fetcher: one index through the cache (policy ``indices``)."""
    modules = fetch_quote_summary(info.symbol, INDEX_MODULES, policy="indices", group="indices")
    return parse_index(info.symbol, modules)
