"""Trading venues and their session tables (open/close epochs per trading day).

Why: every synthetic bar is anchored to a real-looking session grid, so daily bars sit at
the session open, intraday bars only inside sessions, and holidays are skipped the way
Yahoo skips them. US venues use the exchange_calendars XNYS calendar (holidays and early
closes); other venues use a weekday calendar in the local time zone; crypto trades daily.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import cache
from zoneinfo import ZoneInfo

import numpy as np
import pandas as pd

FIRST_DAY = "1985-01-02"
LAST_DAY = "2040-12-31"

_XNYS_LOCK = threading.Lock()


@dataclass(frozen=True)
class Venue:
    """Where an instrument trades: time zone, calendar kind and session hours."""

    key: str
    tz: str
    calendar: str  # "XNYS" | "weekdays" | "daily"
    open_hm: tuple[int, int]
    close_hm: tuple[int, int] | None  # None = to the next local midnight (24h venues)
    pre_start_hm: tuple[int, int] | None = None  # extended hours (US listings)
    post_end_hm: tuple[int, int] | None = None
    # Yahoo reports a short pre/post window for some venues without extended-hours prices.
    display_pre_minutes: int = 0
    display_post_minutes: int = 0

    @property
    def is_24h(self) -> bool:
        return self.close_hm is None

    @property
    def has_extended_hours(self) -> bool:
        return self.pre_start_hm is not None


US = Venue("US", "America/New_York", "XNYS", (9, 30), (16, 0), (4, 0), (20, 0))
VENUES: dict[str, Venue] = {
    "US": US,
    "US_FUTURES": Venue("US_FUTURES", "America/New_York", "weekdays", (0, 0), None),
    "FX": Venue("FX", "Europe/London", "weekdays", (0, 0), None),
    "CRYPTO": Venue("CRYPTO", "UTC", "daily", (0, 0), None),
    "LSE": Venue("LSE", "Europe/London", "weekdays", (8, 0), (16, 30),
                 display_pre_minutes=45, display_post_minutes=45),
    "HKG": Venue("HKG", "Asia/Hong_Kong", "weekdays", (9, 30), (16, 0),
                 display_pre_minutes=30, display_post_minutes=10),
    "GER": Venue("GER", "Europe/Berlin", "weekdays", (9, 0), (17, 30),
                 display_pre_minutes=120, display_post_minutes=180),
    "TOR": Venue("TOR", "America/Toronto", "weekdays", (9, 30), (16, 0),
                 display_pre_minutes=90, display_post_minutes=60),
    "JKT": Venue("JKT", "Asia/Jakarta", "weekdays", (9, 0), (16, 0)),
    "IST": Venue("IST", "Europe/Istanbul", "weekdays", (10, 0), (18, 0)),
    "MIL": Venue("MIL", "Europe/Rome", "weekdays", (9, 0), (17, 30)),
    "PAR": Venue("PAR", "Europe/Paris", "weekdays", (9, 0), (17, 30)),
    "AMS": Venue("AMS", "Europe/Amsterdam", "weekdays", (9, 0), (17, 30)),
    "EBS": Venue("EBS", "Europe/Zurich", "weekdays", (9, 0), (17, 30)),
    "JPX": Venue("JPX", "Asia/Tokyo", "weekdays", (9, 0), (15, 30)),
    "ASX": Venue("ASX", "Australia/Sydney", "weekdays", (10, 0), (16, 0)),
}


@dataclass(frozen=True)
class SessionTable:
    """All sessions of a venue between FIRST_DAY and LAST_DAY, as parallel arrays."""

    venue: Venue
    days: np.ndarray  # datetime64[D], local session date
    opens: np.ndarray  # int64 epoch seconds
    closes: np.ndarray  # int64 epoch seconds (exclusive end of the regular session)
    months: np.ndarray  # int64 months since 1970-01 of each session date
    day_of_month: np.ndarray  # int64, 1..31

    def __len__(self) -> int:
        return len(self.opens)

    def last_started(self, now: int) -> int:
        """Index of the last session whose open is <= now (-1 if none)."""
        return int(np.searchsorted(self.opens, now, side="right")) - 1


def _localize(days: pd.DatetimeIndex, tz: str, hm: tuple[int, int]) -> np.ndarray:
    stamps = days + pd.Timedelta(hours=hm[0], minutes=hm[1])
    local = stamps.tz_localize(tz, ambiguous=False, nonexistent="shift_forward")
    return local.tz_convert("UTC").as_unit("s").asi8.astype(np.int64)


def _xnys_schedule() -> pd.DataFrame:
    with _XNYS_LOCK, warnings.catch_warnings():
        # exchange_calendars itself trips a pandas deprecation warning; not ours to fix.
        warnings.simplefilter("ignore")
        import exchange_calendars as xc

        cal = xc.get_calendar("XNYS", start=FIRST_DAY, end=LAST_DAY)
        return cal.schedule


@cache
def session_table(venue_key: str) -> SessionTable:
    """Build (once per process) the session grid of a venue."""
    venue = VENUES[venue_key]
    if venue.calendar == "XNYS":
        sched = _xnys_schedule()
        days = pd.DatetimeIndex(sched.index).tz_localize(None).normalize()
        opens = pd.DatetimeIndex(sched["open"]).as_unit("s").asi8.astype(np.int64)
        closes = pd.DatetimeIndex(sched["close"]).as_unit("s").asi8.astype(np.int64)
    else:
        if venue.calendar == "daily":
            days = pd.date_range(FIRST_DAY, LAST_DAY, freq="D")
        else:
            days = pd.bdate_range(FIRST_DAY, LAST_DAY)
        opens = _localize(days, venue.tz, venue.open_hm)
        if venue.close_hm is None:
            closes = _localize(days + pd.Timedelta(days=1), venue.tz, (0, 0))
        else:
            closes = _localize(days, venue.tz, venue.close_hm)
    d = days.values.astype("datetime64[D]")
    months = d.astype("datetime64[M]")
    dom = (d - months.astype("datetime64[D]")).astype(np.int64) + 1
    return SessionTable(venue, d, opens, closes, months.astype(np.int64), dom)


def local_epoch(day: date, tz: str, hm: tuple[int, int] = (0, 0)) -> int:
    """Epoch seconds of a local wall-clock time on a date."""
    dt = datetime(day.year, day.month, day.day, hm[0], hm[1], tzinfo=ZoneInfo(tz))
    return int(dt.timestamp())


def tz_info(tz: str, epoch: int) -> tuple[str, int]:
    """(short zone name, UTC offset in seconds) at an instant, e.g. ("EST", -18000)."""
    dt = datetime.fromtimestamp(epoch, UTC).astimezone(ZoneInfo(tz))
    offset = dt.utcoffset()
    return dt.tzname() or tz, int(offset.total_seconds()) if offset is not None else 0
