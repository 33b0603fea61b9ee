"""The market-wide calendars by date (``/v2/calendars/...``): one row per event of a window
of days, whichever source dated it.

- earnings (:class:`EarningsRow`), splits (:class:`SplitRow`), IPOs (:class:`IpoRow`) and
  economic events (:class:`EconomicRow`) from Yahoo's calendar service (the
  ``v1/finance/visualization`` POST query, :mod:`marketdata.providers.yahoo.calendars`);
- economic events, when Yahoo's calendar fails, from the release calendar the service
  already reads for ``/v2/calendar`` (FRED's with its key, else the schedule the service
  computes): :func:`economic_rows` makes its rows;
- dividends (:class:`DividendRow`) from the chart events of the symbols asked for.

Dates are ISO days (``YYYY-MM-DD``); every number is a number (null where the source has
none). Each row's members are declared here once (schema, ``fields``, JSON, CSV).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from marketdata.records.members import member
from marketdata.records.releases import ReleaseDate, major_releases, scheduled_release_dates

# The longest window one request may ask for, in days (`end` - `start`).
MAX_WINDOW_DAYS = 90
# The default window: today and the next seven days.
DEFAULT_WINDOW_DAYS = 7

# An earnings event's time of day relative to the session, as the calendar states it.
Timing = Literal["BEFORE_OPEN", "AFTER_CLOSE", "UNKNOWN"]
TIMINGS: tuple[str, ...] = ("BEFORE_OPEN", "AFTER_CLOSE", "UNKNOWN")
# Yahoo's ``startdatetimetype``: BMO before market open, AMC after market close; TAS (a
# time as supplied, during the session or not said) and TNS (time not supplied): unknown.
YAHOO_TIMINGS: dict[str, str] = {"BMO": "BEFORE_OPEN", "AMC": "AFTER_CLOSE"}

Frequency = Literal["MONTHLY", "QUARTERLY", "SEMIANNUAL", "ANNUAL", "IRREGULAR"]

# The importance of the economic releases the fallback lists: each is one of the ten
# market-moving US releases (marketdata.records.releases.MAJOR_RELEASES).
MAJOR_IMPORTANCE = 3


@dataclass(frozen=True)
class EarningsRow:
    """One company's earnings announcement in the window."""

    symbol: str = member("Ticker symbol")
    name: str | None = member("Company name (short)")
    date: str = member("Announcement day, `YYYY-MM-DD`, in the exchange's time zone "
                       "(America/New_York for US listings)", schema={"format": "date"})
    timing: Timing = member("When in the day: `BEFORE_OPEN` (before the market opens), "
                            "`AFTER_CLOSE` (after it closes) or `UNKNOWN` (not supplied, "
                            "or during the session)")
    eps_estimate: float | None = member("Analysts' consensus EPS estimate, in the "
                                        "reporting currency per share")
    eps_actual: float | None = member("Reported EPS, in the reporting currency per share; "
                                      "null before the report")
    surprise_percent: float | None = member("(actual - estimate) / |estimate|, in percent "
                                            "(5.2 is 5.2 %); null before the report")
    market_cap: int | None = member("Market capitalisation (intraday), in the listing's "
                                    "currency")


@dataclass(frozen=True)
class DividendRow:
    """One cash dividend going ex in the window."""

    symbol: str = member("Ticker symbol")
    ex_date: str = member("Ex-dividend day, `YYYY-MM-DD` (the chart's event date, or the "
                          "calendar events' for the next dividend)",
                          schema={"format": "date"})
    pay_date: str | None = member("Payment day, `YYYY-MM-DD`, of the dividend the company's "
                                  "calendar events announce (the next, or the last paid); "
                                  "null for the others (the chart's events do not give it)",
                                  schema={"format": "date"})
    record_date: str | None = member("Record day, `YYYY-MM-DD`; null where the source does "
                                     "not give it (the chart's events do not)",
                                     schema={"format": "date"})
    amount: float | None = member(
        "Amount per share, in `currency` (adjusted for later splits, as the chart has it); "
        "null for the next dividend before its ex-date, whose day the company's calendar "
        "events announce but not its amount")
    currency: str | None = member("ISO 4217 currency of `amount` (the listing's trading "
                                  "currency)")
    frequency: Frequency | None = member(
        "The symbol's payment frequency from the median gap between its ex-dates over the "
        "last two years before this one: `MONTHLY` (up to 45 days), `QUARTERLY` (up to "
        "120), `SEMIANNUAL` (up to 240), `ANNUAL` (up to 500), else `IRREGULAR`; null "
        "without an earlier dividend in those two years")


