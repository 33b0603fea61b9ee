"""The market-wide calendars by date (``/v2/calendars/{earnings,dividends,splits,ipos,
economic}``): the rows of a checked window of days, filtered and sorted by date.

Earnings, splits, IPOs and economic events are one capability call each
(:mod:`marketdata.capabilities.calendars`: Yahoo's calendar service; FRED's release
calendar or the computed schedule for economic events when Yahoo fails). Dividends come
from the chart events of the symbols asked for (the same cached call as
``/v2/dividends/{symbol}``) and, for the next dividend, from their calendar events (the
record ``/v2/calendar`` reads its dividend dates from), concurrently.
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
from marketdata import cache_report
from marketdata.capabilities import bars as price_history
from marketdata.capabilities import calendars
from marketdata.capabilities.fundamentals import calendar_events
from marketdata.concurrency import gather_partial
from marketdata.errors import MarketDataError, NotFound, UpstreamError
from marketdata.logs import get_logger
from marketdata.records.bars import Bars
from marketdata.records.calendars import (
    DividendRow,
    EarningsRow,
    EconomicRow,
    IpoRow,
    SplitRow,
)
from marketdata.records.fundamentals import CalendarEvents
from marketdata.symbols import normalize_symbol

NEW_YORK = ZoneInfo("America/New_York")
# The ex-dates before a dividend its frequency is read from.
FREQUENCY_LOOKBACK_DAYS = 730
# Median gap between ex-dates (days) -> frequency, the first bound that holds.
FREQUENCY_BOUNDS: tuple[tuple[int, str], ...] = (
    (45, "MONTHLY"), (120, "QUARTERLY"), (240, "SEMIANNUAL"), (500, "ANNUAL"))
# An announced payment day further than this after the ex-date belongs to another dividend.
MAX_PAY_DELAY_DAYS = 120

log = get_logger("apps.calendar")


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


def _utc_day(stamp: int) -> date:
    return datetime.fromtimestamp(stamp, UTC).date()


def dividends_of(symbol: str, chart: Bars, start: date, end: date,
                 announced: CalendarEvents | None = None) -> list[DividendRow]:
    """A symbol's dividends going ex in the window: the chart's events (paid, with their
    amounts) and the next one its calendar events announce (``announced``: the ex-date and
    the payment day, no amount), which the chart does not have until its ex-date."""
    zone = _zone(chart)
    currency = chart.meta.get("currency")
    listed = currency if isinstance(currency, str) and currency else None
    dated = [(datetime.fromtimestamp(stamp, zone).date(), float(amount))
             for stamp, amount in chart.events.dividends]
    days = [day for day, _ in dated]
    ex_day = pay_day = None
    if announced is not None and announced.ex_dividend_date is not None:
        # Calendar events date a dividend at 00:00 UTC of its day.
        ex_day = _utc_day(announced.ex_dividend_date)
        if announced.dividend_date is not None:
            paid = _utc_day(announced.dividend_date)
            pay_day = paid if 0 <= (paid - ex_day).days <= MAX_PAY_DELAY_DAYS else None
    rows: list[tuple[date, float | None]] = list(dated)
    if ex_day is not None and ex_day not in days and (not days or ex_day > max(days)):
        rows.append((ex_day, None))
    return [DividendRow(symbol=symbol, ex_date=day.isoformat(),
                        pay_date=pay_day.isoformat() if day == ex_day and pay_day else None,
                        record_date=None, amount=amount, currency=listed,
                        frequency=frequency(day, days))  # type: ignore[arg-type]
            for day, amount in rows if start <= day <= end]


def _announced(symbol: str) -> CalendarEvents | None:
    """The symbol's calendar events, or None when they cannot be had: the paid dividends
    are still answered (the answer marked partial on an upstream failure, so no cache keeps
    it)."""
    try:
        return calendar_events(symbol)
    except NotFound:
        return None
    except MarketDataError as exc:
        log.warning("calendar events left out of the dividends", symbol=symbol,
                    reason=exc.detail, error=type(exc).__name__)
        if isinstance(exc, UpstreamError):
            cache_report.note_incomplete()
        return None


def dividends(start: date, end: date, symbols: Sequence[str]) -> list[DividendRow]:
    """Dividends of ``symbols`` going ex in the window, by date then symbol. A symbol that
    cannot be served (malformed, unknown, upstream error) is left out; when none could be
    served because of an upstream failure, that failure is raised. The announced next
    dividend is read only for a window reaching today or later (earlier ones are in the
    chart)."""
    ahead = end >= today()

    def load(text: str) -> list[DividendRow]:
        symbol = require_symbol(text)
        chart = price_history.chart(symbol, CAPITAL_GAINS_INTERVAL, "max")
        return dividends_of(symbol, chart, start, end, _announced(symbol) if ahead else None)

    fetched = gather_partial(load, list(dict.fromkeys(symbols)), what="dividend symbol")
    fetched.raise_if_nothing_served()
    rows = [row for _, found in fetched.values for row in found]
    return sorted(rows, key=lambda r: (r.ex_date, r.symbol))
