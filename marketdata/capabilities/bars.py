"""Price history: a symbol's bars for an interval and a range or an absolute window.

Sources: Yahoo's chart for every interval, then whatever other source is configured, each
for what it serves. The query is validated here (:func:`chart`), once, before any source
is asked.
"""

from __future__ import annotations

import time

from marketdata.capabilities.table import YAHOO, Source, declare
from marketdata.records.bars import Bars, Candles, check_range_interval, check_window


@declare("bars", "Price history (charts, historical prices, indicators, backtests)",
         Source("yahoo", f"{YAHOO} (every interval)",
                fetcher="marketdata.providers.yahoo.chart:bars"),
         Source("tiingo", "Tiingo end-of-day prices (daily and longer, US tickers)",
                "TIINGO_API_KEY", fetcher="marketdata.providers.tiingo:bars"),
         primary_share=0.5)
def _bars(symbol: str, interval: str, range_: str | None = None, *,
          start: int | None = None, end: int | None = None, now: int | None = None) -> Bars:
    """The bars of a query :func:`chart` validated."""


def chart(symbol: str, interval: str, range_: str | None = None, *,
          start: int | None = None, end: int | None = None, now: int | None = None) -> Bars:
    """The bars of a validated symbol: over ``range_``, or from ``start`` to ``end`` (None:
    now). Raises BadRequest (400) for a combination no source serves."""
    if start is None:
        if range_ is None:
            raise ValueError("chart needs range_ or start")
        check_range_interval(range_, interval)
    else:
        current = int(time.time()) if now is None else now
        check_window(interval, start, current if end is None else end, current)
        now = current
    return _bars(symbol, interval, range_, start=start, end=end, now=now)


def candles(symbol: str, range_: str, interval: str) -> Candles:
    """The v1 view of a symbol's bars (bars with every value; none is a 404)."""
    return chart(symbol, interval, range_).candles()
