"""Risk-free rate and dividend yield for option pricing, as continuously compounded rates.

**Rate.** From one row of the Treasury's daily par yield curve (``YieldCurveRow``, the
``/v2/macro/treasury-yields`` answer: tenors 1M, 2M, 3M, 4M, 6M, 1Y, 2Y, 3Y, 5Y, 7Y, 10Y,
20Y, 30Y, par yields in percent; a null tenor is skipped):

1. each tenor's par yield y (a fraction) is converted to a continuously compounded rate:
   - bills (tenors under one year: 1M..6M) are quoted by the Treasury on a bond-equivalent
     basis but pay once, at maturity, so r = ln(1 + y t) / t for the tenor's t in years
     (simple interest over the bill's life, then continuous);
   - notes and bonds (1Y and longer) pay semi-annual coupons: r = 2 ln(1 + y/2) (a par
     yield read as the semi-annually compounded zero rate: the par/zero difference is
     below a basis point on a normal curve, and no bootstrap is done);
2. the continuous rates are interpolated **linearly in tenor** (years: 1M = 1/12 ... 30Y =
   30) at the option's T, and held flat beyond the shortest and longest tenors.

Tenors in years: 1M 1/12, 2M 2/12, 3M 3/12, 4M 4/12, 6M 6/12, then whole years. A row with
no value at all gives NaN (the pricing then answers NaN).

**Dividend yield.** The quote's annual dividend yield d (a fraction: Yahoo's quoteSummary
``dividendYield``, or the v7 quote's ``dividendYield`` divided by 100, which is in percent,
or ``trailingAnnualDividendYield``) becomes q = ln(1 + d): the yield is a year's cash
dividends over the price, i.e. an annually compounded rate, and the models want the
continuous rate that grows the same over a year. For 0.5 % the two differ by 1e-5; None,
NaN or a negative yield gives q = 0 (no dividends).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

# (member of YieldCurveRow, tenor in years), shortest first.
TENORS: tuple[tuple[str, float], ...] = (
    ("y1m", 1 / 12), ("y2m", 2 / 12), ("y3m", 3 / 12), ("y4m", 4 / 12), ("y6m", 6 / 12),
    ("y1", 1.0), ("y2", 2.0), ("y3", 3.0), ("y5", 5.0), ("y7", 7.0), ("y10", 10.0),
    ("y20", 20.0), ("y30", 30.0),
)


def continuous_from_par(par_percent: float, tenor: float) -> float:
    """The continuously compounded rate of a par yield in percent (module docstring)."""
    y = par_percent / 100.0
    if tenor < 1.0:
        return math.log1p(y * tenor) / tenor
    return 2.0 * math.log1p(y / 2.0)


def curve_points(row: object) -> tuple[np.ndarray, np.ndarray]:
    """(tenors in years, continuous rates) of a ``YieldCurveRow`` or a mapping of its
    member names (``y1m``...) or JSON names (``y1M``...) to percent, nulls skipped."""
    tenors, rates = [], []
    for name, tenor in TENORS:
        if isinstance(row, Mapping):
            value = row.get(name, row.get(name.replace("m", "M")))
        else:
            value = getattr(row, name, None)
        if value is None or not math.isfinite(float(value)):
            continue
        tenors.append(tenor)
        rates.append(continuous_from_par(float(value), tenor))
    return np.array(tenors, dtype=float), np.array(rates, dtype=float)


def risk_free_rate(row: object, T: float | Sequence[float] | np.ndarray) -> np.ndarray:
    """The continuous risk-free rate at each time to expiry T (years), from one curve row:
    linear in tenor, flat beyond the ends; NaN for a row with no yields or a NaN T."""
    tenors, rates = curve_points(row)
    t = np.asarray(T, dtype=float)
    if tenors.size == 0:
        return np.full(t.shape, np.nan)
    return np.interp(t, tenors, rates)


def dividend_yield(annual_yield: float | None) -> float:
    """The continuous dividend yield q = ln(1 + d) of an annual yield d (a fraction)."""
    if annual_yield is None or not math.isfinite(annual_yield) or annual_yield <= 0:
        return 0.0
    return math.log1p(annual_yield)
