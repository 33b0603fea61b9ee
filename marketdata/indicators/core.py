"""Building blocks shared by every indicator: moving averages, smoothers, windows, ranges.

Conventions (the indicators rely on them):

- Inputs and outputs are float64 arrays of the input's length, oldest first.
- A value that is not defined yet (warm-up) is NaN. An input may itself start with NaNs
  (a signal line over a MACD line, an SMA over an RSI); each block starts counting its own
  window at the input's first defined value, so warm-ups add up the textbook way. Inputs
  never have NaNs after their first defined value.
- Windows include the current bar: ``sma(x, 3)[i]`` averages ``x[i-2..i]``.
"""

from __future__ import annotations

import numpy as np

from marketdata.indicators import _kernels


def first_valid(x: np.ndarray) -> int:
    """Index of the first non-NaN value; ``len(x)`` when there is none."""
    valid = ~np.isnan(x)
    return int(valid.argmax()) if valid.any() else int(x.size)


def _window_sums(x: np.ndarray, window: int) -> tuple[np.ndarray, int]:
    """Trailing sums of ``window`` values of ``x`` from its first defined value.

    Sums are differences of one cumulative sum taken around a reference value, so their
    rounding error stays near the data's own scale instead of growing with the series'
    running total (the same running-total method TA-Lib uses, made drift-free).
    Returns (sums, index of the first full window); sums before it are NaN.
    """
    start = first_valid(x)
    out = np.full(x.size, np.nan)
    first_full = start + window - 1
    if window < 1 or first_full >= x.size:
        return out, x.size
    tail = x[start:]
    ref = tail[0]
    csum = np.cumsum(tail - ref)
    sums = csum[window - 1:].copy()
    sums[1:] -= csum[:-window]
    out[first_full:] = sums + ref * window
    return out, first_full


def rolling_sum(x: np.ndarray, window: int) -> np.ndarray:
    """Sum of each trailing window; exactly 0 where every value of the window is 0.

    A difference of cumulative sums leaves a rounding residue (1e-12 on prices, 1e-5 on
    volumes) where the true sum is 0, and a ratio of two residues (money flow over a flat
    stretch, a VWMA over untraded bars) can be any number. Counting each window's non-zero
    values (exact small integers) restores the exact zeros.
    """
    sums, first_full = _window_sums(x, window)
    if first_full < x.size:
        active = np.cumsum(x != 0)  # NaN counts as non-zero: its windows stay NaN
        active[window:] -= active[:-window].copy()
        sums[first_full:][active[first_full:] == 0] = 0.0
    return sums


def divide(numerator: np.ndarray, denominator: np.ndarray, empty: float) -> np.ndarray:
    """numerator / denominator, ``empty`` where the denominator is 0 (the value each
    indicator documents for an empty range or no volume), NaN where either is NaN; never
    warns."""
    out = np.full(numerator.shape, empty)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    out[np.isnan(numerator) | np.isnan(denominator)] = np.nan
    return out


def diff(x: np.ndarray) -> np.ndarray:
    """x[i] - x[i-1], NaN on the first bar."""
    out = np.full(x.size, np.nan)
    out[1:] = x[1:] - x[:-1]
    return out


def sma(x: np.ndarray, period: int) -> np.ndarray:
    """Simple moving average."""
    return _window_sums(x, period)[0] / period


def ema(x: np.ndarray, period: int, alpha: float | None = None) -> np.ndarray:
    """Exponential moving average, alpha = 2 / (period + 1) unless given.

    Seeded with the simple average of the first ``period`` defined values (placed on the
    last of them), the convention of TA-Lib and most charting packages.
    """
    start = first_valid(x)
    seed_index = start + period - 1
    if period < 1 or seed_index >= x.size:
        return np.full(x.size, np.nan)
    seed = float(np.mean(x[start:seed_index + 1]))
    weight = 2.0 / (period + 1) if alpha is None else alpha
    return _kernels.recursive_mean(x, weight, seed_index, seed)


