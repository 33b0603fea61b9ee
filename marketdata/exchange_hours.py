"""Trading hours of each region's main exchange, computed locally (no upstream call).

/v2/hours answers "is the market open, and until when?" for the 32 regions of the spec's
Region enum. Yahoo's ``/v6/finance/markettime`` would answer it too, but the schedule is
public, slow-changing knowledge: computing it here costs no upstream call, never fails
upstream, and gets holidays, early closes and DST right through ``exchange_calendars``.

Where the schedule comes from:

- ``exchange_calendars`` calendar of the region's main exchange (holidays, early closes,
  lunch breaks, time zone). Calendars are built lazily, the first time a region is asked
  for, over a window around "now" (about a week back, 400 days ahead), cached per exchange
  and rebuilt when "now" nears the end of the window; one thread builds a region while the
  others asking for it wait for that build (a per-region lock), other regions are not held
  up. Nothing is built at import time, and nothing at worker start: the first request for
  a region builds it.
- That first request is cheap because calendars are built by
  :func:`marketdata.calendar_window.windowed_calendar`: the package's own calendar, its
  holiday rules evaluated only a year around the window (issue 23). The package's
  ``get_calendar`` evaluates every rule from 1970 (or the year the rule took effect) to
  2200: 45 ms to 1.75 s a calendar, 4.3 s for the 26 used here (XKRX 1.75 s: lunar date
  conversions; XMOS 0.75 s), which a fresh worker's first ``/v2/hours?region=KR`` paid
  (2.5 s there). Windowed: 6-50 ms, XKRX 0.15 s, 0.55 s for all 26, the same sessions
  (that module; ``bench/hours_cold.py --verify``). The first request for a region on a
  fresh worker now takes 20-80 ms, KR ~225 ms (bench/hours_cold.py). Neither a disk cache
  nor a warm-up is used: either would add files or CPU to every worker start (the
  integration tests start the service ~50 times) to save at most 0.15 s once per region
  and worker. ``HOURS_FULL_CALENDARS=1`` builds through ``get_calendar`` as before (a kill
  switch, and the benchmark's baseline).
- Some calendars record holidays only up to a year (XSHG, XBOM, XSES: to 2026). Past the
  last recorded session the calendar's own regular hours and weekdays are used, without
  holidays (:class:`RegularHours`).
- Regions with no usable calendar in the package use documented regular hours and weekends
  only, no holidays (a holiday shows as a regular session) and no early closes:

  - QA: Qatar Stock Exchange, Sunday-Thursday 09:30-13:15 Asia/Qatar (no calendar in
    the package).
  - VN: Ho Chi Minh City Stock Exchange (HOSE), Monday-Friday 09:00-15:00
    Asia/Ho_Chi_Minh, lunch break 11:30-13:00 (no calendar in the package).
  - GR: Athens Exchange, Monday-Friday 10:00-17:20 Europe/Athens: the package's ASEX
    calendar cannot be built with the installed pandas ("implemented by subclasses").
  - IL: Tel Aviv Stock Exchange, Monday-Friday 09:59-17:15, Friday until 13:50,
    Asia/Jerusalem (TASE's schedule since 2026-01-05, as the package's XTAE source says).
    Used only when the package's XTAE calendar fails to build: it does for any window
    that starts before 2026-01-05 ("Special dates ... are not sessions"); the windows
    built from 2026-01-12 on succeed, so XTAE (with holidays) is what normally answers.

  For GR and IL the package's calendar is always tried first, so a fixed release is used
  as soon as it is installed; the fallback is logged at WARNING once per build.

What a :class:`MarketClock` says (the /v2/hours conventions):

- ``status`` is about the *regular* session only: "open" between the session's open and
  close (outside a lunch break), "closed" otherwise, pre-market and after-hours included.
- An early close (NYSE Black Friday, Christmas Eve: 13:00 ET) is still "open" until the
  early close; ``close`` is the early close and the message says "closes early in ...".
- ``open``/``close`` are those of the current session, or of the next one once the
  current day's session has closed (or on a weekend or holiday): the first session whose
  close is after "now". During a lunch break they stay the day's open and close.
- ``message``: "closes in 2 h 5 min", "closes early in 45 min", "opens in 14 h 2 min",
  "opens in 2 d 16 h 30 min", "lunch break, reopens in 35 min". Durations are rounded up
  to the minute (never "0 min"), real elapsed time (DST changes included).
- ``gmt_offset`` is in seconds (UTC+1 -> 3600), the offset in force at "now";
  ``timezone_short`` is the tz database's abbreviation at "now" ("EST", "EDT", "GMT",
  "BST"; some zones only have numeric ones such as "+03").
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from marketdata.logs import get_logger
from marketdata.records.members import iso_utc, member  # noqa: F401 - iso_utc: this module's tests

log = get_logger("marketdata.exchange_hours")

# How far around "now" a calendar is built, and when it is rebuilt.
_WINDOW_BACK = timedelta(days=7)
_WINDOW_AHEAD = timedelta(days=400)
_REBUILD_MARGIN = timedelta(days=30)
# A schedule always has a session within this many days (the longest exchange holiday
# runs, Chinese New Year and Golden Week, are ~9 days).
_SEARCH_DAYS = 21

MONDAY_TO_FRIDAY = frozenset(range(5))
SUNDAY_TO_THURSDAY = frozenset({6, 0, 1, 2, 3})


@dataclass(frozen=True)
class Session:
    """One trading session, instants in UTC. ``holidays_known`` is False for sessions
    made from regular hours (a holiday would still show as a session)."""

    day: date
    open: datetime
    close: datetime
    break_start: datetime | None = None
    break_end: datetime | None = None
    early_close: bool = False
    holidays_known: bool = True


@dataclass(frozen=True)
class RegularHours:
    """A weekly schedule without holidays: trading weekdays (Monday=0), open and close
    local times (``closes`` overrides the close per weekday), an optional lunch break."""

    tz: str
    open: time
    close: time
    weekdays: frozenset[int] = MONDAY_TO_FRIDAY
    closes: Mapping[int, time] = field(default_factory=dict)
    break_start: time | None = None
    break_end: time | None = None

    def session_on(self, day: date) -> Session | None:
        if day.weekday() not in self.weekdays:
            return None
        zone = ZoneInfo(self.tz)

        def at(t: time) -> datetime:
            return datetime.combine(day, t, zone).astimezone(UTC)

        break_start: datetime | None = None
        break_end: datetime | None = None
        if self.break_start is not None and self.break_end is not None:
            break_start, break_end = at(self.break_start), at(self.break_end)
        return Session(day=day, open=at(self.open),
                       close=at(self.closes.get(day.weekday(), self.close)),
                       break_start=break_start, break_end=break_end,
                       holidays_known=False)

    def session_closing_after(self, now: datetime, after_day: date | None = None) -> Session:
        """The first session (on a day later than ``after_day``) whose close is after
        ``now``."""
        day = now.astimezone(ZoneInfo(self.tz)).date() - timedelta(days=1)
        if after_day is not None and day <= after_day:
            day = after_day + timedelta(days=1)
        for offset in range(_SEARCH_DAYS):
            session = self.session_on(day + timedelta(days=offset))
            if session is not None and session.close > now:
                return session
        raise ValueError(f"No session within {_SEARCH_DAYS} days of {now}")  # pragma: no cover


@dataclass(frozen=True)
class Exchange:
    """A region's main exchange: display name, exchange_calendars code (None when the
    package has none) and the documented hours used when there is no usable calendar."""

    region: str
    name: str
    mic: str | None
    fallback: RegularHours | None = None

    @property
    def id(self) -> str:
        return f"{self.region.lower()}_market"


EXCHANGES: dict[str, Exchange] = {e.region: e for e in (
    Exchange("US", "New York Stock Exchange", "XNYS"),
    Exchange("GB", "London Stock Exchange", "XLON"),
    Exchange("DE", "Deutsche Börse Xetra", "XETR"),
    Exchange("FR", "Euronext Paris", "XPAR"),
    Exchange("JP", "Tokyo Stock Exchange", "XTKS"),
    Exchange("HK", "Hong Kong Stock Exchange", "XHKG"),
    Exchange("CN", "Shanghai Stock Exchange", "XSHG"),
    Exchange("CA", "Toronto Stock Exchange", "XTSE"),
    Exchange("AU", "Australian Securities Exchange", "XASX"),
    Exchange("IN", "BSE (Bombay Stock Exchange)", "XBOM"),
    Exchange("BR", "B3 - Brasil Bolsa Balcão", "BVMF"),
    Exchange("KR", "Korea Exchange", "XKRX"),
    Exchange("TW", "Taiwan Stock Exchange", "XTAI"),
    Exchange("SG", "Singapore Exchange", "XSES"),
    Exchange("ES", "Bolsa de Madrid", "XMAD"),
    Exchange("IT", "Borsa Italiana", "XMIL"),
    Exchange("SE", "Nasdaq Stockholm", "XSTO"),
    Exchange("NO", "Oslo Børs", "XOSL"),
    Exchange("DK", "Nasdaq Copenhagen", "XCSE"),
    Exchange("FI", "Nasdaq Helsinki", "XHEL"),
    Exchange("PT", "Euronext Lisbon", "XLIS"),
    Exchange("GR", "Athens Exchange", "ASEX",
             RegularHours("Europe/Athens", time(10, 0), time(17, 20))),
    Exchange("IL", "Tel Aviv Stock Exchange", "XTAE",
             RegularHours("Asia/Jerusalem", time(9, 59), time(17, 15),
                          closes={4: time(13, 50)})),
    Exchange("MX", "Bolsa Mexicana de Valores", "XMEX"),
    Exchange("AR", "Bolsas y Mercados Argentinos", "XBUE"),
    Exchange("NZ", "New Zealand Exchange", "XNZE"),
    Exchange("MY", "Bursa Malaysia", "XKLS"),
    Exchange("TH", "Stock Exchange of Thailand", "XBKK"),
    Exchange("TR", "Borsa Istanbul", "XIST"),
    Exchange("RU", "Moscow Exchange", "XMOS"),
    Exchange("QA", "Qatar Stock Exchange", None,
             RegularHours("Asia/Qatar", time(9, 30), time(13, 15), SUNDAY_TO_THURSDAY)),
    Exchange("VN", "Ho Chi Minh City Stock Exchange", None,
             RegularHours("Asia/Ho_Chi_Minh", time(9, 0), time(15, 0),
                          break_start=time(11, 30), break_end=time(13, 0))),
)}


# -- schedules ------------------------------------------------------------------------------
class _CalendarSchedule:
    """An exchange_calendars calendar, extended past its last session by its own regular
    hours (no holidays) for calendars whose holidays are recorded only so far ahead."""

    def __init__(self, cal: Any, full_window: bool) -> None:
        self.cal = cal
        self.tz = str(cal.tz)
        self.first_day: date = cal.first_session.date()
        self.last_day: date = cal.last_session.date()
        # A calendar cut short by its bound is not rebuilt: a new build cannot reach further.
        self.valid_until = self.last_day - _REBUILD_MARGIN if full_window else date.max
        self._closes = cal.closes
        self._early = self._early_closes(cal)
        self.regular = RegularHours(
            tz=self.tz, open=cal.open_times[-1][1], close=cal.close_times[-1][1],
            weekdays=frozenset(i for i, flag in enumerate(cal.weekmask) if flag == "1"),
            break_start=cal.break_start_times[-1][1] if cal.break_start_times else None,
            break_end=cal.break_end_times[-1][1] if cal.break_end_times else None)

    @staticmethod
    def _early_closes(cal: Any) -> frozenset[date]:
        """The calendar's special closes that are earlier than the usual close of their
        weekday: NYSE's Black Friday is early, TASE's every-Friday 13:50 close is not."""
        from collections import Counter

        local = cal.closes.dt.tz_convert(cal.tz)
        by_weekday: dict[int, Counter[time]] = {}
        for stamp in local:
            by_weekday.setdefault(stamp.weekday(), Counter())[stamp.time()] += 1
        usual = {day: counts.most_common(1)[0][0] for day, counts in by_weekday.items()}
        special = {ts.date() for ts in cal.early_closes}
        return frozenset(stamp.date() for stamp in local if stamp.date() in special
                         and stamp.time() < usual[stamp.weekday()])

    def covers(self, day: date) -> bool:
        return self.first_day + timedelta(days=1) <= day <= self.valid_until

    def session_closing_after(self, now: datetime) -> Session:
        import pandas as pd

        position = int(self._closes.searchsorted(pd.Timestamp(now), side="right"))
        if position >= len(self._closes):
            return self.regular.session_closing_after(now, after_day=self.last_day)
        label = self._closes.index[position]
        cal = self.cal

        def instant(value: Any) -> datetime:
            return value.to_pydatetime().astimezone(UTC)

        def optional_instant(value: Any) -> datetime | None:
            """Break bounds are NaT on the sessions of a calendar that have no break."""
            return None if pd.isna(value) else instant(value)

        has_break = cal.has_break
        return Session(
            day=label.date(), open=instant(cal.opens.iloc[position]),
            close=instant(self._closes.iloc[position]),
            break_start=optional_instant(cal.break_starts.iloc[position]) if has_break else None,
            break_end=optional_instant(cal.break_ends.iloc[position]) if has_break else None,
            early_close=label.date() in self._early)


class _RegularSchedule:
    """Documented regular hours, for exchanges without a usable calendar."""

    def __init__(self, hours: RegularHours) -> None:
        self.tz = hours.tz
        self.hours = hours

    def covers(self, day: date) -> bool:
        return True

    def session_closing_after(self, now: datetime) -> Session:
        return self.hours.session_closing_after(now)


Schedule = _CalendarSchedule | _RegularSchedule

_schedules: dict[str, Schedule] = {}
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def _lock(region: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(region, threading.Lock())


def _full_calendars() -> bool:
    """``HOURS_FULL_CALENDARS=1``: build through ``exchange_calendars.get_calendar`` (every
    holiday rule over 1970-2200, the code path before issue 23)."""
    return os.environ.get("HOURS_FULL_CALENDARS", "").strip().lower() in (
        "1", "true", "yes", "on")


def _new_calendar(mic: str, start: str | None = None, end: str | None = None) -> Any:
    """The package's calendar ``mic`` over [start, end] (its default for a missing bound)."""
    if _full_calendars():
        import exchange_calendars

        kwargs = {k: v for k, v in (("start", start), ("end", end)) if v is not None}
        return exchange_calendars.get_calendar(mic, **kwargs)
    from marketdata.calendar_window import windowed_calendar

    return windowed_calendar(mic, start=start, end=end)


