"""Short selling: FINRA's daily short sale volume and its twice-monthly short interest, with
the vocabularies and windows the endpoints validate and document them with.

**Daily short sale volume** (Reg SHO). FINRA publishes, for every trading day, one
pipe-delimited file per facility that trades reported to it (off-exchange trades only:
exchange volume is not in them), by 6 pm ET of the same day, at
``https://cdn.finra.org/equity/regsho/daily/{PREFIX}shvol{YYYYMMDD}.txt``:

===================  ========  =====  ==========================================
venue                prefix    code   facility
===================  ========  =====  ==========================================
``consolidated``     ``CNMS``  --     the TRFs and the ADF together (NMS stocks)
``nasdaq-carteret``  ``FNSQ``  ``Q``  FINRA/Nasdaq TRF Carteret
``nasdaq-chicago``   ``FNQC``  ``B``  FINRA/Nasdaq TRF Chicago
``nyse``             ``FNYX``  ``N``  FINRA/NYSE TRF
``adf``              ``FNRA``  ``D``  Alternative Display Facility
``orf``              ``FORF``  ``O``  OTC Reporting Facility (OTC equities only)
===================  ========  =====  ==========================================

A day's volume for one venue is a :class:`ShortVolumeRow`; an answer is a window of trading
days (:func:`volume_window`: the exchange calendar's sessions, never a weekend or holiday)
as a :class:`ShortVolume`. **Short interest** (FINRA Rule 4560): the short positions
member firms report as of two settlement dates a month, one :class:`ShortInterestRow`
per settlement date in a :class:`ShortInterest`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from marketdata import markets
from marketdata.records.members import member

_DATE = {"format": "date"}

# -- venues -------------------------------------------------------------------------------------
VenueName = Literal["consolidated", "nasdaq-carteret", "nasdaq-chicago", "nyse", "adf", "orf"]


@dataclass(frozen=True)
class Venue:
    """One of FINRA's daily short sale volume files: its file prefix, the facility code its
    Market column writes, and the first trade date FINRA has a file of."""

    name: str
    prefix: str
    code: str | None
    title: str
    first_day: date


VENUES: dict[str, Venue] = {v.name: v for v in (
    Venue("consolidated", "CNMS", None, "Consolidated NMS (the TRFs and the ADF)",
          date(2018, 8, 1)),
    Venue("nasdaq-carteret", "FNSQ", "Q", "FINRA/Nasdaq TRF Carteret", date(2009, 8, 3)),
    Venue("nasdaq-chicago", "FNQC", "B", "FINRA/Nasdaq TRF Chicago", date(2018, 9, 10)),
    Venue("nyse", "FNYX", "N", "FINRA/NYSE TRF", date(2009, 8, 3)),
    Venue("adf", "FNRA", "D", "Alternative Display Facility (ADF)", date(2009, 8, 3)),
    Venue("orf", "FORF", "O", "OTC Reporting Facility (ORF, OTC equities)", date(2009, 8, 3)),
)}
FACILITIES = tuple(name for name in VENUES if name != "consolidated")
# The `venue` parameter: one file, or every facility's file (`all`: not the consolidated
# one, which is the sum of the TRFs' and the ADF's).
VENUE_CHOICES = (*VENUES, "all")
DEFAULT_VENUE = "consolidated"

# -- windows ------------------------------------------------------------------------------------
DEFAULT_VOLUME_SESSIONS = 20  # the default window: the latest 20 trading days
MAX_VOLUME_WINDOW_DAYS = 90  # end - start, calendar days, one venue
MAX_ALL_VENUES_WINDOW_DAYS = 30  # with venue=all: five files a day
DEFAULT_INTEREST_WINDOW_DAYS = 365
MAX_INTEREST_WINDOW_DAYS = 1830  # five years: about 120 settlement dates
# FINRA posts each day's files by 6 pm ET; they are asked for once the session has closed.
PUBLICATION_TIME_ET = "18:00"


def now() -> datetime:
    """The current instant (UTC): what the windows count back from (tests replace it)."""
    return datetime.now(UTC)


def today_et(at: datetime | None = None) -> date:
    """The day in New York at ``at`` (default :func:`now`): the market's day."""
    return (at or now()).astimezone(markets.EASTERN).date()


def closed_session(day: date, at: datetime) -> bool:
    """Whether ``day`` is a trading day whose session has closed by ``at``: the only days
    with a file worth asking for (FINRA posts it after the close, by 6 pm ET)."""
    session = markets.session_day(day)
    return session.is_session and session.close is not None and session.close <= at


def latest_closed_session(at: datetime) -> date:
    """The newest trading day closed by ``at``."""
    day = today_et(at)
    while not closed_session(day, at):
        day -= timedelta(days=1)
    return day


