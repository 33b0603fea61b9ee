"""The market overview: index levels, the day's movers, sectors and a symbol's peers,
currencies, trending symbols, the market summary and sparklines.

Sources: Yahoo Finance for each. Each function asks for one thing (one index, one sector),
so the caller fans out and decides what a partial answer is.
"""

from __future__ import annotations

from marketdata.capabilities.table import YAHOO, Source, declare
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

SECTORS = "marketdata.providers.yahoo.sectors"


@declare("indices", "Market indices (/v1/indices)",
         Source("yahoo", f"{YAHOO} quoteSummary",
                fetcher="marketdata.providers.yahoo.indices:fetch_index"))
def index(info: MarketIndexInfo) -> IndexSnapshot:
    """The level, day's move and period returns of one index of the contract's list."""


@declare("movers", "Market movers (/v1/actives, /v1/gainers, /v1/losers)",
         Source("yahoo", f"{YAHOO} predefined screeners",
                fetcher="marketdata.providers.yahoo.screener:movers"))
def _movers(mover_list: str, count: int) -> list[ScreenerQuote]:
    """The rows of a known mover list (:func:`movers`)."""


def movers(mover_list: str, count: int) -> list[ScreenerQuote]:
    """At most ``count`` movers of a list (:data:`MOVER_LISTS`), the source's ranking."""
    if mover_list not in MOVER_LISTS:
        raise ValueError(f"unknown mover list {mover_list!r}")  # a programming error
    return _movers(mover_list, count)


@declare("sectors", "Sectors (/v1/sectors, /v1/sectors/details/{sector}, "
                    "/v1/sectors/symbol/{symbol})",
         Source("yahoo", f"{YAHOO} sectors", fetcher=f"{SECTORS}:fetch_sector"))
def sector(key: str) -> SectorData:
    """One sector by key (:data:`marketdata.records.market.SECTOR_NAMES`); NotFound for any
    other key."""


@declare("symbol_sector", "A symbol's sector (/v1/sectors/symbol/{symbol})",
         Source("yahoo", f"{YAHOO} quoteSummary assetProfile",
                fetcher=f"{SECTORS}:sector_key_of_symbol"))
def sector_key_of(symbol: str) -> str | None:
    """The sector key of a validated symbol (None when it has no sector: an ETF, an index, a
    currency...); NotFound when the symbol is unknown."""


@declare("similar", "Similar stocks (/v1/similar)",
         Source("yahoo", f"{YAHOO} recommendations by symbol",
                fetcher="marketdata.providers.yahoo.recommendations:fetch_recommendations"))
def peers(symbol: str, count: int) -> list[Peer]:
    """Up to ``count`` symbols similar to a validated symbol, best match first; an unknown
    symbol has none."""


@declare("currencies", "Currencies (/v2/currencies)",
         Source("yahoo", f"{YAHOO} currencies",
                fetcher="marketdata.providers.yahoo.currencies:currencies"))
def currencies() -> list[CurrencyInfo]:
    """The currencies the quote source lists, in its order."""


@declare("trending", "Trending symbols (/v2/trending)",
         Source("yahoo", f"{YAHOO} trending tickers",
                fetcher="marketdata.providers.yahoo.trending:trending"))
def trending(region: str) -> list[str]:
    """The symbols trending in a Region (``GB``, not ``UK``), the source's order."""


@declare("market_summary", "Market summary (/v2/market-summary)",
         Source("yahoo", f"{YAHOO} market summary",
                fetcher="marketdata.providers.yahoo.market_summary:market_summary"))
def market_summary(region: str, lang: str | None = None) -> list[MarketSummaryItem]:
    """A Region's market summary (its main indices, futures, rates, currencies), the
    source's order; texts in ``lang`` (the region's own language when None)."""


@declare("spark", "Sparklines (/v2/spark)",
         Source("yahoo", f"{YAHOO} v7 spark", fetcher="marketdata.providers.yahoo.spark:sparks"))
def sparks(symbols: list[str], interval: str, range_: str) -> dict[str, Spark]:
    """The closes of validated symbols over ``range_`` in ``interval`` bars (a combination
    :func:`marketdata.records.bars.check_range_interval` accepts), by symbol; unknown
    symbols are absent."""
