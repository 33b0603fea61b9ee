"""Disclosures: fails-to-deliver balances and congressional trades, as every source fills them.

The SEC publishes fails-to-deliver twice a month, one file per half month (settlement days
1-15, then 16 to the month's end); :func:`ftd_periods` names the latest ones, and
:func:`window_start` the first settlement day they cover, so a keyed source's rows can be
cut to the same window.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

from marketdata.records.members import member

Chamber = Literal["senate", "house"]

# A half month's file appears about two weeks after the period's last settlement day.
PUBLICATION_LAG_DAYS = 14
MAX_FTD_MONTHS = 12
DEFAULT_FTD_MONTHS = 3


@dataclass(frozen=True)
class FailToDeliver:
    """One settlement day's fails-to-deliver balance of a security (shares; ``price`` the
    previous day's close in USD)."""

    symbol: str = member("The symbol asked for")
    date: str | None = member("Settlement date, `YYYY-MM-DD`")
    quantity: int | None = member("Fails-to-deliver balance, shares (the aggregate "
                                  "outstanding that day, not the day's new fails)")
    price: float | None = member("Previous day's closing price, USD")
    name: str | None = member("Issuer as the SEC's file names it")
    description: str | None = member("The security's description in the source (the SEC "
                                     "file's DESCRIPTION)")
    cusip: str | None = member("CUSIP")


@dataclass(frozen=True)
class CongressionalTrade:
    """One periodic-transaction-report line of a member of Congress (the STOCK Act)."""

    symbol: str = member("The symbol asked for")
    chamber: Chamber = member("`senate` or `house`")
    first_name: str | None = member()
    last_name: str | None = member()
    office: str | None = member("The member's office as FMP names it (a senator's full "
                                "name)")
    district: str | None = member("A representative's district, e.g. `CA11`")
    trade_type: str | None = member("FMP's `type`, e.g. `Purchase`, `Sale (Full)`, `Sale "
                                    "(Partial)`, `Exchange`")
    amount: str | None = member("The disclosed value range, e.g. `$1,001 - $15,000`")
    asset_description: str | None = member()
    asset_type: str | None = member()
    owner: str | None = member("Whose account: `Self`, `Spouse`, `Joint`, `Child`")
    transaction_date: str | None = member("`YYYY-MM-DD`")
    disclosure_date: str | None = member("`YYYY-MM-DD`")
    link: str | None = member("The filed report")


@dataclass(frozen=True, order=True)
class HalfMonth:
    """One fails-to-deliver file's period: ``half`` is ``a`` (days 1-15) or ``b`` (16-end)."""

    year: int
    month: int
    half: str

    @property
    def first_day(self) -> date:
        return date(self.year, self.month, 1 if self.half == "a" else 16)

    @property
    def last_day(self) -> date:
        end = 15 if self.half == "a" else calendar.monthrange(self.year, self.month)[1]
        return date(self.year, self.month, end)

    @property
    def name(self) -> str:
        return f"{self.year:04d}{self.month:02d}{self.half}"

    def previous(self) -> HalfMonth:
        if self.half == "b":
            return HalfMonth(self.year, self.month, "a")
        year, month = (self.year, self.month - 1) if self.month > 1 else (self.year - 1, 12)
        return HalfMonth(year, month, "b")


def current_day() -> date:
    """Today in UTC: the day the windows count back from (tests replace it)."""
    return datetime.now(UTC).date()


def ftd_periods(today: date, months: int) -> list[HalfMonth]:
    """The ``2 * months`` latest half months whose file should be out by ``today``
    (:data:`PUBLICATION_LAG_DAYS` after the period's end), newest first."""
    period = HalfMonth(today.year, today.month, "b" if today.day > 15 else "a")
    while period.last_day + timedelta(days=PUBLICATION_LAG_DAYS) > today:
        period = period.previous()
    out = []
    for _ in range(2 * months):
        out.append(period)
        period = period.previous()
    return out


def window_start(today: date, months: int) -> date:
    """The first settlement day the ``months`` window covers (see :func:`ftd_periods`)."""
    return ftd_periods(today, months)[-1].first_day
