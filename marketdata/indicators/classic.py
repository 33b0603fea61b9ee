"""The v1 indicators (besides SMA/EMA/WMA, which are :mod:`core`'s): pure functions over
float64 price arrays.

Every function takes arrays of equal length (oldest first) and returns arrays of that length
with NaN where the value is not defined yet (warm-up). Any number of bars is accepted (0, 1,
fewer than the period): the result is then all NaN, never an exception or a numpy warning.
A period below 1 is a programming error and raises ValueError.

Definitions are the textbook ones, which are also TA-Lib's except where noted in a function's
docstring (flat stochastic windows, RSI without any move, the smoothing seed of ADX's
directional indicators, MACD's fast EMA seed). Values an empty range or zero volume would
make 0/0 are decided explicitly (each docstring says which), never left to inf/NaN.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from marketdata.indicators import _kernels, core


class Stochastic(NamedTuple):
    k: np.ndarray
    d: np.ndarray


class Bands(NamedTuple):
    upper: np.ndarray
    middle: np.ndarray
    lower: np.ndarray


class Aroon(NamedTuple):
    up: np.ndarray
    down: np.ndarray


class Macd(NamedTuple):
    macd: np.ndarray
    signal: np.ndarray
    histogram: np.ndarray


class Supertrend(NamedTuple):
    value: np.ndarray
    trend: np.ndarray


class Ichimoku(NamedTuple):
    tenkan_sen: np.ndarray
    kijun_sen: np.ndarray
    chikou_span: np.ndarray
    senkou_span_a: np.ndarray
    senkou_span_b: np.ndarray


def _check_periods(**periods: int) -> None:
    for name, value in periods.items():
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")



def _stochastic_raw(high: np.ndarray, low: np.ndarray, close: np.ndarray,
                    window: int) -> np.ndarray:
    """Raw %K: where the close sits in the window's high-low range, 0-100; 50 when the range
    is empty (high == low over the whole window), the neutral value (TA-Lib gives 0)."""
    out = np.full(close.size, np.nan)
    start = core.first_valid(close)
    hh = core.rolling_max(high[start:], window)
    ll = core.rolling_min(low[start:], window)
    out[start:] = core.divide(100.0 * (close[start:] - ll), hh - ll, 50.0)
    return out


def vwma(close: np.ndarray, volume: np.ndarray, period: int) -> np.ndarray:
    """Volume-weighted moving average: sum(close * volume) / sum(volume) over ``period`` bars
    (TA-Lib's VWMA). A window without any volume has no weighted price: NaN."""
    _check_periods(period=period)
    weighted = core.rolling_sum(close * volume, period)
    return core.divide(weighted, core.rolling_sum(volume, period), np.nan)


def rsi(close: np.ndarray, period: int) -> np.ndarray:
    """Wilder's relative strength index (= TA-Lib's RSI).

    100 * G / (G + L), where G and L are Wilder averages (seeded with the mean of the first
    ``period`` changes) of the up and down moves; first value at bar ``period``. 100 when
    there are gains but no losses; 50 when there is no move at all (TA-Lib gives 0: a flat
    series is neither overbought nor oversold).
    """
    _check_periods(period=period)
    change = core.diff(close)
    gain = core.wilder(np.maximum(change, 0.0), period)   # NaN on bar 0 is kept
    loss = core.wilder(np.maximum(-change, 0.0), period)
    return core.divide(100.0 * gain, gain + loss, 50.0)


def stochastic(high: np.ndarray, low: np.ndarray, close: np.ndarray, period: int,
               smooth: int, signal_period: int) -> Stochastic:
    """Full stochastic oscillator (Lane): raw %K over ``period`` bars, k = SMA(smooth) of raw
    %K, d = SMA(signal_period) of k (= TA-Lib's STOCH with SMA smoothing, except that a flat
    window gives raw %K 50, TA-Lib 0)."""
    _check_periods(period=period, smooth=smooth, signal_period=signal_period)
    k = core.sma(_stochastic_raw(high, low, close, period), smooth)
    return Stochastic(k, core.sma(k, signal_period))


def stochastic_rsi(close: np.ndarray, period: int, stoch_period: int, smooth: int,
                   signal_period: int) -> Stochastic:
    """Stochastic RSI (Chande & Kroll) with full-stochastic smoothing: raw %K = where RSI(period)
    sits in the range of its last ``stoch_period`` values (50 when they are all equal),
    k = SMA(smooth) of raw %K, d = SMA(signal_period) of k. Windows only hold defined RSI
    values, so the first raw %K is at bar period + stoch_period - 1. With smooth = 1 this is
    TA-Lib's STOCHRSI (fastk, fastd)."""
    _check_periods(period=period, stoch_period=stoch_period, smooth=smooth,
                   signal_period=signal_period)
    r = rsi(close, period)
    k = core.sma(_stochastic_raw(r, r, r, stoch_period), smooth)
    return Stochastic(k, core.sma(k, signal_period))


def cci(high: np.ndarray, low: np.ndarray, close: np.ndarray, period: int) -> np.ndarray:
    """Lambert's commodity channel index (= TA-Lib's CCI): (TP - SMA(TP)) / (0.015 * mean
    absolute deviation of TP), TP = (H + L + C) / 3. 0 when the deviation is 0 (the typical
    price has not moved over the window, so it is not away from its mean)."""
    _check_periods(period=period)
    typical = (high + low + close) / 3.0
    mean = core.sma(typical, period)
    deviation = _kernels.mean_abs_deviation(typical, mean, period)
    out = core.divide(typical - mean, 0.015 * deviation, 0.0)
    # A flat window's running-sum mean can be an ulp off its value, which would leave a
    # residue/residue ratio instead of 0: detect flat windows exactly.
    out[core.rolling_max(typical, period) == core.rolling_min(typical, period)] = 0.0
    return out


def obv(close: np.ndarray, volume: np.ndarray) -> np.ndarray:
    """Granville's on-balance volume (= TA-Lib's OBV): starts at the first bar's volume, then
    adds the volume on an up close, subtracts it on a down close, keeps it on an equal one."""
    out = np.full(close.size, np.nan)
    if close.size:
        out[0] = volume[0]
        out[1:] = volume[0] + np.cumsum(np.sign(np.diff(close)) * volume[1:])
    return out


def bollinger_bands(close: np.ndarray, period: int, std_dev: float) -> Bands:
    """Bollinger bands (= TA-Lib's BBANDS with SMA): middle = SMA(period), upper/lower =
    middle +/- std_dev * the population standard deviation of the window (as Bollinger
    defines them)."""
    _check_periods(period=period)
    middle = core.sma(close, period)
    width = std_dev * core.rolling_std(close, period, ddof=0)
    return Bands(middle + width, middle, middle - width)


def aroon(high: np.ndarray, low: np.ndarray, period: int) -> Aroon:
    """Chande's Aroon (= TA-Lib's AROON): up = 100 * (period - bars since the highest high) /
    period over the last period + 1 bars (the extreme ``period`` bars ago scores 0), ties to
    the most recent bar; down likewise with the lowest low. First value at bar ``period``."""
    _check_periods(period=period)
    since_high = core.bars_since_extreme(high, period + 1, True)
    since_low = core.bars_since_extreme(low, period + 1, False)
    return Aroon(100.0 * (period - since_high) / period, 100.0 * (period - since_low) / period)


def adx(high: np.ndarray, low: np.ndarray, close: np.ndarray, period: int) -> np.ndarray:
    """Wilder's average directional index.

    +DM / -DM: the bar's up move (high - previous high) or down move (previous low - low)
    when it is positive and the larger of the two, else 0. DI = 100 * Wilder(DM) / ATR, the
    Wilder averages seeded with the mean of bars 1..period (Wilder's worksheet; as ATR).
    DX = 100 * |DI+ - DI-| / (DI+ + DI-), 0 when both are 0 (no directional move yet);
    ADX = Wilder(DX), its first value the mean of the first ``period`` DX, at bar
    2 * period - 1 (TA-Lib's ADX). TA-Lib seeds the DM and TR averages with bars
    1..period-1 only, so its early values differ; the difference decays by (1 - 1/period)
    a bar (below 1e-6 relative about 200 bars later for period 14).
    """
    _check_periods(period=period)
    up = np.full(close.size, np.nan)
    down = np.full(close.size, np.nan)
    if close.size > 1:
        rise = high[1:] - high[:-1]
        fall = low[:-1] - low[1:]
        up[1:] = np.where((rise > fall) & (rise > 0.0), rise, 0.0)
        down[1:] = np.where((fall > rise) & (fall > 0.0), fall, 0.0)
    atr = core.atr(high, low, close, period)
    plus = core.divide(100.0 * core.wilder(up, period), atr, 0.0)
    minus = core.divide(100.0 * core.wilder(down, period), atr, 0.0)
    dx = core.divide(100.0 * np.abs(plus - minus), plus + minus, 0.0)
    return core.wilder(dx, period)


def macd(close: np.ndarray, fast_period: int, slow_period: int,
         signal_period: int) -> Macd:
    """Appel's MACD: EMA(fast) - EMA(slow) of the close, each EMA seeded with the mean of its
    own first ``period`` closes; signal = EMA(signal_period) of the MACD line seeded with the
    mean of its first values; histogram = macd - signal. TA-Lib's MACD instead seeds the fast
    EMA on the slow EMA's bar (and starts all three lines there); it converges to this."""
    _check_periods(fast_period=fast_period, slow_period=slow_period,
                   signal_period=signal_period)
    line = core.ema(close, fast_period) - core.ema(close, slow_period)
    signal = core.ema(line, signal_period)
    return Macd(line, signal, line - signal)


@numba.njit(cache=True, nogil=True)
def _supertrend_kernel(high: np.ndarray, low: np.ndarray, close: np.ndarray,
                       atr: np.ndarray, multiplier: float) -> tuple[np.ndarray, np.ndarray]:
    """Seban's final-band carry-over from the first defined ATR on (see :func:`supertrend`)."""
    n = close.size
    value = np.full(n, np.nan)
    trend = np.full(n, np.nan)
    start = 0
    while start < n and np.isnan(atr[start]):
        start += 1
    if start >= n:
        return value, trend
    middle = (high[start] + low[start]) / 2.0
    upper = middle + multiplier * atr[start]
    lower = middle - multiplier * atr[start]
    rising = True
    value[start] = lower
    trend[start] = 1.0
    for i in range(start + 1, n):
        middle = (high[i] + low[i]) / 2.0
        basic_upper = middle + multiplier * atr[i]
        basic_lower = middle - multiplier * atr[i]
        if basic_upper < upper or close[i - 1] > upper:
            upper = basic_upper
        if basic_lower > lower or close[i - 1] < lower:
            lower = basic_lower
        if rising and close[i] < lower:
            rising = False
        elif not rising and close[i] > upper:
            rising = True
        value[i] = lower if rising else upper
        trend[i] = 1.0 if rising else -1.0
    return value, trend


def supertrend(high: np.ndarray, low: np.ndarray, close: np.ndarray, period: int,
               multiplier: float) -> Supertrend:
    """Seban's SuperTrend (= TA-Lib's SUPERTREND).

    Basic bands = (H + L) / 2 +/- multiplier * ATR(period) (Wilder). The final upper band
    only moves down unless the previous close was above it (then it resets to the basic
    band); the final lower band only moves up unless the previous close was below it. The
    trend starts up on the first ATR bar (bar ``period``) and flips down when a close is
    below the final lower band, up when a close is above the final upper band. value = the
    final lower band in an uptrend, the final upper band in a downtrend; trend = +1.0 up,
    -1.0 down, NaN in warm-up (TA-Lib: 0).
    """
    _check_periods(period=period)
    atr = core.atr(high, low, close, period)
    value, trend = _supertrend_kernel(high, low, close, atr, float(multiplier))
    return Supertrend(value, trend)


def _midpoint(high: np.ndarray, low: np.ndarray, window: int) -> np.ndarray:
    return (core.rolling_max(high, window) + core.rolling_min(low, window)) / 2.0


def ichimoku(high: np.ndarray, low: np.ndarray, close: np.ndarray, tenkan_period: int,
             kijun_period: int, senkou_period: int) -> Ichimoku:
    """Hosoda's Ichimoku Kinko Hyo, every line placed on the bar it is plotted at.

    tenkan / kijun = midpoint of the highest high and lowest low over tenkan_period /
    kijun_period bars; senkou span A = (tenkan + kijun) / 2 and span B = the midpoint over
    senkou_period bars, both displaced kijun_period bars forward (the value at bar t was
    computed at bar t - kijun_period); chikou = the close displaced kijun_period bars back
    (chikou at bar t = close[t + kijun_period], NaN on the last kijun_period bars).
    """
    _check_periods(tenkan_period=tenkan_period, kijun_period=kijun_period,
                   senkou_period=senkou_period)
    tenkan = _midpoint(high, low, tenkan_period)
    kijun = _midpoint(high, low, kijun_period)
    return Ichimoku(
        tenkan_sen=tenkan,
        kijun_sen=kijun,
        chikou_span=core.shift(close, -kijun_period),
        senkou_span_a=core.shift((tenkan + kijun) / 2.0, kijun_period),
        senkou_span_b=core.shift(_midpoint(high, low, senkou_period), kijun_period),
    )
