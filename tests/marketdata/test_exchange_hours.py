"""marketdata.exchange_hours: the /v2/hours clock, with "now" injected.

Expected instants are written out by hand from the exchanges' published hours (NYSE
09:30-16:00 ET, 13:00 on early-close days; LSE 08:00-16:30 London; TSE lunch 11:30-12:30
JST), never derived from the code under test.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from apps.core.v2 import REGIONS
from marketdata import exchange_hours
from marketdata.exchange_hours import (
    EXCHANGES,
    RegularHours,
    duration_text,
    iso_utc,
    market_clock,
    schedule_for,
)
from tests.marketdata.threads import run_threads


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def summary(region: str, now: datetime) -> tuple[str, str, str, str]:
    clock = market_clock(region, now)
    return clock.status, clock.message, iso_utc(clock.open), iso_utc(clock.close)


# ---- NYSE ---------------------------------------------------------------------------------
def test_regular_weekday_open():
    clock = market_clock("US", utc(2026, 11, 24, 15, 0))  # Tuesday 10:00 EST
    assert (clock.status, clock.message) == ("open", "closes in 6 h")
    assert (iso_utc(clock.open), iso_utc(clock.close)) == ("2026-11-24T14:30:00Z",
                                                            "2026-11-24T21:00:00Z")
    assert clock.id == "us_market" and clock.name == "New York Stock Exchange"
    assert (clock.timezone, clock.timezone_short, clock.dst, clock.gmt_offset) == \
        ("America/New_York", "EST", False, -18000)
    assert iso_utc(clock.time) == "2026-11-24T15:00:00Z"
    assert not clock.early_close and clock.holidays_known


def test_regular_weekday_after_close_shows_the_next_session():
    assert summary("US", utc(2026, 11, 24, 21, 0)) == (
        "closed", "opens in 17 h 30 min", "2026-11-25T14:30:00Z", "2026-11-25T21:00:00Z")


def test_pre_market_is_closed_with_the_days_session():
    assert summary("US", utc(2026, 11, 24, 13, 0)) == (  # 08:00 EST
        "closed", "opens in 1 h 30 min", "2026-11-24T14:30:00Z", "2026-11-24T21:00:00Z")


def test_last_minute_rounds_up():
    assert summary("US", utc(2026, 11, 24, 20, 59, 30))[:2] == ("open", "closes in 1 min")


def test_weekend():
    assert summary("US", utc(2026, 11, 28, 12, 0)) == (  # Saturday
        "closed", "opens in 2 d 2 h 30 min", "2026-11-30T14:30:00Z", "2026-11-30T21:00:00Z")


def test_thanksgiving_holiday_opens_on_the_early_close_friday():
    clock = market_clock("US", utc(2026, 11, 26, 15, 0))  # Thursday, Thanksgiving
    assert (clock.status, clock.message) == ("closed", "opens in 23 h 30 min")
    assert (iso_utc(clock.open), iso_utc(clock.close)) == ("2026-11-27T14:30:00Z",
                                                            "2026-11-27T18:00:00Z")
    assert clock.early_close


def test_black_friday_early_close():
    clock = market_clock("US", utc(2026, 11, 27, 15, 0))
    assert (clock.status, clock.message) == ("open", "closes early in 3 h")
    assert iso_utc(clock.close) == "2026-11-27T18:00:00Z"  # 13:00 EST
    assert summary("US", utc(2026, 11, 27, 18, 30)) == (
        "closed", "opens in 2 d 20 h", "2026-11-30T14:30:00Z", "2026-11-30T21:00:00Z")


def test_christmas_eve_early_close_then_christmas():
    assert summary("US", utc(2026, 12, 24, 17, 0)) == (
        "open", "closes early in 1 h", "2026-12-24T14:30:00Z", "2026-12-24T18:00:00Z")
    # Christmas Day is a Friday: next session Monday the 28th.
    assert summary("US", utc(2026, 12, 25, 15, 0))[2] == "2026-12-28T14:30:00Z"


# ---- DST ------------------------------------------------------------------------------------
def test_us_dst_start_2026_03_08():
    # Friday close (EST) to Monday open (EDT): real elapsed time, 1 h shorter on the clock.
    assert summary("US", utc(2026, 3, 6, 22, 0)) == (
        "closed", "opens in 2 d 15 h 30 min", "2026-03-09T13:30:00Z", "2026-03-09T20:00:00Z")
    before = market_clock("US", utc(2026, 3, 8, 6, 59))  # 01:59 EST
    after = market_clock("US", utc(2026, 3, 8, 7, 0))  # 03:00 EDT
    assert (before.timezone_short, before.dst, before.gmt_offset) == ("EST", False, -18000)
    assert (after.timezone_short, after.dst, after.gmt_offset) == ("EDT", True, -14400)
    assert summary("US", utc(2026, 3, 6, 15, 0))[2:] == ("2026-03-06T14:30:00Z",
                                                          "2026-03-06T21:00:00Z")


def test_gb_dst_start_2026_03_29():
    friday = market_clock("GB", utc(2026, 3, 27, 10, 0))
    assert (friday.status, iso_utc(friday.open), iso_utc(friday.close)) == (
        "open", "2026-03-27T08:00:00Z", "2026-03-27T16:30:00Z")
    assert (friday.timezone_short, friday.dst, friday.gmt_offset) == ("GMT", False, 0)
    monday = market_clock("GB", utc(2026, 3, 30, 10, 0))
    assert (monday.status, iso_utc(monday.open), iso_utc(monday.close)) == (
        "open", "2026-03-30T07:00:00Z", "2026-03-30T15:30:00Z")
    assert (monday.timezone_short, monday.dst, monday.gmt_offset) == ("BST", True, 3600)
    assert monday.id == "gb_market" and monday.timezone == "Europe/London"


# ---- lunch breaks and regions without a calendar --------------------------------------------
def test_tokyo_lunch_break():
    assert summary("JP", utc(2026, 11, 25, 3, 0)) == (  # 12:00 JST
        "closed", "lunch break, reopens in 30 min", "2026-11-25T00:00:00Z",
        "2026-11-25T06:30:00Z")
    assert summary("JP", utc(2026, 11, 25, 4, 0))[:2] == ("open", "closes in 2 h 30 min")


def test_qatar_trades_sunday_to_thursday_from_documented_hours():
    friday = market_clock("QA", utc(2026, 11, 27, 8, 0))
    assert (friday.status, iso_utc(friday.open), iso_utc(friday.close)) == (
        "closed", "2026-11-29T06:30:00Z", "2026-11-29T10:15:00Z")  # Sunday 09:30-13:15 +03
    assert not friday.holidays_known
    assert market_clock("QA", utc(2026, 11, 29, 7, 0)).status == "open"
    assert (friday.timezone, friday.gmt_offset, friday.dst) == ("Asia/Qatar", 10800, False)


def test_vietnam_lunch_break_from_documented_hours():
    assert summary("VN", utc(2026, 11, 25, 5, 0)) == (  # 12:00 ICT
        "closed", "lunch break, reopens in 1 h", "2026-11-25T02:00:00Z",
        "2026-11-25T08:00:00Z")


def test_regular_hours_weekday_closes():
    tase = RegularHours("Asia/Jerusalem", datetime(2026, 1, 1, 9, 59).time(),
                        datetime(2026, 1, 1, 17, 15).time(),
                        closes={4: datetime(2026, 1, 1, 13, 50).time()})
    friday = tase.session_on(date(2026, 11, 27))
    assert friday is not None and iso_utc(friday.close) == "2026-11-27T11:50:00Z"
    assert tase.session_on(date(2026, 11, 28)) is None


def test_calendar_with_holidays_recorded_to_2026_continues_with_regular_hours():
    """XSHG lists holidays only to the end of 2026; later days use its regular hours."""
    clock = market_clock("CN", utc(2027, 3, 3, 2, 0))  # Wednesday 10:00 CST
    assert (clock.status, iso_utc(clock.open), iso_utc(clock.close)) == (
        "open", "2027-03-03T01:30:00Z", "2027-03-03T07:00:00Z")
    assert not clock.holidays_known
    assert market_clock("CN", utc(2026, 11, 25, 2, 0)).holidays_known


@pytest.mark.parametrize("now", [utc(2026, 11, 25, 9, 0), utc(2026, 3, 8, 23, 30),
                                 utc(2027, 6, 1, 14, 0)])
def test_every_region_answers(now):
    assert set(EXCHANGES) == set(REGIONS)
    for region in REGIONS:
        clock = market_clock(region, now)
        assert clock.id == f"{region.lower()}_market" and clock.name
        assert clock.status in ("open", "closed")
        assert re.fullmatch(r"(closes( early)? in|opens in|lunch break, reopens in)"
                            r"( \d+ d)?( \d+ h)?( \d+ min)?", clock.message), clock.message
        assert clock.open < clock.close and clock.close > now
        assert (clock.status == "open") == (clock.open <= now and clock.message.startswith(
            "closes"))
        assert clock.gmt_offset % 900 == 0 and abs(clock.gmt_offset) <= 14 * 3600
        assert clock.timezone_short and isinstance(clock.dst, bool)


# ---- formatting and caching -----------------------------------------------------------------
@pytest.mark.parametrize(("seconds", "text"), [
    (1, "1 min"), (60, "1 min"), (61, "2 min"), (3600, "1 h"), (7500, "2 h 5 min"),
    (50520, "14 h 2 min"), (86400, "1 d"), (2 * 86400 + 3600 * 16 + 1800, "2 d 16 h 30 min"),
    (0, "1 min")])
def test_duration_text(seconds, text):
    assert duration_text(seconds) == text


def test_schedules_are_cached_and_rebuilt_outside_their_window():
    first = schedule_for("GB", utc(2026, 11, 25))
    assert schedule_for("GB", utc(2026, 12, 1)) is first
    later = schedule_for("GB", utc(2028, 6, 1))
    assert later is not first and later.covers(date(2028, 6, 1))


@pytest.mark.process
def test_import_builds_no_calendar():
    root = Path(__file__).resolve().parents[2]
    code = ("import sys, marketdata.exchange_hours as m; "
            "print('exchange_calendars' in sys.modules, len(m._schedules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                         text=True, check=True, timeout=60)
    assert out.stdout.split() == ["False", "0"]


def test_every_region_has_a_calendar_or_documented_hours():
    for exchange in EXCHANGES.values():
        assert exchange.mic is not None or exchange.fallback is not None
    assert exchange_hours.EXCHANGES["QA"].mic is None
    assert exchange_hours.EXCHANGES["VN"].mic is None


def test_tel_aviv_uses_its_calendar_and_falls_back_when_it_cannot_be_built(monkeypatch):
    assert market_clock("IL", utc(2026, 11, 25, 9, 0)).holidays_known  # XTAE builds

    def broken(name: str, **kwargs: object) -> None:
        raise ValueError("Special dates [...] are not sessions.")

    # Calendars are built by _new_calendar (the windowed build, or get_calendar with
    # HOURS_FULL_CALENDARS): make both fail.
    monkeypatch.setattr(exchange_hours, "_new_calendar", broken)
    monkeypatch.setattr(exchange_hours, "_schedules", {})
    clock = market_clock("IL", utc(2026, 11, 27, 9, 0))  # Friday 11:00 IST
    assert (clock.status, clock.message, iso_utc(clock.open), iso_utc(clock.close)) == (
        "open", "closes in 2 h 50 min", "2026-11-27T07:59:00Z", "2026-11-27T11:50:00Z")
    assert not clock.holidays_known


def test_athens_from_documented_hours():
    clock = market_clock("GR", utc(2026, 11, 25, 9, 0))
    assert (clock.status, iso_utc(clock.open), iso_utc(clock.close)) == (
        "open", "2026-11-25T08:00:00Z", "2026-11-25T15:20:00Z")
    assert (clock.timezone, clock.timezone_short, clock.gmt_offset) == (
        "Europe/Athens", "EET", 7200)


def test_a_weekly_short_day_is_not_an_early_close():
    """TASE closes at 13:50 every Friday (its calendar lists these as special closes)."""
    clock = market_clock("IL", utc(2026, 11, 27, 9, 0))
    if not clock.holidays_known:  # pragma: no cover - the calendar could not be built
        pytest.skip("XTAE calendar unavailable")
    assert (clock.status, clock.message, iso_utc(clock.close)) == (
        "open", "closes in 2 h 50 min", "2026-11-27T11:50:00Z")
    assert not clock.early_close


# ---- building: once per region, concurrently, cheaply (issue 23) ----------------------------
@pytest.fixture
def fresh_schedules(monkeypatch):
    """No schedule built yet, as in a fresh worker."""
    monkeypatch.setattr(exchange_hours, "_schedules", {})
    monkeypatch.setattr(exchange_hours, "_locks", {})


def test_concurrent_first_requests_build_a_region_once(monkeypatch, fresh_schedules):
    builds: list[str] = []
    real_build = exchange_hours._build

    def counting_build(exchange, day):
        builds.append(exchange.region)
        time.sleep(0.05)  # the others arrive while it builds
        return real_build(exchange, day)

    monkeypatch.setattr(exchange_hours, "_build", counting_build)
    now = utc(2026, 11, 25, 3, 0)
    results = run_threads(64, lambda: market_clock("KR", now))
    assert builds == ["KR"]
    assert {kind for kind, _ in results} == {"ok"}
    assert len({clock for _, clock in results}) == 1  # the same answer for every thread
    assert summary("KR", now) == (  # 12:00 KST; KRX trades 09:00-15:30 without a break
        "open", "closes in 3 h 30 min", "2026-11-25T00:00:00Z", "2026-11-25T06:30:00Z")


def test_a_region_being_built_does_not_hold_up_another(monkeypatch, fresh_schedules):
    release = threading.Event()
    started = threading.Event()
    real_build = exchange_hours._build

    def slow_korea(exchange, day):
        if exchange.region == "KR":
            started.set()
            assert release.wait(10)
        return real_build(exchange, day)

    monkeypatch.setattr(exchange_hours, "_build", slow_korea)
    now = utc(2026, 11, 25, 9, 0)
    korea = threading.Thread(target=market_clock, args=("KR", now))
    korea.start()
    try:
        assert started.wait(10)
        assert summary("GB", now)[0] == "open"  # answered while KR is still being built
        assert korea.is_alive()
    finally:
        release.set()
        korea.join(10)
    assert "KR" in exchange_hours._schedules


def test_calendars_are_built_windowed_unless_switched_off(monkeypatch, fresh_schedules):
    import exchange_calendars

    calls: list[str] = []
    real_get_calendar = exchange_calendars.get_calendar

    def spy(name, **kwargs):
        calls.append(name)
        return real_get_calendar(name, **kwargs)

    monkeypatch.setattr(exchange_calendars, "get_calendar", spy)
    now = utc(2026, 11, 25, 9, 0)
    windowed = schedule_for("JP", now)
    assert type(windowed.cal).__name__ == "WindowedXTKSExchangeCalendar" and calls == []

    monkeypatch.setenv("HOURS_FULL_CALENDARS", "1")
    monkeypatch.setattr(exchange_hours, "_schedules", {})
    full = schedule_for("JP", now)
    assert type(full.cal).__name__ == "XTKSExchangeCalendar" and calls == ["XTKS"]
    # The same answers either way.
    for moment in (now, utc(2026, 12, 31, 1, 0), utc(2027, 1, 4, 3, 0)):
        assert windowed.session_closing_after(moment) == full.session_closing_after(moment)


def test_the_worker_warm_up_builds_every_region_in_the_background():
    exchange_hours.clear_cache()
    thread = exchange_hours.warm_up_in_background()
    thread.join(60)
    assert not thread.is_alive()
    assert set(exchange_hours._schedules) == set(exchange_hours.EXCHANGES)
