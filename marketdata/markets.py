"""US equity market calendar (NYSE) for cache TTLs and market-hours answers.

Holidays and early closes come from ``exchange_calendars`` (XNYS), not hand-written rules,
and the calendar is rebuilt when a date falls outside its window, so a long-running process
never freezes on the year it started in. Per-day facts are memoised: the hot path (one TTL
decision per cache write) is a dict lookup and two comparisons.
"""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

EASTERN = ZoneInfo("America/New_York")
PRE_MARKET_START = time(4, 0)
POST_MARKET_END = time(20, 0)
EARLY_CLOSE_POST_MARKET_END = time(17, 0)  # late trading ends at 17:00 on early-close days
_REGULAR_CLOSE = time(16, 0)


class MarketPhase(enum.StrEnum):
    """Where the US market is in its day; TTL policies key on this."""

    OPEN = "open"
    PRE = "pre"
    POST = "post"
    CLOSED = "closed"


@dataclass(frozen=True)
class SessionDay:
    """One calendar day: a session (with open/close instants) or a non-trading day."""

    day: date
    is_session: bool
    open: datetime | None = None
    close: datetime | None = None
    early_close: bool = False
    holiday: str | None = None


@dataclass(frozen=True)
class MarketStatus:
    phase: MarketPhase
    status: str  # Open | Closed | Early Close
    reason: str
    timestamp: datetime
    session: SessionDay


class _Calendar:
    """Thread-safe, lazily built XNYS calendar covering a window around 'today'."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cal = None
        self._holiday_names: dict[date, str] = {}

    def _ensure(self, day: date):
        cal = self._cal
        if cal is not None and cal.first_session.date() <= day <= cal.last_session.date():
            return cal
        with self._lock:
            cal = self._cal
            if cal is None or not (cal.first_session.date() <= day <= cal.last_session.date()):
                import exchange_calendars  # heavy import, only when first needed

                start = date(min(day.year, datetime.now(UTC).year) - 1, 1, 1)
                end = date(max(day.year, datetime.now(UTC).year) + 2, 12, 31)
                cal = exchange_calendars.get_calendar("XNYS", start=start.isoformat(),
                                                      end=end.isoformat())
                names = cal.regular_holidays.holidays(start.isoformat(), end.isoformat(),
                                                      return_name=True)
                self._holiday_names = {ts.date(): str(name) for ts, name in names.items()}
                self._cal = cal
                session_day.cache_clear()
        return cal

    def describe(self, day: date) -> SessionDay:
        import pandas as pd

        cal = self._ensure(day)
        ts = pd.Timestamp(day)
        if not cal.is_session(ts):
            holiday = None if day.weekday() >= 5 else self._holiday_names.get(day, "Holiday")
            return SessionDay(day=day, is_session=False, holiday=holiday)
        open_ = cal.session_open(ts).to_pydatetime()
        close = cal.session_close(ts).to_pydatetime()
        early = close.astimezone(EASTERN).time() < _REGULAR_CLOSE
        return SessionDay(day=day, is_session=True, open=open_, close=close, early_close=early)


_calendar = _Calendar()


def post_market_end(day: SessionDay) -> datetime:
    end = EARLY_CLOSE_POST_MARKET_END if day.early_close else POST_MARKET_END
    return datetime.combine(day.day, end, EASTERN)


@lru_cache(maxsize=64)
def session_day(day: date) -> SessionDay:
    """Facts about one US trading day (memoised; cleared when the calendar is rebuilt)."""
    return _calendar.describe(day)


def market_status(now: datetime | None = None) -> MarketStatus:
    """The US market's phase, status and a human reason at ``now`` (UTC aware)."""
    now = now or datetime.now(UTC)
    local = now.astimezone(EASTERN)
    day = session_day(local.date())
    if not day.is_session:
        reason = "Weekend" if local.weekday() >= 5 else f"Holiday: {day.holiday}"
        return MarketStatus(MarketPhase.CLOSED, "Closed", reason, now, day)
    assert day.open is not None and day.close is not None
    pre_start = datetime.combine(local.date(), PRE_MARKET_START, EASTERN)
    post_end = post_market_end(day)
    if day.open <= now < day.close:
        if day.early_close:
            return MarketStatus(MarketPhase.OPEN, "Early Close", "Early close day", now, day)
        return MarketStatus(MarketPhase.OPEN, "Open", "Regular trading hours", now, day)
    if pre_start <= now < day.open:
        return MarketStatus(MarketPhase.PRE, "Closed", "Pre-market", now, day)
    if day.close <= now < post_end:
        status = "Early Close" if day.early_close else "Closed"
        return MarketStatus(MarketPhase.POST, status, "After-hours", now, day)
    return MarketStatus(MarketPhase.CLOSED, "Closed", "Market closed", now, day)


def market_phase(now: datetime | None = None) -> MarketPhase:
    return market_status(now).phase


def seconds_until_phase_change(now: datetime | None = None) -> float:
    """Seconds until the next open/close/pre/post boundary, so a TTL never spans one."""
    # In UTC: aware datetimes in one zone subtract by wall clock, which is off by an hour
    # across a DST change.
    now = (now or datetime.now(UTC)).astimezone(UTC)
    local = now.astimezone(EASTERN)
    candidates: list[datetime] = []
    for offset in range(0, 8):
        day = session_day(local.date() + timedelta(days=offset))
        if not day.is_session:
            continue
        assert day.open is not None and day.close is not None
        candidates += [
            datetime.combine(day.day, PRE_MARKET_START, EASTERN), day.open, day.close,
            post_market_end(day),
        ]
        if any(c > now for c in candidates):
            break
    future = [c for c in candidates if c > now]
    return (min(future) - now).total_seconds() if future else 86400.0
