"""The market overview: index levels, the day's movers, sectors and a symbol's peers.

Sources: the ``indices``, ``movers``, ``sectors``, ``symbol_sector`` and ``similar`` rows of
:mod:`marketdata.capabilities.table`. Each function asks for one thing (one index, one
sector), so the caller fans out and decides what a partial answer is.
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.records.market import (
    MOVER_LISTS,
    CurrencyInfo,
    IndexSnapshot,
    MarketIndexInfo,
    MarketSummaryItem,
    Peer,
    ScreenerQuote,
    SectorData,
    Spark,
)


def index(info: MarketIndexInfo) -> IndexSnapshot:
    """The level, day's move and period returns of one index of the contract's list."""
    snapshot: IndexSnapshot = call("indices", info)
    return snapshot


def movers(mover_list: str, count: int) -> list[ScreenerQuote]:
    """At most ``count`` movers of a list (:data:`MOVER_LISTS`), the source's ranking."""
    if mover_list not in MOVER_LISTS:
        raise ValueError(f"unknown mover list {mover_list!r}")  # a programming error
    rows: list[ScreenerQuote] = call("movers", mover_list, count)
    return rows


def sector(key: str) -> SectorData:
    """One sector by key (:data:`marketdata.records.market.SECTOR_NAMES`); NotFound for any
    other key."""
    data: SectorData = call("sectors", key)
    return data


def sector_key_of(symbol: str) -> str | None:
    """The sector key of a validated symbol (None when it has no sector: an ETF, an index, a
    currency...); NotFound when the symbol is unknown."""
    key: str | None = call("symbol_sector", symbol)
    return key


def peers(symbol: str, count: int) -> list[Peer]:
    """Up to ``count`` symbols similar to a validated symbol, best match first; an unknown
    symbol has none."""
    found: list[Peer] = call("similar", symbol, count)
    return found


def currencies() -> list[CurrencyInfo]:
    """The currencies the quote source lists, in its order."""
    found: list[CurrencyInfo] = call("currencies")
    return found


def trending(region: str) -> list[str]:
    """The symbols trending in a Region (``GB``, not ``UK``), the source's order."""
    symbols: list[str] = call("trending", region)
    return symbols


def market_summary(region: str, lang: str | None = None) -> list[MarketSummaryItem]:
    """A Region's market summary (its main indices, futures, rates, currencies), the
    source's order; texts in ``lang`` (the region's own language when None)."""
    items: list[MarketSummaryItem] = call("market_summary", region, lang)
    return items


def sparks(symbols: list[str], interval: str, range_: str) -> dict[str, Spark]:
    """The closes of validated symbols over ``range_`` in ``interval`` bars (a combination
    :func:`marketdata.records.bars.check_range_interval` accepts), by symbol; unknown
    symbols are absent."""
    found: dict[str, Spark] = call("spark", symbols, interval, range_)
    return found