def _build_calendar(mic: str, day: date) -> _CalendarSchedule:
    """The calendar over [day - a week, day + 400 days]; when the package bounds the
    calendar (holidays recorded only so far), as far as it goes. Raises when the package
    cannot build it at all."""
    start = (day - _WINDOW_BACK).isoformat()
    attempts: list[tuple[dict[str, str], bool]] = [
        ({"start": start, "end": (day + _WINDOW_AHEAD).isoformat()}, True),
        ({"start": start}, False),  # the package's default end (its bound)
        ({}, False),  # its default window: "now" is past the bound
    ]
    error: Exception | None = None
    for kwargs, full in attempts:
        try:
            return _CalendarSchedule(_new_calendar(mic, **kwargs), full)
        except Exception as exc:  # noqa: BLE001 - the package's errors vary by calendar
            error = exc
    assert error is not None
    raise error


def _build(exchange: Exchange, day: date) -> Schedule:
    if exchange.mic is not None:
        try:
            return _build_calendar(exchange.mic, day)
        except Exception as exc:
            if exchange.fallback is None:
                raise
            log.warning("exchange calendar unavailable, using regular hours",
                        region=exchange.region, calendar=exchange.mic, error=str(exc)[:200])
    assert exchange.fallback is not None
    return _RegularSchedule(exchange.fallback)