def default_volume_start(end: date, at: datetime) -> date:
    """The first day of the default window ending ``end``: the
    :data:`DEFAULT_VOLUME_SESSIONS`-th closed session counting back from ``end``."""
    day = min(end, latest_closed_session(at))
    found = 0
    while True:
        if closed_session(day, at):
            found += 1
            if found == DEFAULT_VOLUME_SESSIONS:
                return day
        day -= timedelta(days=1)


def volume_sessions(start: date, end: date, at: datetime) -> list[date]:
    """The trading days of ``[start, end]`` whose session has closed by ``at``, oldest
    first: weekends and exchange holidays (the NYSE calendar) are never asked for."""
    days = []
    day = start
    last = min(end, today_et(at))
    while day <= last:
        if closed_session(day, at):
            days.append(day)
        day += timedelta(days=1)
    return days


# -- records ------------------------------------------------------------------------------------
_SHARES = "shares (FINRA writes fractional shares where traded)"


@dataclass(frozen=True)
class ShortVolumeRow:
    """One trading day's short sale volume of a symbol in one venue's file."""

    date: str = member("Trade date, `YYYY-MM-DD`", always=True, schema=_DATE)
    venue: str = member("Which file: `consolidated` or a facility (`nasdaq-carteret`, "
                        "`nasdaq-chicago`, `nyse`, `adf`, `orf`)")
    short_volume: float | None = member(
        f"Short sale volume, {_SHARES}: FINRA's ShortVolume, which includes the "
        "short-exempt volume")
    short_exempt_volume: float | None = member(
        f"Short sale exempt volume, {_SHARES}; null in files before 2011-02-28 (the column "
        "did not exist)")
    total_volume: float | None = member(
        f"Volume of every trade reported to the venue that day, {_SHARES}: off-exchange "
        "volume, not the consolidated tape's")
    ratio: float | None = member("shortVolume / totalVolume, a fraction 0..1 (4 decimals); "
                                 "null when totalVolume is 0 or missing")
    market: str | None = member("FINRA's Market column: the facility codes (Q Nasdaq TRF "
                                "Carteret, B Nasdaq TRF Chicago, N NYSE TRF, D ADF, O ORF) "
                                "that reported trades, comma-separated in the consolidated "
                                "file")


@dataclass(frozen=True)
class ShortVolume:
    """A symbol's daily short sale volume over a window of trading days."""

    symbol: str = member("The symbol asked for")
    venue: str = member("The `venue` asked for: `consolidated`, a facility, or `all`")
    start: str = member("First day of the window, `YYYY-MM-DD`", schema=_DATE)
    end: str = member("Last day of the window, `YYYY-MM-DD`", schema=_DATE)
    rows: list[ShortVolumeRow] = member()
    notices: list[str] = member("Days of the window left out and why: a file FINRA has not "
                                "published yet, one that could not be read (the answer is "
                                "partial then); empty when every trading day was read")


@dataclass(frozen=True)
class ShortInterestRow:
    """The short position in a security as of one settlement date, as FINRA publishes it."""

    settlement_date: str = member("Settlement date the positions are as of, `YYYY-MM-DD` "
                                  "(mid-month and month end)", always=True, schema=_DATE)
    shares_short: int | None = member("Shares held short (FINRA's "
                                      "currentShortPositionQuantity)")
    previous_shares_short: int | None = member("Shares held short at the previous settlement "
                                               "date, as revised (previousShortPositionQuantity)")
    change: int | None = member("sharesShort - previousSharesShort, shares "
                                "(changePreviousNumber)")
    change_percent: float | None = member("The change in percent of previousSharesShort "
                                          "(changePercent: 11.11 is 11.11 %)")
    average_daily_volume: int | None = member("Average daily share volume over the "
                                              "reporting period (averageDailyVolumeQuantity)")
    days_to_cover: float | None = member("sharesShort / averageDailyVolume, days "
                                         "(daysToCoverQuantity; FINRA caps it at 999.99)")
    stock_split: bool = member("A split took place in the cycle (stockSplitFlag `S`)")
    revised: bool = member("The previous cycle's position was revised (revisionFlag `R`)")
    market: str | None = member("FINRA's market class code of the security "
                                "(marketClassCode, e.g. `NNM`, `NYSE`, `OTC`)")


@dataclass(frozen=True)
class ShortInterest:
    """A security's short interest at each settlement date of a window."""

    symbol: str = member("The symbol asked for")
    name: str | None = member("The issue's name as FINRA writes it (newest settlement)")
    start: str = member("First day of the window, `YYYY-MM-DD`", schema=_DATE)
    end: str = member("Last day of the window, `YYYY-MM-DD`", schema=_DATE)
    settlements: list[ShortInterestRow] = member()
