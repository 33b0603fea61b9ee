"""marketdata.markets (US market phases at fixed instants) and cache.TTLPolicy."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from marketdata import markets
from marketdata.cache import POLICIES, TTLPolicy
from marketdata.markets import MarketPhase

ET = ZoneInfo("America/New_York")


def at(year, month, day, hour=0, minute=0, second=0) -> datetime:
    """An ET wall-clock instant, handed to the code as UTC (its contract)."""
    return datetime(year, month, day, hour, minute, second, tzinfo=ET).astimezone(UTC)


# 2026-11-24 is a Tuesday, 2026-11-26 Thanksgiving, 2026-11-27 the early close (13:00 ET),
# 2026-11-28/29 a weekend.
@pytest.mark.parametrize(("instant", "phase", "status", "reason"), [
    (at(2026, 11, 24, 10), MarketPhase.OPEN, "Open", "Regular trading hours"),
    (at(2026, 11, 24, 9, 30), MarketPhase.OPEN, "Open", "Regular trading hours"),
    (at(2026, 11, 24, 15, 59, 59), MarketPhase.OPEN, "Open", "Regular trading hours"),
    (at(2026, 11, 24, 5), MarketPhase.PRE, "Closed", "Pre-market"),
    (at(2026, 11, 24, 4), MarketPhase.PRE, "Closed", "Pre-market"),
    (at(2026, 11, 24, 9, 29, 59), MarketPhase.PRE, "Closed", "Pre-market"),
    (at(2026, 11, 24, 16), MarketPhase.POST, "Closed", "After-hours"),
    (at(2026, 11, 24, 17), MarketPhase.POST, "Closed", "After-hours"),
    (at(2026, 11, 24, 19, 59, 59), MarketPhase.POST, "Closed", "After-hours"),
    (at(2026, 11, 24, 20), MarketPhase.CLOSED, "Closed", "Market closed"),
    (at(2026, 11, 24, 23), MarketPhase.CLOSED, "Closed", "Market closed"),
    (at(2026, 11, 24, 2), MarketPhase.CLOSED, "Closed", "Market closed"),
    (at(2026, 11, 24, 3, 59, 59), MarketPhase.CLOSED, "Closed", "Market closed"),
    (at(2026, 11, 26, 12), MarketPhase.CLOSED, "Closed", "Holiday: Thanksgiving"),
    (at(2026, 11, 26, 5), MarketPhase.CLOSED, "Closed", "Holiday: Thanksgiving"),
    (at(2026, 12, 25, 10), MarketPhase.CLOSED, "Closed", "Holiday: Christmas"),
    (at(2026, 4, 3, 10), MarketPhase.CLOSED, "Closed", "Holiday: Good Friday"),
    (at(2026, 11, 28, 12), MarketPhase.CLOSED, "Closed", "Weekend"),
    (at(2026, 11, 29, 23), MarketPhase.CLOSED, "Closed", "Weekend"),
])
def test_phase_status_reason(instant, phase, status, reason):
    result = markets.market_status(instant)
    assert (result.phase, result.status, result.reason) == (phase, status, reason)
    assert result.timestamp == instant
    assert markets.market_phase(instant) == phase


class TestEarlyClose:
    def test_session_closes_at_13_00_et(self):
        day = markets.session_day(at(2026, 11, 27).date())
        assert day.is_session and day.early_close
        assert day.close == at(2026, 11, 27, 13)
        assert day.open == at(2026, 11, 27, 9, 30)

    def test_open_before_13_00(self):
        result = markets.market_status(at(2026, 11, 27, 12, 59))
        assert result.phase == MarketPhase.OPEN
        assert result.status == "Early Close"

    def test_after_hours_from_13_00(self):
        result = markets.market_status(at(2026, 11, 27, 13))
        assert result.phase == MarketPhase.POST
        assert result.status == "Early Close"
        assert result.reason == "After-hours"
        assert markets.market_status(at(2026, 11, 27, 15)).phase == MarketPhase.POST

    def test_regular_day_is_not_early(self):
        day = markets.session_day(at(2026, 11, 24, 12).astimezone(ET).date())
        assert day.is_session and not day.early_close
        assert day.close == at(2026, 11, 24, 16)


class TestNonSessionDays:
    def test_holiday_has_a_name(self):
        day = markets.session_day(at(2026, 11, 26, 12).astimezone(ET).date())
        assert not day.is_session
        assert day.holiday == "Thanksgiving"
        assert day.open is None and day.close is None

    def test_weekend_has_no_holiday_name(self):
        day = markets.session_day(at(2026, 11, 28, 12).astimezone(ET).date())
        assert not day.is_session and day.holiday is None

    def test_et_date_is_used_not_utc_date(self):
        # 2026-11-27 03:00 UTC is still Thanksgiving evening in New York.
        instant = datetime(2026, 11, 27, 3, tzinfo=UTC)
        assert markets.market_status(instant).reason == "Holiday: Thanksgiving"

    def test_year_far_from_now_rebuilds_the_calendar(self):
        # Thanksgiving 2031 is Nov 27; a process must not freeze on its start year.
        assert markets.market_status(at(2031, 11, 27, 12)).reason == "Holiday: Thanksgiving"
        assert markets.market_status(at(2031, 11, 25, 12)).phase == MarketPhase.OPEN
        assert markets.market_status(at(2026, 11, 26, 12)).reason == "Holiday: Thanksgiving"


@pytest.mark.parametrize(("instant", "seconds"), [
    (at(2026, 11, 24, 10), 6 * 3600),              # -> 16:00 close
    (at(2026, 11, 24, 5), 4.5 * 3600),             # -> 09:30 open
    (at(2026, 11, 24, 2), 2 * 3600),               # -> 04:00 pre-market
    (at(2026, 11, 24, 17), 3 * 3600),              # -> 20:00 end of after-hours
    (at(2026, 11, 24, 21), 7 * 3600),              # -> Wed 04:00
    (at(2026, 11, 25, 21), 31 * 3600),             # Wed 21:00 -> Fri 04:00 (Thanksgiving)
    (at(2026, 11, 26, 12), 16 * 3600),             # Thanksgiving noon -> Fri 04:00
    (at(2026, 11, 27, 12), 3600),                  # early close day -> 13:00 close
    (at(2026, 11, 27, 14), 3 * 3600),              # -> 17:00: late trading ends early too
    (at(2026, 11, 28, 12), 40 * 3600),             # Saturday noon -> Monday 04:00
    (at(2026, 11, 29, 23), 5 * 3600),              # Sunday 23:00 -> Monday 04:00
    (at(2026, 11, 24, 9, 29, 59), 1),
    (at(2026, 3, 7, 12), 39 * 3600),               # Saturday -> Monday across DST start
    (at(2026, 10, 31, 12), 41 * 3600),             # Saturday -> Monday across DST end
])
def test_seconds_until_phase_change(instant, seconds):
    assert markets.seconds_until_phase_change(instant) == pytest.approx(seconds)


@pytest.mark.parametrize("instant", [at(2026, 3, 7, 12), at(2026, 10, 31, 12),
                                     at(2026, 11, 24, 10), at(2026, 11, 27, 14)])
def test_any_aware_timezone_gives_the_same_answer(instant):
    """An aware datetime is an instant whatever its zone: an ET-aware 'now' must give the
    same answers as the UTC one (Python subtracts same-zone datetimes on the wall clock,
    which is an hour off across a DST change)."""
    local = instant.astimezone(ET)
    assert markets.seconds_until_phase_change(local) == \
        markets.seconds_until_phase_change(instant)
    assert markets.market_status(local).phase == markets.market_status(instant).phase


def test_seconds_until_phase_change_agrees_with_market_status():
    instant = at(2026, 11, 24, 15, 0)
    delta = markets.seconds_until_phase_change(instant)
    before = markets.market_status(instant + timedelta(seconds=delta - 1)).phase
    after = markets.market_status(instant + timedelta(seconds=delta)).phase
    assert (before, after) == (MarketPhase.OPEN, MarketPhase.POST)


def test_defaults_to_now():
    result = markets.market_status()
    assert abs((result.timestamp - datetime.now(UTC)).total_seconds()) < 5
    assert result.timestamp.tzinfo is not None
    assert 0 < markets.seconds_until_phase_change() <= 8 * 86400


# -- TTL policy -----------------------------------------------------------------------------
@pytest.fixture
def market(monkeypatch):
    """Pin the phase and the time to the next phase change seen by TTLPolicy.ttl()."""
    state = {"phase": MarketPhase.OPEN, "until": 3600.0}

    def fake_status(now=None):
        return markets.MarketStatus(state["phase"], "x", "x", datetime.now(UTC),
                                    markets.SessionDay(datetime.now(UTC).date(), False))

    monkeypatch.setattr(markets, "market_status", fake_status)
    monkeypatch.setattr(markets, "seconds_until_phase_change", lambda now=None: state["until"])
    return state


class TestTTLPolicy:
    @pytest.mark.parametrize(("phase", "until", "expected"), [
        (MarketPhase.OPEN, 3600, 10),
        (MarketPhase.PRE, 3600, 30),
        (MarketPhase.POST, 3600, 30),
        (MarketPhase.CLOSED, 3600, 600),
        (MarketPhase.CLOSED, 120, 120),  # never past the next phase change...
        (MarketPhase.CLOSED, 3, 10),     # ...but never below the open-market TTL
        (MarketPhase.PRE, 20, 20),
        (MarketPhase.PRE, 5, 10),
        (MarketPhase.OPEN, 1, 10),
    ])
    def test_quote_policy(self, market, settings, phase, until, expected):
        settings.CACHE_TTL_CAP_SECONDS = None
        market.update(phase=phase, until=until)
        assert POLICIES["quote"].ttl() == expected

    @pytest.mark.parametrize(("name", "open_", "extended", "closed"), [
        ("quote_summary", 15, 60, 900),
        ("chart_intraday", 30, 120, 1800),
        ("chart_daily", 60, 300, 3600),
        ("chart_weekly", 300, 900, 7200),
    ])
    def test_policy_table(self, market, settings, name, open_, extended, closed):
        settings.CACHE_TTL_CAP_SECONDS = None
        market["until"] = 86400
        policy = POLICIES[name]
        got = {}
        for phase in MarketPhase:
            market["phase"] = phase
            got[phase] = policy.ttl()
        assert got == {MarketPhase.OPEN: open_, MarketPhase.PRE: extended,
                       MarketPhase.POST: extended, MarketPhase.CLOSED: closed}

    def test_explicit_phase_wins(self, market, settings):
        settings.CACHE_TTL_CAP_SECONDS = None
        market.update(phase=MarketPhase.CLOSED, until=86400)
        assert POLICIES["quote"].ttl(MarketPhase.OPEN) == 10
        assert POLICIES["quote"].ttl(MarketPhase.POST) == 30

    @pytest.mark.parametrize("phase", list(MarketPhase))
    def test_not_market_aware(self, market, settings, phase):
        settings.CACHE_TTL_CAP_SECONDS = None
        market.update(phase=phase, until=5)
        assert POLICIES["fundamentals"].ttl() == 86400
        assert POLICIES["transcript"].ttl() == 604800

    def test_cap_setting(self, market, settings):
        market.update(phase=MarketPhase.CLOSED, until=86400)
        settings.CACHE_TTL_CAP_SECONDS = 5
        assert POLICIES["quote"].ttl() == 5
        assert POLICIES["chart_daily"].ttl() == 5
        assert POLICIES["fundamentals"].ttl() == 5
        settings.CACHE_TTL_CAP_SECONDS = 100000
        assert POLICIES["quote"].ttl() == 600
        settings.CACHE_TTL_CAP_SECONDS = None
        assert POLICIES["fundamentals"].ttl() == 86400

    def test_cap_below_open_ttl(self, market, settings):
        market.update(phase=MarketPhase.OPEN, until=86400)
        settings.CACHE_TTL_CAP_SECONDS = 1
        assert POLICIES["chart_weekly"].ttl() == 1

    def test_at_least_one_second(self, market, settings):
        settings.CACHE_TTL_CAP_SECONDS = None
        market.update(phase=MarketPhase.OPEN, until=0)
        assert TTLPolicy("zero", open=0, extended=0, closed=0).ttl() == 1

    def test_real_calendar_thanksgiving(self, monkeypatch, settings):
        """With the real calendar: Thanksgiving noon, 16 h to Friday's pre-market."""
        settings.CACHE_TTL_CAP_SECONDS = None
        instant = at(2026, 11, 26, 12)
        real_status, real_until = markets.market_status, markets.seconds_until_phase_change
        monkeypatch.setattr(markets, "market_status", lambda now=None: real_status(instant))
        monkeypatch.setattr(markets, "seconds_until_phase_change",
                            lambda now=None: real_until(instant))
        assert POLICIES["quote"].ttl() == 600
        assert POLICIES["chart_weekly"].ttl() == 7200
        instant = at(2026, 11, 27, 12, 59, 50)  # 10 s before the early close
        assert POLICIES["quote"].ttl() == 10
        assert POLICIES["chart_daily"].ttl() == 60
        instant = at(2026, 11, 27, 16, 59)  # early-close day, 60 s before 17:00
        assert POLICIES["quote"].ttl() == 30
        assert POLICIES["chart_daily"].ttl() == 60
        instant = at(2026, 11, 27, 19, 59)  # after 17:00 the early-close day is closed
        assert POLICIES["quote"].ttl() == 600
