"""The v2 indicator set's own indicators (those the v1 functions do not already cover).

Every function takes float64 arrays (oldest first) and returns arrays of the input's length,
NaN where the value is not defined yet; multi-line indicators return a NamedTuple of arrays.
Definitions follow the textbook and, where TA-Lib defines the indicator, TA-Lib's numbers
(the tests compare them bar by bar). Where an input gives 0/0 (a flat window, no volume) the
function returns the indicator's neutral value or NaN, as each docstring says, never inf.
Moving averages, windows, true range and ATR come from :mod:`marketdata.indicators.core`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from marketdata.indicators import _kernels, core

_jit = numba.njit(cache=True, nogil=True)


# --------------------------------------------------------------------------------------------
# Results


class BullBearPower(NamedTuple):
    bull_power: np.ndarray
    bear_power: np.ndarray


class Channels(NamedTuple):
    upper: np.ndarray
    middle: np.ndarray
    lower: np.ndarray


class PivotPoints(NamedTuple):
    pivot: np.ndarray
    r1: np.ndarray
    r2: np.ndarray
    r3: np.ndarray
    s1: np.ndarray
    s2: np.ndarray
    s3: np.ndarray


class HeikinAshi(NamedTuple):
    open: np.ndarray
    high: np.ndarray
    low: np.ndarray
    close: np.ndarray


class ZigzagPivot(NamedTuple):
    # position in the input arrays (the name shadows tuple.index; callers read .index)
    index: int  # type: ignore[assignment]
    price: float
    is_high: bool


class FibonacciRetracement(NamedTuple):
    swing_high: np.ndarray
    swing_low: np.ndarray
    level236: np.ndarray
    level382: np.ndarray
    level50: np.ndarray
    level618: np.ndarray
    level786: np.ndarray


# --------------------------------------------------------------------------------------------
# Small helpers





def _money_flow_multiplier(high: np.ndarray, low: np.ndarray, close: np.ndarray) -> np.ndarray:
    """Chaikin's close location value ((C-L) - (H-C)) / (H-L) in [-1, 1]; 0 when H == L."""
    return core.divide((close - low) - (high - close), high - low, 0.0)


# --------------------------------------------------------------------------------------------
# Moving averages


def dema(x: np.ndarray, period: int) -> np.ndarray:
    """Mulloy's double EMA, 2*EMA - EMA(EMA): cancels most of the EMA's lag.

    Each EMA is core.ema (seeded with the SMA of its input's first ``period`` defined
    values), as TA-Lib's DEMA; first value at bar 2*(period-1).
    """
    e1 = core.ema(x, period)
    return 2.0 * e1 - core.ema(e1, period)


def tema(x: np.ndarray, period: int) -> np.ndarray:
    """Mulloy's triple EMA, 3*E1 - 3*E2 + E3 (E2 = EMA of E1, E3 = EMA of E2), as TA-Lib's
    TEMA; first value at bar 3*(period-1)."""
    e1 = core.ema(x, period)
    e2 = core.ema(e1, period)
    return 3.0 * (e1 - e2) + core.ema(e2, period)


