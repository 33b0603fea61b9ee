"""The v2 financial event calendar: upcoming earnings, dividend dates and monthly options
expirations of many symbols, and the market-wide economic releases.

Each symbol's calendar events are fetched through the data cache
(:func:`marketdata.capabilities.fundamentals.calendar_events`), concurrently; the monthly
options expirations of each served US-listed symbol follow from the market calendar (the
third Friday; the business day before when that Friday is an exchange holiday); the
economic releases come from :func:`marketdata.capabilities.macro.economic_releases`
(FRED's release calendar with its key, else the schedule the service computes). Events
are kept when they fall in the forward window ``[now, now + days(range)]`` and returned as
one list sorted by time, of records (their members are declared on them:
:mod:`marketdata.records.calendar`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta

from apps.core.symbols import require_symbol
from marketdata import cache_report
from marketdata.capabilities.fundamentals import calendar_events
from marketdata.capabilities.macro import economic_releases
from marketdata.concurrency import gather_partial
from marketdata.errors import MarketDataError, UpstreamError
from marketdata.logs import get_logger
from marketdata.markets import session_day
from marketdata.records.calendar import (
    EVENT_KINDS,
    CalendarEvent,
    DividendAmount,
    EarningsEstimates,
    ExpiringContracts,
    ReleaseName,
)
from marketdata.records.fundamentals import CalendarEvents
from marketdata.records.releases import weekday_on_or_after

# The forward window of each TimeRange, in days (ytd has no forward meaning: a year).
RANGE_DAYS: dict[str, int] = {"1d": 1, "5d": 5, "1mo": 30, "3mo": 90, "6mo": 180,
                              "1y": 365, "ytd": 365, "2y": 730, "5y": 1825, "10y": 3650,
                              "max": 36500}
_DAY = 86400
# How far ahead monthly options expirations are listed (the longest listed options, LEAPS,
# reach about two years; the exchange calendar's holidays are known that far).
EXPIRATION_HORIZON_MONTHS = 24
# Symbols with US-listed monthly options: plain tickers (a share class after a dash) and
# indices; not suffixed foreign listings, currencies, futures or crypto pairs.
_US_LISTED = re.compile(r"\^?[A-Z]{1,5}(?:-[A-Z])?", re.ASCII)

log = get_logger("apps.calendar")


def utc_now() -> datetime:
    """The request's "now" (a seam for tests: the recordings are from the past)."""
    return datetime.now(UTC)


def events_of(symbol: str, events: CalendarEvents, start: int, end: int) -> list[CalendarEvent]:
    """A symbol's events inside ``[start, end]`` (Unix seconds).

    Earnings carry a time of day and are kept when that instant is in the window.
    Dividend dates are whole days (00:00 UTC) and are kept while any part of the day is in
    it, so today's ex-dividend date is still listed during the day.
    """
    out: list[CalendarEvent] = []
    earnings = events.earnings
    if earnings is not None and start <= earnings.timestamp <= end:
        out.append(CalendarEvent.at(symbol, earnings.timestamp, "EARNINGS", EarningsEstimates(
            eps_estimate_avg=earnings.eps_average, eps_estimate_high=earnings.eps_high,
            eps_estimate_low=earnings.eps_low, is_estimate=earnings.is_estimate,
            revenue_estimate_avg=earnings.revenue_average)))
    for kind, stamp in (("EX_DIVIDEND", events.ex_dividend_date),
                        ("DIVIDEND", events.dividend_date)):
        if stamp is not None and _in_window(stamp, start, end):
            out.append(CalendarEvent.at(symbol, stamp, kind, DividendAmount()))
    return out


def _whole_day(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


def _in_window(stamp: int, start: int, end: int) -> bool:
    """A whole day (00:00 UTC) is in the window while any part of it is."""
    return stamp + _DAY > start and stamp <= end


def monthly_expiration(year: int, month: int) -> date:
    """The standard monthly options expiration of a month: its third Friday, or the
    business day before when that Friday is an exchange holiday (Good Friday 2025-04-18
    moved April 2025's to Thursday the 17th)."""
    day = weekday_on_or_after(date(year, month, 1), 4) + timedelta(days=14)
    while not session_day(day).is_session:
        day -= timedelta(days=1)
    return day


def monthly_expirations(start: int, end: int) -> list[date]:
    """The monthly expirations whose day is in ``[start, end]`` (whole days), at most
    :data:`EXPIRATION_HORIZON_MONTHS` months after the start's month."""
    first = datetime.fromtimestamp(start, UTC).date()
    out = []
    for offset in range(EXPIRATION_HORIZON_MONTHS + 1):
        months = first.year * 12 + first.month - 1 + offset
        day = monthly_expiration(months // 12, months % 12 + 1)
        if _whole_day(day) > end:
            break
        if _in_window(_whole_day(day), start, end):
            out.append(day)
    return out


def expirations_of(symbol: str, days: Sequence[date]) -> list[CalendarEvent]:
    """``OPTIONS_EXPIRATION`` events of a US-listed symbol (none for others):
    ``contractCount`` is null (the chains are not loaded)."""
    if not _US_LISTED.fullmatch(symbol):
        return []
    return [CalendarEvent.at(symbol, _whole_day(day), "OPTIONS_EXPIRATION", ExpiringContracts())
            for day in days]


def releases_in(start: int, end: int) -> list[CalendarEvent]:
    """The market-wide ``ECONOMIC_RELEASE`` events of the window (``symbol`` null). When
    their source fails the calendar goes on without them (logged, and the answer marked
    partial so no cache keeps it)."""
    first = datetime.fromtimestamp(start, UTC).date()
    last = datetime.fromtimestamp(end, UTC).date()
    try:
        rows = economic_releases(first, last)
    except MarketDataError as exc:
        log.warning("economic releases left out", reason=exc.detail,
                    error=type(exc).__name__)
        if isinstance(exc, UpstreamError):
            cache_report.note_incomplete()
        return []
    out = []
    for row in rows:
        stamp = _whole_day(date.fromisoformat(row.date))
        if _in_window(stamp, start, end):
            out.append(CalendarEvent.at(None, stamp, "ECONOMIC_RELEASE",
                                        ReleaseName(row.name, str(row.release_id))))
    return out


def _sort_key(event: CalendarEvent) -> tuple[int, str, int]:
    return event.timestamp, event.symbol or "", EVENT_KINDS.index(event.kind)


def calendar(symbols: Sequence[str], range_: str,
             now: datetime | None = None) -> list[CalendarEvent]:
    """Events of ``symbols`` in the forward window of ``range_`` from ``now`` (their
    earnings, dividend dates and monthly options expirations) and the economic releases of
    the window, sorted by timestamp, then symbol (market-wide events first), then kind.

    A symbol that cannot be served (malformed, unknown to Yahoo, upstream error) is logged
    and left out. When none could be served and an upstream failure is among the reasons,
    that failure is raised (its 502/503/504/429 naming the provider), not an empty list.
    """
    now = now or utc_now()
    start = int(now.timestamp())
    end = int((now + timedelta(days=RANGE_DAYS[range_])).timestamp())

    def load(text: str) -> tuple[str, CalendarEvents]:
        symbol = require_symbol(text)
        return symbol, calendar_events(symbol)

    fetched = gather_partial(load, symbols, what="calendar symbol")
    fetched.raise_if_nothing_served()
    expirations = monthly_expirations(start, end)
    out = [event for _, (symbol, events) in fetched.values
           for event in (*events_of(symbol, events, start, end),
                         *expirations_of(symbol, expirations))]
    out += releases_in(start, end)
    return sorted(out, key=_sort_key)
