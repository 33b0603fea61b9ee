"""marketdata.calendar_window: the package's calendars with holiday rules evaluated only
around their window give the same sessions as ``exchange_calendars.get_calendar``.

The reference is always the package's own ``get_calendar`` over the same window; no
expected value is derived from the code under test. How fast the windowed build is is
measured in bench/hours_cold.py, not here.
"""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from marketdata import calendar_window
from marketdata.calendar_window import HOLIDAY_MARGIN, windowed_calendar, windowed_type
from marketdata.exchange_hours import EXCHANGES

MICS = sorted({e.mic for e in EXCHANGES.values() if e.mic is not None})


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        # exchange_calendars on pandas 3.1 (upstream deprecation, harmless here)
        warnings.simplefilter("ignore")
        yield


def outcome(build, mic: str, **kwargs: str):
    """What a build gives: the sessions with their times, the early closes and late opens
    and the regular hours; or the error's type and message."""
    try:
        cal = build(mic, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the package's errors vary by calendar
        return ("error", type(exc).__name__, str(exc))
    return ("ok", cal.schedule, list(cal.early_closes), list(cal.late_opens), str(cal.tz),
            cal.weekmask, cal.open_times, cal.close_times, cal.break_start_times,
            cal.break_end_times)


def assert_same(windowed, package):
    assert windowed[0] == package[0], (windowed[:3], package[:3])
    if windowed[0] == "error":
        assert windowed == package
        return
    # The index frequencies differ: the package's holds 231 years of holidays.
    pd.testing.assert_frame_equal(windowed[1], package[1], check_freq=False)
    assert windowed[2:] == package[2:]


def package_calendar(mic: str, **kwargs: str):
    import exchange_calendars

    return exchange_calendars.get_calendar(mic, **kwargs)


# The window /v2/hours builds (a week back, 400 days ahead): over Lunar New Year, Chuseok,
# Easter, the DST changes and the Christmas early closes. Every calendar once, those with
# lunar, observance-heavy or special-close rules at a second moment too (the package's
# build is the slow part of this file; bench/hours_cold.py --verify compares 40 windows).
SECOND_WINDOW_MICS = ["XKRX", "XMOS", "XHKG", "XTAI", "XNYS", "XTAE", "XKLS", "XBKK"]


@pytest.mark.parametrize(("mic", "start", "end"), [
    *((mic, "2026-11-18", "2027-12-30") for mic in MICS),
    *((mic, "2028-01-24", "2029-03-03") for mic in SECOND_WINDOW_MICS),
])
@pytest.mark.slow("builds exchange_calendars' own calendar to compare against")
def test_same_sessions_as_the_package(mic, start, end):
    assert_same(outcome(windowed_calendar, mic, start=start, end=end),
                outcome(package_calendar, mic, start=start, end=end))


@pytest.mark.parametrize(("mic", "kwargs"), [
    ("XTAE", {"start": "2025-06-01", "end": "2026-07-06"}),  # "Special dates ... not sessions"
    ("XSHG", {"start": "2026-11-18", "end": "2027-12-30"}),  # past its recorded holidays
    ("XSHG", {"start": "2026-11-18"}),  # to its bound
    ("ASEX", {"start": "2026-11-18", "end": "2027-12-30"}),  # cannot be built at all
    ("XLON", {"start": "2026-11-18"}),  # the package's default end
])
def test_same_outcome_at_the_packages_bounds_and_failures(mic, kwargs):
    assert_same(outcome(windowed_calendar, mic, **kwargs),
                outcome(package_calendar, mic, **kwargs))


def test_holiday_rules_are_evaluated_only_around_the_window():
    cal = windowed_calendar("XNYS", start="2026-11-18", end="2027-12-30")
    assert type(cal).__name__ == "WindowedXNYSExchangeCalendar"
    holidays = cal.regular_holidays.holidays()  # no bounds: pandas' 1970-2200 otherwise
    low = pd.Timestamp("2026-11-18") - pd.Timedelta(HOLIDAY_MARGIN)
    high = pd.Timestamp("2027-12-30") + pd.Timedelta(HOLIDAY_MARGIN)
    assert len(holidays) > 0 and holidays.min() >= low and holidays.max() <= high
    assert pd.Timestamp("2026-11-26") in holidays  # Thanksgiving
    # The package's rules themselves are untouched (they are shared, module-level).
    full = package_calendar("XNYS", start="2026-11-18", end="2027-12-30")
    assert full.regular_holidays.holidays().min() < pd.Timestamp("1971-01-01")


def test_falls_back_to_get_calendar_when_the_package_classes_cannot_be_found(monkeypatch):
    from exchange_calendars import calendar_utils

    windowed_type.cache_clear()
    monkeypatch.setattr(calendar_utils, "global_calendar_dispatcher", object())
    try:
        cal = calendar_window.windowed_calendar("XLON", start="2026-11-18", end="2027-12-30")
        assert type(cal).__name__ == "XLONExchangeCalendar"
        assert_same(outcome(lambda mic, **kw: cal, "XLON"),
                    outcome(package_calendar, "XLON", start="2026-11-18", end="2027-12-30"))
    finally:
        windowed_type.cache_clear()