def schedule_for(region: str, now: datetime | None = None) -> Schedule:
    """The region's schedule, built on first use and cached (rebuilt when ``now`` leaves
    the window it was built for)."""
    exchange = EXCHANGES[region]
    day = (now or datetime.now(UTC)).astimezone(UTC).date()
    schedule = _schedules.get(region)
    if schedule is not None and schedule.covers(day):
        return schedule
    with _lock(region):
        schedule = _schedules.get(region)
        if schedule is None or not schedule.covers(day):
            schedule = _build(exchange, day)
            _schedules[region] = schedule
    return schedule


def clear_cache() -> None:
    """Forget every built schedule (tests)."""
    _schedules.clear()


def warm_up() -> None:
    """Build every region's schedule (0.5 s of CPU for all of them, windowed): run in the
    background when a worker starts, so no request pays for one. A request for a region
    being built meanwhile waits only for that region (its lock)."""
    for region in EXCHANGES:
        try:
            schedule_for(region)
        except Exception as exc:  # noqa: BLE001 - the request will say what is wrong
            log.warning("market calendar warm-up failed", region=region, error=str(exc)[:200])


def warm_up_in_background() -> threading.Thread:
    thread = threading.Thread(target=warm_up, name="calendar-warm-up", daemon=True)
    thread.start()
    return thread


