"""Market movers: Yahoo's predefined screeners as v1 MarketMover objects."""

from __future__ import annotations

from typing import Any

from marketdata import formatting as fmt
from marketdata.capabilities import market
from marketdata.records.market import ScreenerQuote


def market_mover(row: ScreenerQuote) -> dict[str, Any]:
    """Formatted like the service's full quotes: the instrument's precision with thousands
    separators, and an explicit sign on change and percent change."""
    return {
        "symbol": row.symbol,
        "name": row.name,
        "price": fmt.price(row.price, row.price_hint),
        "change": fmt.signed(fmt.price(row.change, row.price_hint)),
        "percentChange": fmt.percent(row.change_percent),
    }


def market_movers(screener: str, count: int) -> list[dict[str, Any]]:
    """At most ``count`` movers of ``screener`` (actives, gainers, losers), the source's
    order."""
    rows = market.movers(screener, count)
    return [market_mover(row) for row in rows[:count]]
