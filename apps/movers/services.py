"""Market movers (v1: Yahoo's predefined screeners as MarketMover objects) and v2
screeners (predefined and custom, ScreenerQuote rows)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from apps.core.v2 import apply_format, select
from marketdata import formatting as fmt
from marketdata.capabilities import market, screeners
from marketdata.records.market import ScreenerQuote
from marketdata.records.members import as_json, member
from marketdata.records.screeners import CustomScreen, ScreenerResult


@dataclass(frozen=True)
class MarketMover:
    """The v1 MarketMover: a screener row's numbers as v1's formatted text (:meth:`of`)."""

    symbol: str = member()
    name: str = member()
    price: str = member("Last traded price, e.g. '1,234.50'")
    change: str = member("Signed change in price, e.g. '+1.23'")
    percent_change: str = member("Signed percent change, e.g. '+2.51%'")

    @classmethod
    def of(cls, row: ScreenerQuote) -> MarketMover:
        """Formatted like the service's full quotes: the instrument's precision with
        thousands separators, and an explicit sign on change and percent change (the row's
        numbers are finite: never an empty text)."""
        return cls(row.symbol, row.name, fmt.price(row.price, row.price_hint) or "",
                   fmt.signed(fmt.price(row.change, row.price_hint)) or "",
                   fmt.percent(row.change_percent) or "")


def market_movers(screener: str, count: int) -> list[MarketMover]:
    """At most ``count`` movers of ``screener`` (actives, gainers, losers), the source's
    order."""
    rows = market.movers(screener, count)
    return [MarketMover.of(row) for row in rows[:count]]


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