# -- the clock ------------------------------------------------------------------------------
@dataclass(frozen=True)
class MarketClock:
    """One region's market at ``time``; see the module docstring for the conventions."""

    id: str = member("`<region>_market`, e.g. `us_market`")
    name: str = member("The exchange's name")
    status: str = member("Regular session only: pre-market and after-hours are `closed`; an "
                         "early-close day is `open` until the early close",
                         schema={"enum": ["open", "closed"]})
    message: str = member("`closes in 2 h 5 min`, `closes early in 45 min`, `opens in 14 h 2 "
                          "min`, `lunch break, reopens in 35 min`")
    open: datetime = member("Open of the current session, or of the next one once it has "
                            "closed (ISO 8601, UTC)")
    close: datetime = member("Close of that session (the early close on an early-close day)")
    time: datetime = member("Now (ISO 8601, UTC)")
    timezone: str = member("IANA time zone of the exchange")
    timezone_short: str = member("Abbreviation in force now (EST, EDT)")
    dst: bool = member("Daylight saving time in force now")
    gmt_offset: int = member("UTC offset in force now, in seconds")
    # Not members of the answer (a plain field after member() ones: mypy takes member() for
    # a default, so these carry the same kind of declaration).
    early_close: bool = field(kw_only=True)
    holidays_known: bool = field(kw_only=True)