@dataclass(frozen=True)
class SplitRow:
    """One stock split going ex in the window."""

    symbol: str = member("Ticker symbol")
    date: str = member("Ex-date (the first session traded split-adjusted), `YYYY-MM-DD`",
                       schema={"format": "date"})
    numerator: float = member("Shares after the split (4 of a 4-for-1)")
    denominator: float = member("Shares before the split (1 of a 4-for-1; the larger for a "
                                "reverse split)")
    ratio: str = member("numerator:denominator, e.g. `4:1`")
    optionable: bool | None = member("Whether the stock has listed options; null where the "
                                     "source does not say")


@dataclass(frozen=True)
class IpoRow:
    """One initial public offering dated in the window."""

    symbol: str | None = member("Ticker symbol the shares are (to be) listed under; null "
                                "when not yet known")
    name: str | None = member("Company name")
    exchange: str | None = member("Exchange short name (NASDAQ, NYSE, ...)")
    date: str = member("Expected or actual first trading day, `YYYY-MM-DD`",
                       schema={"format": "date"})
    price_low: float | None = member("Low end of the price range, in the offer's currency "
                                     "per share")
    price_high: float | None = member("High end of the price range, in the offer's currency "
                                      "per share")
    price: float | None = member("Offer price, per share; null until priced")
    shares: int | None = member("Shares offered")
    status: str | None = member("The deal's status as the source names it, upper case: "
                                "`EXPECTED`, `PRICED`, `FILED`, `AMENDED`, `WITHDRAWN`...")


@dataclass(frozen=True)
class EconomicRow:
    """One economic release or event in the window."""

    date: str = member("Day of the release, `YYYY-MM-DD` (UTC)", schema={"format": "date"})
    time: str | None = member("Time of the release, `HH:MM` UTC; null when the source gives "
                              "the day only")
    country: str | None = member("ISO 3166 country code, upper case (`US`, `DE`, ...); `EU` "
                                 "for the euro area where the source says so")
    event: str = member("The release or event's name")
    period: str | None = member("The period the release covers, as the source writes it "
                                "(`Nov`, `Q3`, ...)")
    actual: float | None = member("The released value, in `unit`; null before the release")
    forecast: float | None = member("The consensus estimate, in `unit`")
    prior: float | None = member("The previous release's value, in `unit`")
    unit: str | None = member("Unit of `actual`, `forecast` and `prior`; null where the "
                              "source does not state it (Yahoo's calendar does not: most "
                              "of its values are percent changes or levels as published)")
    importance: int | None = member(
        "1 (low) to 3 (high); null where the source does not rate it. The fallback lists "
        "only the ten market-moving US releases, each 3")


def economic_rows(releases: Iterable[ReleaseDate]) -> list[EconomicRow]:
    """The economic calendar's rows of release dates (the fallback's: days only, US, no
    values)."""
    return [EconomicRow(date=row.date, time=None, country="US", event=row.name, period=None,
                        actual=None, forecast=None, prior=None, unit=None,
                        importance=MAJOR_IMPORTANCE)
            for row in major_releases(releases)]


def scheduled_economic_events(start: str, end: str) -> list[EconomicRow]:
    """The ``economic_calendar`` capability's keyless last source: the release schedule the
    service computes (weekly claims, the Employment Situation, FOMC statements), as rows."""
    return economic_rows(scheduled_release_dates(start, end))


def split_ratio(numerator: float, denominator: float) -> str:
    """``4:1``; ``3:2``; ``1:10`` (integers written without a fraction)."""

    def text(value: float) -> str:
        return str(int(value)) if float(value).is_integer() else repr(float(value))

    return f"{text(numerator)}:{text(denominator)}"
