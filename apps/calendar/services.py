"""The v2 financial event calendar: upcoming earnings and dividend dates of many symbols.

Each symbol's calendar events are fetched through the data cache
(:func:`marketdata.capabilities.fundamentals.calendar_events`), concurrently; events are
kept when they fall in the forward window ``[now, now + days(range)]`` and returned as one
list sorted by time.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.capabilities.fundamentals import calendar_events
from marketdata.concurrency import gather_partial
from marketdata.records.fundamentals import CalendarEvents

# The forward window of each TimeRange, in days (ytd has no forward meaning: a year).
RANGE_DAYS: dict[str, int] = {"1d": 1, "5d": 5, "1mo": 30, "3mo": 90, "6mo": 180,
                              "1y": 365, "ytd": 365, "2y": 730, "5y": 1825, "10y": 3650,
                              "max": 36500}
EVENT_KINDS = ("EARNINGS", "EX_DIVIDEND", "DIVIDEND")
_DAY = 86400


def utc_now() -> datetime:
    """The request's "now" (a seam for tests: the recordings are from the past)."""
    return datetime.now(UTC)


def _event(symbol: str, timestamp: int, kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"date": datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d"),
            "symbol": symbol, "timestamp": timestamp, "event": {kind: body}}


def events_of(symbol: str, events: CalendarEvents, start: int, end: int) -> list[dict[str, Any]]:
    """A symbol's events inside ``[start, end]`` (Unix seconds).

    Earnings carry a time of day and are kept when that instant is in the window.
    Dividend dates are whole days (00:00 UTC) and are kept while any part of the day is in
    it, so today's ex-dividend date is still listed during the day.
    """
    out: list[dict[str, Any]] = []
    earnings = events.earnings
    if earnings is not None and start <= earnings.timestamp <= end:
        out.append(_event(symbol, earnings.timestamp, "EARNINGS", {
            "epsEstimateAvg": earnings.eps_average,
            "epsEstimateHigh": earnings.eps_high,
            "epsEstimateLow": earnings.eps_low,
            "isEstimate": earnings.is_estimate,
            "revenueEstimateAvg": earnings.revenue_average}))
    for kind, stamp in (("EX_DIVIDEND", events.ex_dividend_date),
                        ("DIVIDEND", events.dividend_date)):
        if stamp is not None and stamp + _DAY > start and stamp <= end:
            out.append(_event(symbol, stamp, kind, {"amount": None}))
    return out


def _sort_key(event: dict[str, Any]) -> tuple[int, str, int]:
    kind = next(iter(event["event"]))
    return event["timestamp"], event["symbol"], EVENT_KINDS.index(kind)


def calendar(symbols: Sequence[str], range_: str,
             now: datetime | None = None) -> list[dict[str, Any]]:
    """Events of ``symbols`` in the forward window of ``range_`` from ``now``, sorted by
    timestamp, then symbol, then kind.

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
    out = [event for _, (symbol, events) in fetched.values
           for event in events_of(symbol, events, start, end)]
    return sorted(out, key=_sort_key)
