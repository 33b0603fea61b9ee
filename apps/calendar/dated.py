"""The market-wide calendars by date (``/v2/calendars/{earnings,dividends,splits,ipos,
economic}``): the rows of a checked window of days, filtered and sorted by date.

Earnings, splits, IPOs and economic events are one capability call each
(:mod:`marketdata.capabilities.calendars`: Yahoo's calendar service; FRED's release
calendar or the computed schedule for economic events when Yahoo fails). Dividends come
from the chart events of the symbols asked for (the same cached call as
``/v2/dividends/{symbol}``), concurrently.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apps.charts.services import CAPITAL_GAINS_INTERVAL
from apps.core.symbols import require_symbol
from marketdata.capabilities import bars as price_history
from marketdata.capabilities import calendars
from marketdata.concurrency import gather_partial
from marketdata.records.bars import Bars
from marketdata.records.calendars import (
    DividendRow,
    EarningsRow,
    EconomicRow,
    IpoRow,
    SplitRow,
)
from marketdata.symbols import normalize_symbol

NEW_YORK = ZoneInfo("America/New_York")
# The ex-dates before a dividend its frequency is read from.
FREQUENCY_LOOKBACK_DAYS = 730
# Median gap between ex-dates (days) -> frequency, the first bound that holds.
FREQUENCY_BOUNDS: tuple[tuple[int, str], ...] = (
    (45, "MONTHLY"), (120, "QUARTERLY"), (240, "SEMIANNUAL"), (500, "ANNUAL"))


def today() -> date:
    """The request's UTC day (a seam for tests)."""
    return datetime.now(UTC).date()


def default_window(start: date | None, end: date | None) -> tuple[date, date]:
    """``start`` defaults to today (UTC), ``end`` to seven days after ``start``."""
    first = start or today()
    return first, end or first + timedelta(days=7)


def symbol_filter(symbols: Sequence[str] | None) -> tuple[str, ...] | None:
    """The canonical symbols of a filter, sorted, duplicates removed (None: no filter).
    Malformed ones are dropped: they match nothing and are never sent upstream."""
    if not symbols:
        return None
    return tuple(sorted({s for s in map(normalize_symbol, symbols) if s is not None}))


Row = TypeVar("Row", EarningsRow, SplitRow, IpoRow)


def _market_wide(fetch: Callable[[tuple[str, ...]], Sequence[Row]],
                 symbols: Sequence[str] | None) -> list[Row]:
    """A market-wide calendar's rows (``fetch`` given the symbols to ask for, none: all),
    of ``symbols`` only when given (malformed ones match nothing: no call when none is
    well formed), by date then symbol (rows without a symbol yet first)."""
    wanted = symbol_filter(symbols)
    if wanted == ():
        return []
    rows = fetch(wanted or ())
    if wanted is not None:
        keep = set(wanted)
        rows = [row for row in rows if row.symbol in keep]
    return sorted(rows, key=lambda row: (row.date, row.symbol or ""))


def earnings(start: date, end: date, region: str,
             symbols: Sequence[str] | None) -> list[EarningsRow]:
    """Earnings announcements of the window, by date then symbol."""
    return _market_wide(lambda wanted: calendars.earnings_calendar(
        start.isoformat(), end.isoformat(), region, wanted), symbols)


def splits(start: date, end: date, symbols: Sequence[str] | None) -> list[SplitRow]:
    """Stock splits of the window, by date then symbol."""
    return _market_wide(lambda wanted: calendars.splits_calendar(
        start.isoformat(), end.isoformat(), wanted), symbols)


def ipos(start: date, end: date, symbols: Sequence[str] | None) -> list[IpoRow]:
    """IPOs of the window, by date then symbol (those without a symbol yet first)."""
    return _market_wide(lambda wanted: calendars.ipo_calendar(
        start.isoformat(), end.isoformat(), wanted), symbols)


def economic(start: date, end: date, country: str | None) -> list[EconomicRow]:
    """Economic events of the window (of ``country`` only when given), by date, time
    (events without a time first), country and name."""
    rows = calendars.economic_calendar(start.isoformat(), end.isoformat())
    first, last = start.isoformat(), end.isoformat()
    kept = [row for row in rows if first <= row.date <= last
            and (country is None or row.country == country)]
    return sorted(kept, key=lambda r: (r.date, r.time or "", r.country or "", r.event))


# -- dividends: the chart events of the symbols asked for --------------------------------------
def _zone(chart: Bars) -> ZoneInfo:
    name = chart.meta.get("exchangeTimezoneName")
    if isinstance(name, str) and name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return NEW_YORK


def frequency(ex_day: date, earlier: Sequence[date]) -> str | None:
    """The payment frequency from the median gap between the ex-dates of the
    :data:`FREQUENCY_LOOKBACK_DAYS` before ``ex_day`` (and it); None without one."""
    since = ex_day - timedelta(days=FREQUENCY_LOOKBACK_DAYS)
    days = sorted({d for d in earlier if since <= d < ex_day} | {ex_day})
    if len(days) < 2:
        return None
    gap = statistics.median((b - a).days for a, b in itertools.pairwise(days))
    return next((name for bound, name in FREQUENCY_BOUNDS if gap <= bound), "IRREGULAR")


def dividends_of(symbol: str, chart: Bars, start: date, end: date) -> list[DividendRow]:
    """A symbol's dividends going ex in the window, from its chart's events."""
    zone = _zone(chart)
    currency = chart.meta.get("currency")
    dated = [(datetime.fromtimestamp(stamp, zone).date(), amount)
             for stamp, amount in chart.events.dividends]
    days = [day for day, _ in dated]
    return [DividendRow(symbol=symbol, ex_date=day.isoformat(), pay_date=None,
                        record_date=None, amount=float(amount),
                        currency=currency if isinstance(currency, str) and currency else None,
                        frequency=frequency(day, days))  # type: ignore[arg-type]
            for day, amount in dated if start <= day <= end]


def dividends(start: date, end: date, symbols: Sequence[str]) -> list[DividendRow]:
    """Dividends of ``symbols`` going ex in the window, by date then symbol. A symbol that
    cannot be served (malformed, unknown, upstream error) is left out; when none could be
    served because of an upstream failure, that failure is raised."""

    def load(text: str) -> list[DividendRow]:
        symbol = require_symbol(text)
        chart = price_history.chart(symbol, CAPITAL_GAINS_INTERVAL, "max")
        return dividends_of(symbol, chart, start, end)

    fetched = gather_partial(load, list(dict.fromkeys(symbols)), what="dividend symbol")
    fetched.raise_if_nothing_served()
    rows = [row for _, found in fetched.values for row in found]
    return sorted(rows, key=lambda r: (r.ex_date, r.symbol))