def wilder(x: np.ndarray, period: int) -> np.ndarray:
    """Wilder's smoothing (an EMA with alpha = 1/period), seeded with a simple average."""
    return ema(x, period, alpha=1.0 / period)


def wma(x: np.ndarray, period: int) -> np.ndarray:
    """Linearly weighted moving average: the newest value weighs ``period``, the oldest 1."""
    return _kernels.weighted_mean(x, period, first_valid(x))


def _check_window(window: int) -> None:
    # The compiled kernels do not bounds-check: a window below 1 would read past the array.
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")


def _at(x: np.ndarray, index: np.ndarray) -> np.ndarray:
    return np.where(index >= 0, x[np.maximum(index, 0)], np.nan)


def rolling_max(x: np.ndarray, window: int) -> np.ndarray:
    """Highest value of each trailing window."""
    _check_window(window)
    return _at(x, _kernels.rolling_extreme_index(x, window, True))


def rolling_min(x: np.ndarray, window: int) -> np.ndarray:
    """Lowest value of each trailing window."""
    _check_window(window)
    return _at(x, _kernels.rolling_extreme_index(x, window, False))


def bars_since_extreme(x: np.ndarray, window: int, highest: bool) -> np.ndarray:
    """Bars between each bar and the max (or min) of its trailing ``window`` values, ties
    to the most recent bar; NaN before the first full window."""
    _check_window(window)
    index = _kernels.rolling_extreme_index(x, window, highest)
    return np.where(index >= 0, np.arange(x.size) - index, np.nan)


def rolling_std(x: np.ndarray, window: int, ddof: int = 0) -> np.ndarray:
    """Standard deviation of each trailing window (population by default, as Bollinger
    defined his bands and TA-Lib computes them)."""
    start = first_valid(x)
    out = np.full(x.size, np.nan)
    if window - ddof < 1 or start + window - 1 >= x.size:
        return out
    tail = x[start:]
    y = tail - tail.mean()  # centring keeps sum(y^2) - sum(y)^2/n away from cancellation
    s1, _ = _window_sums(y, window)
    s2, _ = _window_sums(y * y, window)
    var = (s2 - s1 * s1 / window) / (window - ddof)
    out[start:] = np.sqrt(np.maximum(var, 0.0))
    return out


def mean_abs_deviation(x: np.ndarray, window: int) -> np.ndarray:
    """Mean absolute deviation of each trailing window from that window's mean."""
    _check_window(window)
    return _kernels.mean_abs_deviation(x, sma(x, window), window)


def shift(x: np.ndarray, bars: int) -> np.ndarray:
    """The series moved ``bars`` later in time (negative: earlier), NaN where it is empty."""
    out = np.full(x.size, np.nan)
    if bars == 0:
        return x.copy()
    if abs(bars) < x.size:
        if bars > 0:
            out[bars:] = x[:-bars]
        else:
            out[:bars] = x[-bars:]
    return out


def true_range(high: np.ndarray, low: np.ndarray, close: np.ndarray) -> np.ndarray:
    """Wilder's true range; NaN on the first bar, which has no previous close (TA-Lib's
    TRANGE convention)."""
    out = np.full(close.size, np.nan)
    if close.size > 1:
        prev = close[:-1]
        out[1:] = np.maximum(high[1:], prev) - np.minimum(low[1:], prev)
    return out


def atr(high: np.ndarray, low: np.ndarray, close: np.ndarray, period: int) -> np.ndarray:
    """Average true range: Wilder's smoothing of the true range, first value at bar
    ``period`` (the mean of the true ranges of bars 1..period)."""
    return wilder(true_range(high, low, close), period)


def last(x: np.ndarray) -> float | None:
    """The value at the last bar, or None when it is not defined (NaN or no bars)."""
    if x.size == 0:
        return None
    value = float(x[-1])
    return None if np.isnan(value) else value
