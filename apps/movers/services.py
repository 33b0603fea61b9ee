"""Market movers (v1: Yahoo's predefined screeners as MarketMover objects) and v2
screeners (predefined and custom, ScreenerQuote rows)."""

from __future__ import annotations

from typing import Any

from apps.core.v2 import apply_format, select
from marketdata import formatting as fmt
from marketdata.capabilities import market, screeners
from marketdata.records.market import ScreenerQuote
from marketdata.records.members import as_json
from marketdata.records.screeners import CustomScreen, ScreenerResult


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


# -- v2 screeners --------------------------------------------------------------------------------
def screener_json(result: ScreenerResult, value_format: str | None,
                  quote_fields: frozenset[str] | None) -> dict[str, Any]:
    """A screener's answer (:class:`ScreenerResult`'s members), its rows' numbers in
    ``value_format`` and each row reduced to ``quote_fields`` (symbol kept)."""
    answer: dict[str, Any] = as_json(result)
    answer["quotes"] = [select(apply_format(row, value_format), quote_fields, ("symbol",))
                        for row in answer["quotes"]]
    return answer


def predefined_screener(name: str, count: int, value_format: str | None,
                        quote_fields: frozenset[str] | None) -> dict[str, Any]:
    """At most ``count`` rows of a predefined screener (a name or alias), Yahoo's ranking."""
    return screener_json(screeners.predefined(name, count), value_format, quote_fields)


def custom_screener(screen: CustomScreen, value_format: str | None,
                    quote_fields: frozenset[str] | None) -> dict[str, Any]:
    """One page of a validated custom screen."""
    return screener_json(screeners.custom(screen), value_format, quote_fields)