def hma(x: np.ndarray, period: int) -> np.ndarray:
    """Hull moving average, WMA_{floor(sqrt n)}(2*WMA_{floor(n/2)} - WMA_n).

    The difference extrapolates the half-length WMA ahead of the full one (less lag), the
    short final WMA smooths it. floor(n/2) and floor(sqrt(n)) are TA-Lib's HMA roundings
    (HMA21 uses WMA10 and WMA4); both are at least 1.
    """
    half = core.wma(x, max(period // 2, 1))
    full = core.wma(x, period)
    return core.wma(2.0 * half - full, max(math.isqrt(max(period, 0)), 1))


def alma(x: np.ndarray, period: int = 9, offset: float = 0.85,
         sigma: float = 6.0) -> np.ndarray:
    """Arnaud Legoux moving average: a Gaussian-weighted window.

    Weights w_i = exp(-(i - m)^2 / (2 s^2)) for i = 0 (oldest) .. n-1, m = offset*(n-1),
    s = n/sigma; value = sum(w_i x_i) / sum(w_i). The Gaussian centred near the newest bar
    (offset 0.85) trades a little smoothness for much less lag. No TA-Lib counterpart.
    """
    start = core.first_valid(x)
    out = np.full(x.size, np.nan)
    if period < 1 or start + period - 1 >= x.size:
        return out
    i = np.arange(period, dtype=np.float64)
    m = offset * (period - 1)
    s = period / sigma
    w = np.exp(-((i - m) ** 2) / (2.0 * s * s))
    # np.convolve flips its kernel, so the reversed weights put w_0 on the oldest bar.
    out[start + period - 1:] = np.convolve(x[start:], w[::-1] / w.sum(), mode="valid")
    return out


def mcginley_dynamic(x: np.ndarray, period: int) -> np.ndarray:
    """McGinley Dynamic: md += (p - md) / (n * (p/md)^4), seeded with the SMA at bar n-1.

    A moving average whose speed adapts to the market: the (p/md)^4 term slows it when the
    price runs above it and speeds it up when the price falls below. Defined for non-zero
    prices: from a zero price on (where the update divides by zero) the values are NaN.
    """
    start = core.first_valid(x)
    seed_index = start + period - 1
    if period < 1 or seed_index >= x.size:
        return np.full(x.size, np.nan)
    seed = float(np.mean(x[start:seed_index + 1]))
    zeros = np.flatnonzero(x[seed_index + 1:] == 0.0)
    if zeros.size == 0:
        return _kernels.mcginley_dynamic(x, period, seed_index, seed)
    stop = seed_index + 1 + int(zeros[0])
    out = np.full(x.size, np.nan)
    out[:stop] = _kernels.mcginley_dynamic(x[:stop], period, seed_index, seed)
    return out


# --------------------------------------------------------------------------------------------
# Momentum


def williams_r(high: np.ndarray, low: np.ndarray, close: np.ndarray,
               period: int = 14) -> np.ndarray:
    """Williams %R = -100 * (HH - C) / (HH - LL) over ``period`` bars, in [-100, 0].

    As TA-Lib's WILLR, except a window with HH == LL: -50 (the middle of the range, as the
    stochastic's 50 for the same window: the close is neither high nor low), TA-Lib gives 0.
    """
    hh = core.rolling_max(high, period)
    ll = core.rolling_min(low, period)
    return core.divide(-100.0 * (hh - close), hh - ll, -50.0)


def roc(x: np.ndarray, period: int = 12) -> np.ndarray:
    """Rate of change in percent, 100 * (x - x[-n]) / x[-n] (TA-Lib's ROC).

    A zero base price gives 0 (TA-Lib's value), so a bad print leaves no hole that a
    smoother of the ROC (Coppock) would carry for its whole window.
    """
    base = core.shift(x, period)
    return core.divide(100.0 * (x - base), base, 0.0)


def momentum(x: np.ndarray, period: int = 10) -> np.ndarray:
    """Momentum, x - x[-n] (TA-Lib's MOM)."""
    return x - core.shift(x, period)


def cmo(x: np.ndarray, period: int = 14) -> np.ndarray:
    """Chande momentum oscillator, 100 * (Su - Sd) / (Su + Sd), with Su and Sd the plain sums
    of the up and down moves of the last ``period`` changes (Chande's definition; TA-Lib's
    CMOU). TA-Lib's CMO smooths Su and Sd with Wilder's average instead (it is 2*RSI - 100).
    No moves at all: 0.

    Computed as 100 * (x - x[-n]) / sum|change|: Su - Sd telescopes to the n-bar momentum
    and Su + Sd is the sum of absolute changes, so one window sum does. The numerator is
    exact, so a flat window gives exactly 0 whatever rounding residue the sum keeps.
    """
    moves = core.rolling_sum(np.abs(core.diff(x)), period)  # bar 0's change is NaN: from bar 1
    return core.divide(100.0 * (x - core.shift(x, period)), moves, 0.0)


def awesome_oscillator(high: np.ndarray, low: np.ndarray, fast: int = 5,
                       slow: int = 34) -> np.ndarray:
    """Bill Williams' awesome oscillator, SMA_fast(median) - SMA_slow(median), median =
    (H + L) / 2 (TA-Lib's AO)."""
    median = (high + low) / 2.0
    return core.sma(median, fast) - core.sma(median, slow)


def coppock_curve(x: np.ndarray, long_roc: int = 14, short_roc: int = 11,
                  wma_period: int = 10) -> np.ndarray:
    """Coppock curve, WMA_wma(ROC_long + ROC_short) (TA-Lib's COPPOCK); first value at bar
    max(long_roc, short_roc) + wma_period - 1."""
    total = roc(x, long_roc) + roc(x, short_roc)
    return core.wma(total, wma_period)


def bull_bear_power(high: np.ndarray, low: np.ndarray, close: np.ndarray,
                    period: int = 13) -> BullBearPower:
    """Elder ray: bull power = H - EMA_n(C), bear power = L - EMA_n(C): how far buyers and
    sellers pushed the price from its consensus value. No TA-Lib counterpart."""
    mean = core.ema(close, period)
    return BullBearPower(high - mean, low - mean)


def balance_of_power(open_: np.ndarray, high: np.ndarray, low: np.ndarray,
                     close: np.ndarray) -> np.ndarray:
    """Balance of power, (C - O) / (H - L) of each bar, unsmoothed; 0 when H == L (TA-Lib's
    BOP)."""
    return core.divide(close - open_, high - low, 0.0)


# --------------------------------------------------------------------------------------------
# Trend and volatility


def parabolic_sar(high: np.ndarray, low: np.ndarray, step: float = 0.02,
                  maximum: float = 0.2) -> np.ndarray:
    """Wilder's parabolic SAR, exactly TA-Lib's SAR (see _kernels.parabolic_sar): reversals
    tested against the bar's high/low, SAR never inside the prior two bars' range, first value
    at bar 1."""
    return _kernels.parabolic_sar(np.asarray(high, dtype=np.float64),
                                  np.asarray(low, dtype=np.float64), step, maximum)


def keltner_channels(high: np.ndarray, low: np.ndarray, close: np.ndarray, period: int = 20,
                     atr_period: int = 10, multiplier: float = 2.0) -> Channels:
    """Keltner channels, EMA_n(close) +/- multiplier * ATR_atr (Raschke's modern form, as
    StockCharts and TradingView draw it).

    TA-Lib's KC differs twice: its middle line is the EMA of the typical price, and its ATR
    is re-seeded at KC's first bar (an SMA of the last ``atr_period`` true ranges) instead of
    continuing the ATR from bar ``atr_period``; the ATR part agrees after ~200 bars.
    First value at bar max(period - 1, atr_period).
    """
    middle = core.ema(close, period)
    width = multiplier * core.atr(high, low, close, atr_period)
    upper = middle + width
    lower = middle - width
    middle = np.where(np.isnan(width), np.nan, middle)
    return Channels(upper, middle, lower)


def donchian_channels(high: np.ndarray, low: np.ndarray, period: int = 20) -> Channels:
    """Donchian channels: highest high, (HH + LL) / 2 and lowest low of the last ``period``
    bars, current bar included (TA-Lib's DONCHIAN)."""
    upper = core.rolling_max(high, period)
    lower = core.rolling_min(low, period)
    return Channels(upper, (upper + lower) / 2.0, lower)


def choppiness_index(high: np.ndarray, low: np.ndarray, close: np.ndarray,
                     period: int = 14) -> np.ndarray:
    """Dreiss' choppiness index, 100 * log10(sum TR_n / (HH_n - LL_n)) / log10(n).

    Near 100 the price went back and forth (the path was much longer than the range), near 0
    it trended. TR is core.true_range (undefined on bar 0), so the first value is at bar n,
    with HH/LL over the same n bars as the TR sum. A window with HH == LL gives 50 (neutral;
    the v2 reference's value). Needs n >= 2 (log10(1) = 0). No TA-Lib counterpart.
    """
    out = np.full(close.size, np.nan)
    if period < 2:
        return out
    total = core.rolling_sum(core.true_range(high, low, close), period)
    span = core.rolling_max(high, period) - core.rolling_min(low, period)
    ratio = core.divide(total, span, np.nan)
    defined = ~np.isnan(total) & ~np.isnan(span)
    flat = defined & (span == 0)
    good = defined & ~flat & (ratio > 0)
    out[good] = 100.0 * np.log10(ratio[good]) / math.log10(period)
    out[flat] = 50.0
    return out


def pivot_points(high: np.ndarray, low: np.ndarray, close: np.ndarray) -> PivotPoints:
    """Classic floor-trader pivots at each bar, from the previous bar's H, L, C:
    P = (H+L+C)/3, R1 = 2P - L, S1 = 2P - H, R2 = P + (H-L), S2 = P - (H-L),
    R3 = H + 2(P - L), S3 = L - 2(H - P). NaN on bar 0."""
    h, lo, c = core.shift(high, 1), core.shift(low, 1), core.shift(close, 1)
    p = (h + lo + c) / 3.0
    span = h - lo
    return PivotPoints(p, 2.0 * p - lo, p + span, h + 2.0 * (p - lo),
                       2.0 * p - h, p - span, lo - 2.0 * (h - p))


def fibonacci_pivot_points(high: np.ndarray, low: np.ndarray,
                           close: np.ndarray) -> PivotPoints:
    """Fibonacci pivots at each bar, from the previous bar: P = (H+L+C)/3, R/S k =
    P +/- (0.382, 0.618, 1.0) * (H - L). NaN on bar 0."""
    h, lo, c = core.shift(high, 1), core.shift(low, 1), core.shift(close, 1)
    p = (h + lo + c) / 3.0
    span = h - lo
    return PivotPoints(p, p + 0.382 * span, p + 0.618 * span, p + span,
                       p - 0.382 * span, p - 0.618 * span, p - span)


def fibonacci_retracement(high: np.ndarray, low: np.ndarray,
                          lookback: int = 50) -> FibonacciRetracement:
    """Retracement levels of the last ``lookback`` bars' swing (current bar included):
    swing high HH, swing low LL, level_r = HH - (HH - LL) * r for r = 0.236, 0.382, 0.5,
    0.618, 0.786."""
    hh = core.rolling_max(high, lookback)
    ll = core.rolling_min(low, lookback)
    span = hh - ll
    return FibonacciRetracement(hh, ll, hh - span * 0.236, hh - span * 0.382,
                                hh - span * 0.5, hh - span * 0.618, hh - span * 0.786)


def heikin_ashi(open_: np.ndarray, high: np.ndarray, low: np.ndarray,
                close: np.ndarray) -> HeikinAshi:
    """Heikin-Ashi candles (TA-Lib's HA): close = (O+H+L+C)/4; open = (previous HA open +
    previous HA close)/2, (O+C)/2 on bar 0; high = max(H, HA open, HA close); low likewise.

    The open recursion is an EMA with alpha 1/2 over the previous HA close, run by
    _kernels.recursive_mean.
    """
    ha_close = (open_ + high + low + close) / 4.0
    if close.size == 0:
        return HeikinAshi(ha_close, ha_close.copy(), ha_close.copy(), ha_close.copy())
    previous_close = np.empty(close.size)
    previous_close[0] = 0.0  # not read: the recursion starts at bar 0 with the seed
    previous_close[1:] = ha_close[:-1]
    ha_open = _kernels.recursive_mean(previous_close, 0.5, 0,
                                      (float(open_[0]) + float(close[0])) / 2.0)
    ha_high = np.maximum(np.maximum(high, ha_open), ha_close)
    ha_low = np.minimum(np.minimum(low, ha_open), ha_close)
    return HeikinAshi(ha_open, ha_high, ha_low, ha_close)


@_jit
def _zigzag(high: np.ndarray, low: np.ndarray,
            threshold: float) -> tuple[int, float, bool, int, float, bool]:
    """One pass of a percent zig-zag over the bars.

    Returns (index, price, is_high) of the last confirmed pivot (index -1: none) and of the
    running extreme of the leg in progress (index -1: no leg yet). Rules: until the first
    pivot, the running high and low since bar 0 are tracked; the first time the price has
    moved ``threshold`` from one of them (a later high >= low*(1+t), or a later low <=
    high*(1-t); a move must also be strict, so zero prices never pivot), that extreme is the
    first pivot (if one bar does both, the older extreme). In a leg up the running high is extended
    by any higher high (the first bar reaching it keeps it), and a low <= running high *
    (1-t) confirms it as a pivot high and starts a leg down (symmetric for legs down). A bar
    that extends the leg does not also reverse it (the order inside a bar is unknown).
    """
    n = high.size
    conf_idx, conf_price, conf_high = -1, np.nan, False
    direction = 0
    hi, hi_idx, lo, lo_idx = np.nan, -1, np.nan, -1
    if n > 0:
        hi, hi_idx, lo, lo_idx = high[0], 0, low[0], 0
    for i in range(1, n):
        if direction == 0:
            rise = high[i] > lo and high[i] >= lo * (1.0 + threshold)
            fall = low[i] < hi and low[i] <= hi * (1.0 - threshold)
            if rise and (not fall or lo_idx <= hi_idx):
                conf_idx, conf_price, conf_high = lo_idx, lo, False
                direction = 1
                hi, hi_idx = high[i], i
            elif fall:
                conf_idx, conf_price, conf_high = hi_idx, hi, True
                direction = -1
                lo, lo_idx = low[i], i
            else:
                if high[i] > hi:
                    hi, hi_idx = high[i], i
                if low[i] < lo:
                    lo, lo_idx = low[i], i
        elif direction == 1:
            if high[i] > hi:
                hi, hi_idx = high[i], i
            elif low[i] < hi and low[i] <= hi * (1.0 - threshold):
                conf_idx, conf_price, conf_high = hi_idx, hi, True
                direction = -1
                lo, lo_idx = low[i], i
        elif low[i] < lo:
            lo, lo_idx = low[i], i
        elif high[i] > lo and high[i] >= lo * (1.0 + threshold):
            conf_idx, conf_price, conf_high = lo_idx, lo, False
            direction = 1
            hi, hi_idx = high[i], i
    if direction == 1:
        return conf_idx, conf_price, conf_high, hi_idx, hi, True
    if direction == -1:
        return conf_idx, conf_price, conf_high, lo_idx, lo, False
    return conf_idx, conf_price, conf_high, -1, np.nan, False


def zigzag_last_pivot(high: np.ndarray, low: np.ndarray, threshold: float = 0.05,
                      confirmed: bool = True) -> ZigzagPivot | None:
    """The last pivot of a ``threshold`` (5 %) zig-zag over the highs and lows, or None.

    By default the last *confirmed* pivot: an extreme the price has since moved away from by
    at least ``threshold`` (the textbook zig-zag; it cannot change with later bars). With
    ``confirmed=False``, the running extreme of the leg in progress instead: the v2
    reference's value, which the next bars may still move or replace. ``index`` is the
    bar's position in the input arrays. Rules in :func:`_zigzag`.
    """
    h = np.asarray(high, dtype=np.float64)
    lo = np.asarray(low, dtype=np.float64)
    c_idx, c_price, c_high, r_idx, r_price, r_high = _zigzag(h, lo, float(threshold))
    if confirmed:
        return ZigzagPivot(int(c_idx), float(c_price), bool(c_high)) if c_idx >= 0 else None
    return ZigzagPivot(int(r_idx), float(r_price), bool(r_high)) if r_idx >= 0 else None


# --------------------------------------------------------------------------------------------
# Volume


def money_flow_index(high: np.ndarray, low: np.ndarray, close: np.ndarray,
                     volume: np.ndarray, period: int = 14) -> np.ndarray:
    """Money flow index (TA-Lib's MFI): raw flow TP*V counts as positive when the typical
    price rose, negative when it fell (neither when unchanged); MFI = 100 * pos / (pos + neg)
    over the last ``period`` bars, first value at bar ``period``. No flow at all (flat prices
    or no volume): 50, the neutral value (as RSI with no moves); TA-Lib gives 0.

    A typical price equal to the previous one up to rounding (1e-12 relative) is unchanged:
    (30.01 + 29.7 + 29.94) and (29.99 + 29.75 + 29.91) are both 89.65 but differ in the last
    bit as doubles, and the sign of that bit must not move a whole bar's flow (TA-Lib agrees).
    """
    typical = (high + low + close) / 3.0
    flow = typical * volume
    change = core.diff(typical)
    change[np.abs(change) <= 1e-12 * np.abs(typical)] = 0.0
    undefined = np.isnan(change)  # bar 0: the sums start at bar 1
    positive = np.where(change > 0, flow, 0.0)
    negative = np.where(change < 0, flow, 0.0)
    positive[undefined] = np.nan
    negative[undefined] = np.nan
    positive = core.rolling_sum(positive, period)
    negative = core.rolling_sum(negative, period)
    return core.divide(100.0 * positive, positive + negative, 50.0)


def accumulation_distribution(high: np.ndarray, low: np.ndarray, close: np.ndarray,
                              volume: np.ndarray) -> np.ndarray:
    """Chaikin's accumulation/distribution line (TA-Lib's AD): the running sum of
    money flow multiplier * volume from the first bar; a bar with H == L adds 0."""
    return np.cumsum(_money_flow_multiplier(high, low, close) * volume)


def chaikin_money_flow(high: np.ndarray, low: np.ndarray, close: np.ndarray,
                       volume: np.ndarray, period: int = 20) -> np.ndarray:
    """Chaikin money flow (TA-Lib's CMF): sum(MFM * V) / sum(V) over ``period`` bars, in
    [-1, 1]. A window without volume: 0 (no buying or selling pressure), as TA-Lib."""
    flow = core.rolling_sum(_money_flow_multiplier(high, low, close) * volume, period)
    return core.divide(flow, core.rolling_sum(volume, period), 0.0)


def chaikin_oscillator(high: np.ndarray, low: np.ndarray, close: np.ndarray,
                       volume: np.ndarray, fast: int = 3, slow: int = 10) -> np.ndarray:
    """Chaikin oscillator, EMA_fast(AD) - EMA_slow(AD), each EMA core.ema (SMA-seeded, the
    project's EMA); first value at bar slow - 1. TA-Lib's ADOSC seeds both EMAs with the
    first AD value instead: same first bar, equal after ~200 bars."""
    ad = accumulation_distribution(high, low, close, volume)
    return core.ema(ad, fast) - core.ema(ad, slow)


def vwap(high: np.ndarray, low: np.ndarray, close: np.ndarray,
         volume: np.ndarray) -> np.ndarray:
    """Volume-weighted average typical price, cumulative from the first bar (anchored there,
    no session reset), as TA-Lib's VWAP. NaN while no volume has traded (TA-Lib: 0, which
    is not a price)."""
    typical = (high + low + close) / 3.0
    return core.divide(np.cumsum(typical * volume), np.cumsum(volume), np.nan)
