"""Compiled loops for the recursive and windowed parts of the indicators.

Recursive smoothers (EMA, Wilder), rolling extremes and Parabolic SAR are sequential by
nature: written as Python loops they cost 0.3-1 ms per 2,500 bars, 50-100x TA-Lib's C. numba
compiles these few loops to machine code once (``cache=True`` keeps the compiled code in
``__pycache__`` across processes), which puts them on par with TA-Lib. Every kernel takes and
returns float64 arrays and writes NaN where a value is not defined yet; nothing here knows
about indicators' parameters or defaults (that is :mod:`marketdata.indicators.core`).
"""

from __future__ import annotations

import numba
import numpy as np

_jit = numba.njit(cache=True, nogil=True)


@_jit
def recursive_mean(x: np.ndarray, alpha: float, start: int, seed: float) -> np.ndarray:
    """out[start] = seed, then out[i] = out[i-1] + alpha * (x[i] - out[i-1]).

    The same update TA-Lib's EMA uses, so results agree to the last bits; ``alpha`` 2/(n+1)
    gives an EMA, 1/n Wilder's smoothing.
    """
    out = np.full(x.size, np.nan)
    if start >= x.size:
        return out
    value = seed
    out[start] = value
    for i in range(start + 1, x.size):
        value = value + alpha * (x[i] - value)
        out[i] = value
    return out


@_jit
def rolling_extreme_index(x: np.ndarray, window: int, highest: bool) -> np.ndarray:
    """Position of the max (or min) of each trailing window of ``window`` values; a tie goes
    to the most recent bar (as TA-Lib's MAX/MIN/AROON); -1 before the first full window.
    Amortised O(n): the window is rescanned only when its extreme drops out."""
    n = x.size
    out = np.full(n, -1, dtype=np.int64)
    best_idx = -1
    best = 0.0
    for i in range(n):
        first = i - window + 1
        if best_idx < first or best_idx < 0:
            best_idx = max(first, 0)
            best = x[best_idx]
            for j in range(best_idx + 1, i + 1):
                if (x[j] >= best) if highest else (x[j] <= best):
                    best = x[j]
                    best_idx = j
        elif (x[i] >= best) if highest else (x[i] <= best):
            best = x[i]
            best_idx = i
        if first >= 0:
            out[i] = best_idx
    return out


@_jit
def mean_abs_deviation(x: np.ndarray, means: np.ndarray, window: int) -> np.ndarray:
    """Mean |x - mean| over each trailing window, where ``means`` holds that window's mean
    (NaN where it is not defined)."""
    n = x.size
    out = np.full(n, np.nan)
    for i in range(window - 1, n):
        m = means[i]
        if np.isnan(m):
            continue
        total = 0.0
        for j in range(i - window + 1, i + 1):
            total += abs(x[j] - m)
        out[i] = total / window
    return out


@_jit
def parabolic_sar(high: np.ndarray, low: np.ndarray, step: float,
                  maximum: float) -> np.ndarray:
    """Wilder's Parabolic SAR, as TA-Lib's SAR computes it.

    The first position is short when bar 1's -DM is positive (the low fell more than the
    high rose), long otherwise; SAR starts at bar 0's extreme; reversals are tested against
    the bar's high/low and SAR never enters the prior two bars' range. First value at bar 1.
    """
    n = high.size
    out = np.full(n, np.nan)
    if n < 2:
        return out
    down_move = low[0] - low[1]
    up_move = high[1] - high[0]
    is_long = not (down_move > 0 and down_move > up_move)
    af = step
    if is_long:
        ep = high[1]
        sar = low[0]
    else:
        ep = low[1]
        sar = high[0]
    new_low = low[1]
    new_high = high[1]
    for today in range(1, n):
        prev_low = new_low
        prev_high = new_high
        new_low = low[today]
        new_high = high[today]
        if is_long:
            if new_low <= sar:
                is_long = False
                sar = max(ep, prev_high, new_high)
                out[today] = sar
                af = step
                ep = new_low
                sar = max(sar + af * (ep - sar), prev_high, new_high)
            else:
                out[today] = sar
                if new_high > ep:
                    ep = new_high
                    af = min(af + step, maximum)
                sar = min(sar + af * (ep - sar), prev_low, new_low)
        else:
            if new_high >= sar:
                is_long = True
                sar = min(ep, prev_low, new_low)
                out[today] = sar
                af = step
                ep = new_high
                sar = min(sar + af * (ep - sar), prev_low, new_low)
            else:
                out[today] = sar
                if new_low < ep:
                    ep = new_low
                    af = min(af + step, maximum)
                sar = max(sar + af * (ep - sar), prev_high, new_high)
    return out


@_jit
def mcginley_dynamic(x: np.ndarray, period: int, start: int, seed: float) -> np.ndarray:
    """McGinley Dynamic: md += (p - md) / (period * (p / md)^4), seeded at ``start``."""
    out = np.full(x.size, np.nan)
    if start >= x.size:
        return out
    md = seed
    out[start] = md
    for i in range(start + 1, x.size):
        if md != 0.0:
            md = md + (x[i] - md) / (period * (x[i] / md) ** 4)
        out[i] = md
    return out


@_jit
def weighted_mean(x: np.ndarray, period: int, start: int) -> np.ndarray:
    """Linearly weighted mean of each trailing window of ``period`` values (the newest
    weighs ``period``), from ``start`` (the first defined value) on.

    Running sums as TA-Lib's WMA: the weighted sum gains period * x[i] and loses the
    previous window's plain sum each bar. Values are taken relative to x[start] so the
    running sums stay at the data's own scale (no drift on long series).
    """
    n = x.size
    out = np.full(n, np.nan)
    if period < 1 or start + period > n:
        return out
    ref = x[start]
    plain = 0.0
    weighted = 0.0
    for k in range(period):
        value = x[start + k] - ref
        plain += value
        weighted += (k + 1) * value
    divisor = period * (period + 1) / 2.0
    out[start + period - 1] = weighted / divisor + ref
    for i in range(start + period, n):
        value = x[i] - ref
        weighted += period * value - plain
        plain += value - (x[i - period] - ref)
        out[i] = weighted / divisor + ref
    return out
