"""The sandbox's one U.S. Treasury par yield curve: every business day 1990..2040.

Why one function: the Treasury yield CSV and FRED's constant-maturity series (DGS10,
DGS2, ..., SOFR, DFF) are built from the same table, so DGS10 in the FRED sandbox equals
``10 Yr`` in the Treasury sandbox on every date both have.

How: a Nelson-Siegel curve ``y(t) = b0 + b1 f1(t) + b2 f2(t)`` whose short end (~3 months)
and 10-year point follow anchor levels close to the real history (8% in 1990, near zero in
2009-2015 and 2020-2021, 5% in 2023...), plus slow mean-reverting deviations drawn once
from a numpy generator seeded by sha256 of a fixed name, so every run and process gets the
same numbers and a given day never changes. Yields are rounded to 2 decimals as Treasury
publishes them and never negative. Business days are weekdays except U.S. federal
holidays (pandas' ``USFederalHolidayCalendar``, the days the bond market and Treasury are
closed; Good Friday is not skipped). A maturity is blank outside the dates Treasury
published it (see ``TENORS``).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

import numpy as np

FIRST_DAY = date(1990, 1, 2)
LAST_DAY = date(2040, 12, 31)
# A day's curve is published in the evening, New York time.
PUBLISHED_AFTER = timedelta(hours=22)  # UTC, after the day's midnight
_LAMBDA = 1.8  # years: where the curvature term peaks


@dataclass(frozen=True)
class Tenor:
    """One maturity as Treasury's CSV heads it, in years, and when it was published."""

    header: str
    years: float
    first: date = FIRST_DAY
    gap: tuple[date, date] | None = None  # published again after the gap


TENORS: tuple[Tenor, ...] = (
    Tenor("1 Mo", 1 / 12, date(2001, 7, 31)),
    Tenor("1.5 Month", 1.5 / 12, date(2025, 2, 18)),
    Tenor("2 Mo", 2 / 12, date(2018, 10, 16)),
    Tenor("3 Mo", 3 / 12),
    Tenor("4 Mo", 4 / 12, date(2022, 10, 19)),
    Tenor("6 Mo", 6 / 12),
    Tenor("1 Yr", 1),
    Tenor("2 Yr", 2),
    Tenor("3 Yr", 3),
    Tenor("5 Yr", 5),
    Tenor("7 Yr", 7),
    Tenor("10 Yr", 10),
    Tenor("20 Yr", 20, date(1993, 10, 1)),
    Tenor("30 Yr", 30, gap=(date(2002, 2, 19), date(2006, 2, 8))),
)
TENOR_INDEX = {t.header: i for i, t in enumerate(TENORS)}

# (year, ~3-month yield, 10-year yield): the shape of the real history, interpolated.
_ANCHORS = (
    (1990.0, 7.9, 8.2), (1991.0, 6.4, 8.0), (1992.0, 3.9, 6.7), (1993.0, 3.0, 6.6),
    (1994.0, 3.0, 5.8), (1995.0, 5.7, 7.8), (1996.0, 5.0, 5.6), (1998.0, 5.1, 5.6),
    (1999.0, 4.5, 4.7), (2000.5, 5.9, 6.1), (2001.0, 5.8, 5.2), (2002.0, 1.7, 5.0),
    (2003.5, 0.9, 3.5), (2004.5, 1.4, 4.5), (2006.5, 5.0, 5.1), (2007.5, 4.9, 5.0),
    (2008.5, 1.8, 4.0), (2009.0, 0.1, 2.5), (2010.0, 0.05, 3.8), (2011.5, 0.03, 3.0),
    (2012.5, 0.08, 1.6), (2014.0, 0.05, 3.0), (2016.5, 0.3, 1.5), (2018.9, 2.3, 3.2),
    (2019.9, 1.55, 1.8), (2020.3, 0.1, 0.65), (2021.0, 0.08, 0.9), (2021.9, 0.05, 1.5),
    (2022.9, 4.3, 3.9), (2023.8, 5.5, 4.8), (2024.5, 5.4, 4.3), (2025.0, 4.3, 4.6),
    (2025.9, 3.8, 4.1), (2030.0, 3.3, 4.0), (2041.0, 3.5, 4.2),
)