def duration_text(seconds: float) -> str:
    """'2 d 16 h 30 min', '14 h 2 min', '1 h', '5 min': rounded up to the minute, at
    least 1 min."""
    minutes = max(1, math.ceil(seconds / 60))
    days, rest = divmod(minutes, 1440)
    hours, mins = divmod(rest, 60)
    parts = [f"{days} d" if days else "", f"{hours} h" if hours else "",
             f"{mins} min" if mins else ""]
    return " ".join(p for p in parts if p)


def market_clock(region: str, now: datetime | None = None) -> MarketClock:
    """The region's market at ``now`` (UTC-aware; default the current time)."""
    now = (now or datetime.now(UTC)).astimezone(UTC)
    exchange = EXCHANGES[region]
    schedule = schedule_for(region, now)
    session = schedule.session_closing_after(now)
    in_break = (session.break_start is not None and session.break_end is not None
                and session.break_start <= now < session.break_end)
    if session.open <= now < session.close and not in_break:
        status = "open"
        verb = "closes early in" if session.early_close else "closes in"
        message = f"{verb} {duration_text((session.close - now).total_seconds())}"
    elif in_break:
        assert session.break_end is not None
        status = "closed"
        message = ("lunch break, reopens in "
                   + duration_text((session.break_end - now).total_seconds()))
    else:
        status = "closed"
        message = f"opens in {duration_text((session.open - now).total_seconds())}"
    local = now.astimezone(ZoneInfo(schedule.tz))
    offset = local.utcoffset() or timedelta(0)
    return MarketClock(
        id=exchange.id, name=exchange.name, status=status, message=message,
        open=session.open, close=session.close, time=now, timezone=schedule.tz,
        timezone_short=local.tzname() or "", dst=bool(local.dst()),
        gmt_offset=int(offset.total_seconds()), early_close=session.early_close,
        holidays_known=session.holidays_known)