def _loadings(years: float) -> tuple[float, float]:
    x = years / _LAMBDA
    f1 = (1 - math.exp(-x)) / x
    return f1, f1 - math.exp(-x)


@lru_cache(maxsize=1)
def business_days() -> np.ndarray:
    """Every business day of the table (datetime64[D], ascending)."""
    import pandas as pd
    from pandas.tseries.holiday import USFederalHolidayCalendar

    holidays = USFederalHolidayCalendar().holidays(FIRST_DAY, LAST_DAY)
    days = pd.bdate_range(FIRST_DAY, LAST_DAY)
    return days[~days.isin(holidays)].values.astype("datetime64[D]")


def ar1(shocks: np.ndarray, phi: float) -> np.ndarray:
    """``x[i] = phi * x[i-1] + shocks[i]`` from 0 (a plain loop: each series is built
    once per process, and a few thousand steps take milliseconds)."""
    out = np.empty(len(shocks))
    level = 0.0
    for i, shock in enumerate(shocks.tolist()):
        level = phi * level + shock
        out[i] = level
    return out


def _ar1(rng: np.random.Generator, n: int, phi: float, sd: float) -> np.ndarray:
    """A stationary AR(1) path with standard deviation ``sd``."""
    return ar1(rng.standard_normal(n) * sd * math.sqrt(1 - phi * phi), phi)


@lru_cache(maxsize=1)
def curve_table() -> np.ndarray:
    """Yields (percent, 2 decimals) per business day and tenor: shape (days, TENORS);
    NaN where Treasury did not publish the maturity."""
    days = business_days()
    n = len(days)
    seed = int.from_bytes(hashlib.sha256(b"sandbox treasury par yield curve").digest()[:8],
                          "big")
    rng = np.random.default_rng(seed)
    epoch = days.astype("datetime64[D]").astype(np.int64)  # days since 1970-01-01
    t = 1970.0 + epoch / 365.2425
    years, shorts, tens = (np.array(col, dtype=float) for col in zip(*_ANCHORS, strict=True))
    short = np.interp(t, years, shorts)
    ten = np.interp(t, years, tens)
    # Deviations: the short end moves less when rates are pinned near zero.
    short = short + _ar1(rng, n, 0.995, 0.35) * np.clip(short / 1.5, 0.05, 1.0)
    ten = ten + _ar1(rng, n, 0.995, 0.3)
    curvature = _ar1(rng, n, 0.99, 0.5)
    # Solve b0, b1 so that the 3-month and 10-year points hit short and ten.
    f1s, f2s = _loadings(0.25)
    f1t, f2t = _loadings(10.0)
    b1 = (short - ten - curvature * (f2s - f2t)) / (f1s - f1t)
    b0 = ten - b1 * f1t - curvature * f2t
    table = np.empty((n, len(TENORS)))
    for j, tenor in enumerate(TENORS):
        f1, f2 = _loadings(tenor.years)
        table[:, j] = np.maximum(np.round(b0 + b1 * f1 + curvature * f2, 2), 0.0)
        unpublished = days < np.datetime64(tenor.first, "D")
        if tenor.gap is not None:
            unpublished |= (days >= np.datetime64(tenor.gap[0], "D")) & \
                (days <= np.datetime64(tenor.gap[1], "D"))
        table[unpublished, j] = np.nan
    table.setflags(write=False)
    return table


def published_through(now: datetime) -> date:
    """The last day whose curve is out at ``now`` (its evening has passed)."""
    return (now.astimezone(UTC) - PUBLISHED_AFTER).date()


def day_index(day: date) -> int | None:
    """The row of ``day`` in :func:`curve_table`, None when it is no business day."""
    days = business_days()
    target = np.datetime64(day, "D")
    i = int(np.searchsorted(days, target))
    return i if i < len(days) and days[i] == target else None


def yields_on(day: date) -> dict[str, float | None] | None:
    """The curve of one day by header (None for a maturity not published then), or None
    when ``day`` is no business day."""
    i = day_index(day)
    if i is None:
        return None
    row = curve_table()[i]
    return {t.header: None if math.isnan(row[j]) else float(row[j])
            for j, t in enumerate(TENORS)}
