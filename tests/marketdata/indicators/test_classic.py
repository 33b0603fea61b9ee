"""The v1 indicators of :mod:`marketdata.indicators.classic`.

Three kinds of checks: TA-Lib (and ``ta`` for Ichimoku) as the oracle on every real series
(1e-6 relative after warm-up, same warm-up), small hand-computed series (including every
place where we deliberately differ from TA-Lib), and edge cases (no bars, one bar, fewer bars
than the period, constant prices, zero volume) that must give NaN or a documented value
without any exception or numpy warning.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
import talib

from marketdata.indicators import classic
from marketdata.indicators.bars import PriceArrays

from .conftest import OSCILLATOR_FLOOR, arr, assert_matches, strict

NAN = np.nan


def pad(values: np.ndarray, leading: int) -> np.ndarray:
    """TA-Lib output over ``x[leading:]`` put back on the full series' bars."""
    return np.concatenate([np.full(leading, NAN), values])


def first_defined(x: np.ndarray) -> int:
    return int(np.flatnonzero(~np.isnan(x))[0])


# --------------------------------------------------------------------------- oracle: TA-Lib

@pytest.mark.parametrize("period", [20, 5])
def test_vwma_matches_talib(oracle_series: PriceArrays, period: int) -> None:
    b = oracle_series
    assert_matches(classic.vwma(b.close, b.volume, period),
                   talib.VWMA(b.close, b.volume, timeperiod=period))


@pytest.mark.parametrize("period", [14, 2, 30])
def test_rsi_matches_talib(oracle_series: PriceArrays, period: int) -> None:
    assert_matches(classic.rsi(oracle_series.close, period),
                   talib.RSI(oracle_series.close, timeperiod=period))


@pytest.mark.parametrize(("period", "smooth", "signal"), [(14, 3, 3), (5, 1, 4), (21, 5, 2)])
def test_stochastic_matches_talib(oracle_series: PriceArrays, period: int, smooth: int,
                                  signal: int) -> None:
    b = oracle_series
    ours = classic.stochastic(b.high, b.low, b.close, period, smooth, signal)
    k, d = talib.STOCH(b.high, b.low, b.close, fastk_period=period, slowk_period=smooth,
                       slowk_matype=0, slowd_period=signal, slowd_matype=0)
    # TA-Lib starts %K on %D's first bar; ours is defined signal - 1 bars earlier.
    assert first_defined(ours.k) == period + smooth - 2
    assert first_defined(ours.d) == period + smooth + signal - 3
    assert_matches(ours.k, k, skip=period + smooth + signal - 3, abs_floor=OSCILLATOR_FLOOR)
    assert_matches(ours.d, d, abs_floor=OSCILLATOR_FLOOR)


@pytest.mark.parametrize(("period", "stoch", "smooth", "signal"),
                         [(14, 14, 3, 3), (5, 9, 2, 4), (21, 3, 1, 1)])
def test_stochastic_rsi_matches_talib_stoch_of_rsi(oracle_series: PriceArrays, period: int,
                                                   stoch: int, smooth: int,
                                                   signal: int) -> None:
    close = oracle_series.close
    ours = classic.stochastic_rsi(close, period, stoch, smooth, signal)
    r = talib.RSI(close, timeperiod=period)[period:]  # TA-Lib does not skip leading NaNs
    k, d = talib.STOCH(r, r, r, fastk_period=stoch, slowk_period=smooth, slowk_matype=0,
                       slowd_period=signal, slowd_matype=0)
    assert first_defined(ours.k) == period + stoch + smooth - 2
    assert_matches(ours.k, pad(k, period), skip=period + stoch + smooth + signal - 3,
                   abs_floor=OSCILLATOR_FLOOR)
    assert_matches(ours.d, pad(d, period), abs_floor=OSCILLATOR_FLOOR)


@pytest.mark.parametrize(("period", "stoch", "signal"), [(14, 14, 3), (14, 5, 3), (9, 20, 1)])
def test_stochastic_rsi_without_smoothing_is_talib_stochrsi(oracle_series: PriceArrays, period: int,
                                                            stoch: int, signal: int) -> None:
    close = oracle_series.close
    ours = classic.stochastic_rsi(close, period, stoch, 1, signal)
    fastk, fastd = talib.STOCHRSI(close, timeperiod=period, fastk_period=stoch,
                                  fastd_period=signal, fastd_matype=0)
    assert first_defined(ours.k) == period + stoch - 1
    assert_matches(ours.k, fastk, skip=period + stoch + signal - 2, abs_floor=OSCILLATOR_FLOOR)
    assert_matches(ours.d, fastd, abs_floor=OSCILLATOR_FLOOR)


@pytest.mark.parametrize("period", [20, 5])
def test_cci_matches_talib(oracle_series: PriceArrays, period: int) -> None:
    b = oracle_series
    assert_matches(classic.cci(b.high, b.low, b.close, period),
                   talib.CCI(b.high, b.low, b.close, timeperiod=period),
                   abs_floor=OSCILLATOR_FLOOR)


def test_obv_matches_talib(oracle_series: PriceArrays) -> None:
    assert_matches(classic.obv(oracle_series.close, oracle_series.volume),
                   talib.OBV(oracle_series.close, oracle_series.volume), rel=1e-12)


@pytest.mark.parametrize(("period", "std_dev"), [(20, 2), (10, 1.5)])
def test_bollinger_bands_match_talib(oracle_series: PriceArrays, period: int,
                                     std_dev: float) -> None:
    ours = classic.bollinger_bands(oracle_series.close, period, std_dev)
    upper, middle, lower = talib.BBANDS(oracle_series.close, timeperiod=period,
                                        nbdevup=std_dev, nbdevdn=std_dev, matype=0)
    assert_matches(ours.upper, upper)
    assert_matches(ours.middle, middle)
    assert_matches(ours.lower, lower)


@pytest.mark.parametrize("period", [25, 14, 3])
def test_aroon_matches_talib(oracle_series: PriceArrays, period: int) -> None:
    ours = classic.aroon(oracle_series.high, oracle_series.low, period)
    down, up = talib.AROON(oracle_series.high, oracle_series.low, timeperiod=period)
    assert_matches(ours.up, up, rel=1e-12, abs_floor=1.0)  # multiples of 100/period
    assert_matches(ours.down, down, rel=1e-12, abs_floor=1.0)


def _adx_worksheet(high: np.ndarray, low: np.ndarray, close: np.ndarray,
                   n: int) -> np.ndarray:
    """Wilder's ADX worksheet, bar by bar: TRn, +DMn and -DMn start as the sums over bars
    1..n, then X = X - X/n + today's value; DI = 100 * DMn / TRn; the first ADX is the mean
    of the first n DX, then ADX = (ADX * (n - 1) + DX) / n."""
    out = np.full(close.size, NAN)
    tr_n = plus_n = minus_n = 0.0
    dxs: list[float] = []
    value = NAN
    for i in range(1, close.size):
        tr = max(high[i], close[i - 1]) - min(low[i], close[i - 1])
        rise, fall = high[i] - high[i - 1], low[i - 1] - low[i]
        plus = rise if rise > fall and rise > 0 else 0.0
        minus = fall if fall > rise and fall > 0 else 0.0
        if i <= n:
            tr_n, plus_n, minus_n = tr_n + tr, plus_n + plus, minus_n + minus
            if i < n:
                continue
        else:
            tr_n = tr_n - tr_n / n + tr
            plus_n = plus_n - plus_n / n + plus
            minus_n = minus_n - minus_n / n + minus
        plus_di = 100 * plus_n / tr_n if tr_n else 0.0
        minus_di = 100 * minus_n / tr_n if tr_n else 0.0
        # No directional movement yet: DX 0 (TA-Lib leaves it out of a sum it divides by n)
        total = plus_di + minus_di
        dx = 100 * abs(plus_di - minus_di) / total if total else 0.0
        if len(dxs) < n:
            dxs.append(dx)
            if len(dxs) == n:
                value = sum(dxs) / n
                out[i] = value
        else:
            value = (value * (n - 1) + dx) / n
            out[i] = value
    return out


@pytest.mark.parametrize("period", [14, 5, 20])
def test_adx_is_wilders_worksheet(oracle_series: PriceArrays, period: int) -> None:
    b = oracle_series
    assert_matches(classic.adx(b.high, b.low, b.close, period),
                   _adx_worksheet(b.high, b.low, b.close, period), rel=1e-9)


@pytest.mark.parametrize("period", [14, 5])
def test_adx_converges_to_talib(oracle_series: PriceArrays, period: int) -> None:
    """TA-Lib seeds its smoothed DM/TR with bars 1..period-1 only (Wilder: 1..period): same
    warm-up, values differ at first (~5%) and agree within 1e-6 after ~13 periods."""
    b = oracle_series
    ours = classic.adx(b.high, b.low, b.close, period)
    theirs = talib.ADX(b.high, b.low, b.close, timeperiod=period)
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    early = slice(2 * period - 1, 16 * period)
    assert (np.abs(ours[early] - theirs[early]) > 1e-6 * theirs[early]).any()  # seeds differ
    assert_matches(ours, theirs, skip=16 * period)


@pytest.mark.parametrize(("fast", "slow", "signal"), [(12, 26, 9), (5, 35, 5), (3, 10, 16)])
def test_macd_is_talib_ema_composition(oracle_series: PriceArrays, fast: int, slow: int,
                                       signal: int) -> None:
    close = oracle_series.close
    ours = classic.macd(close, fast, slow, signal)
    line = talib.EMA(close, timeperiod=fast) - talib.EMA(close, timeperiod=slow)
    start = slow - 1
    sig = pad(talib.EMA(line[start:], timeperiod=signal), start)
    # The MACD line and histogram cross zero: absolute floor of 1e-6 (1e-12 absolute).
    assert_matches(ours.macd, line, abs_floor=1e-6)
    assert_matches(ours.signal, sig, abs_floor=1e-6)
    assert_matches(ours.histogram, line - sig, abs_floor=1e-6)


def test_macd_converges_to_talib_macd(oracle_series: PriceArrays) -> None:
    """TA-Lib's MACD seeds the fast EMA on the slow EMA's first bar; after convergence (the
    last 1,500 of 2,500 bars, or from bar 150 on a one-year series) the lines agree."""
    close = oracle_series.close
    ours = classic.macd(close, 12, 26, 9)
    line, signal, histogram = talib.MACD(close, fastperiod=12, slowperiod=26, signalperiod=9)
    skip = max(close.size - 1500, 150)
    assert_matches(ours.macd, line, skip=skip, abs_floor=1e-6)
    assert_matches(ours.signal, signal, skip=skip, abs_floor=1e-6)
    assert_matches(ours.histogram, histogram, skip=skip, abs_floor=1e-6)
    # Ours starts with the slow EMA (bar 25); TA-Lib waits for the signal line (bar 33).
    assert first_defined(ours.macd) == 25 and first_defined(line) == 33


@pytest.mark.parametrize(("period", "multiplier"), [(10, 3), (7, 2.0), (14, 1.5), (2, 0.5)])
def test_supertrend_matches_talib(oracle_series: PriceArrays, period: int,
                                  multiplier: float) -> None:
    b = oracle_series
    ours = classic.supertrend(b.high, b.low, b.close, period, multiplier)
    value, trend = talib.SUPERTREND(b.high, b.low, b.close, timeperiod=period,
                                    multiplier=multiplier)
    assert_matches(ours.value, value)
    defined = ~np.isnan(ours.value)
    assert np.array_equal(defined, ~np.isnan(ours.trend))
    np.testing.assert_array_equal(ours.trend[defined], trend[defined])
    assert (trend[~defined] == 0).all()  # TA-Lib's warm-up trend is 0, ours NaN
    assert {-1.0, 1.0} <= set(ours.trend[defined])


@pytest.mark.parametrize(("tenkan", "kijun", "senkou"), [(9, 26, 52), (7, 22, 44), (20, 5, 30)])
def test_ichimoku_matches_talib_and_ta(oracle_series: PriceArrays, tenkan: int, kijun: int,
                                       senkou: int) -> None:
    from ta.trend import IchimokuIndicator

    b = oracle_series
    ours = classic.ichimoku(b.high, b.low, b.close, tenkan, kijun, senkou)

    def mid(window: int) -> np.ndarray:
        return (talib.MAX(b.high, timeperiod=window) + talib.MIN(b.low, timeperiod=window)) / 2

    def later(x: np.ndarray | pd.Series, bars: int) -> np.ndarray:
        return pd.Series(np.asarray(x)).shift(bars).to_numpy()

    assert_matches(ours.tenkan_sen, mid(tenkan), rel=1e-12)
    assert_matches(ours.kijun_sen, mid(kijun), rel=1e-12)
    assert_matches(ours.senkou_span_a, later((mid(tenkan) + mid(kijun)) / 2, kijun), rel=1e-12)
    assert_matches(ours.senkou_span_b, later(mid(senkou), kijun), rel=1e-12)
    assert_matches(ours.chikou_span, later(b.close, -kijun), rel=0)

    cloud = IchimokuIndicator(pd.Series(b.high), pd.Series(b.low), window1=tenkan,
                              window2=kijun, window3=senkou)
    assert_matches(ours.tenkan_sen, cloud.ichimoku_conversion_line().to_numpy(), rel=1e-12)
    assert_matches(ours.kijun_sen, cloud.ichimoku_base_line().to_numpy(), rel=1e-12)
    assert_matches(ours.senkou_span_a, later(cloud.ichimoku_a(), kijun), rel=1e-12)
    # ta's span B uses partial windows (min_periods=0) before senkou bars: compare after.
    assert_matches(ours.senkou_span_b, later(cloud.ichimoku_b(), kijun), rel=1e-12,
                   skip=senkou - 1 + kijun)


def integer_bars(seed: int, n: int = 120) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                   np.ndarray]:
    """A random walk on whole numbers: equal highs, lows, closes and band touches abound."""
    rng = np.random.default_rng(seed)
    close = 50.0 + np.cumsum(rng.integers(-2, 3, n))
    high = close + rng.integers(0, 3, n)
    low = close - rng.integers(0, 3, n)
    return high, low, close, rng.integers(0, 4, n) * 100.0


@pytest.mark.parametrize("seed", range(20))
def test_ties_are_resolved_as_talib_does(seed: int) -> None:
    high, low, close, volume = integer_bars(seed)
    for period in (2, 3, 5):
        ours = classic.aroon(high, low, period)
        down, up = talib.AROON(high, low, timeperiod=period)
        assert_matches(ours.up, up, abs_floor=1.0)
        assert_matches(ours.down, down, abs_floor=1.0)
        for multiplier in (0.5, 1.0, 2.0):
            trend = classic.supertrend(high, low, close, period, multiplier)
            value, direction = talib.SUPERTREND(high, low, close, timeperiod=period,
                                                multiplier=multiplier)
            assert_matches(trend.value, value)
            np.testing.assert_array_equal(np.nan_to_num(trend.trend), direction)
        ours_adx = classic.adx(high, low, close, period)
        assert_matches(ours_adx, _adx_worksheet(high, low, close, period), rel=1e-9,
                       abs_floor=1e-6)
        assert_matches(ours_adx, talib.ADX(high, low, close, timeperiod=period),
                       skip=16 * period, abs_floor=1e-6)
        assert_matches(classic.cci(high, low, close, period),
                       talib.CCI(high, low, close, timeperiod=period), abs_floor=1e-3)
    assert_matches(classic.obv(close, volume), talib.OBV(close, volume), abs_floor=1.0)


# --------------------------------------------------------------------------- hand-computed

def test_vwma_by_hand() -> None:
    close, volume = arr(1, 2, 3, 4, 5), arr(1, 1, 2, 0, 0)
    np.testing.assert_allclose(classic.vwma(close, volume, 2),
                               arr(NAN, 1.5, 8 / 3, 3, NAN))  # last window: no volume


def test_vwma_window_without_volume_is_nan_despite_rounding() -> None:
    # Fractional volumes leave rounding residue in cumulative-sum differences (here the
    # volume sum of window [4..6] comes out as -4.4e-16); all-zero windows must still be NaN.
    volume = arr(0.6, 0.3, 0, 0, 0, 0, 0, 0.7)
    close = arr(10, 11, 12, 13, 14, 15, 16, 17)
    out = classic.vwma(close, volume, 3)
    np.testing.assert_array_equal(np.isnan(out), [True] * 2 + [False] * 2 + [True] * 3 + [False])
    np.testing.assert_allclose(out[[2, 3, 7]], [(6 + 3.3) / 0.9, 11.0, 17.0])


def test_rsi_by_hand() -> None:
    # Changes +1 -1 +2 +1 -1; period 2: seeds G = L = 0.5 at bar 2, then Wilder.
    out = classic.rsi(arr(10, 11, 10, 12, 13, 12), 2)
    np.testing.assert_allclose(out, arr(NAN, NAN, 50, 100 * 1.25 / 1.5, 90, 50))


def test_rsi_without_losses_is_100_and_without_moves_is_50() -> None:
    rising = classic.rsi(arr(1, 2, 3, 4, 5, 6), 3)
    np.testing.assert_array_equal(rising, arr(NAN, NAN, NAN, 100, 100, 100))
    flat = classic.rsi(np.full(8, 7.0), 3)
    np.testing.assert_array_equal(flat, arr(NAN, NAN, NAN, 50, 50, 50, 50, 50))
    # TA-Lib's value for the flat series is 0 (a divergence we keep: flat is neutral).
    assert talib.RSI(np.full(8, 7.0), timeperiod=3)[-1] == 0
    # A move after a flat start leaves 50 at once.
    np.testing.assert_allclose(classic.rsi(arr(5, 5, 5, 5, 4), 2), arr(NAN, NAN, 50, 50, 0))


def test_stochastic_by_hand() -> None:
    high, low = arr(3, 4, 5, 4, 3, 4), arr(1, 2, 3, 2, 1, 2)
    close = arr(2, 3, 4, 3, 2, 3)
    # raw %K(3) from bar 2: 75, 100/3, 25, 200/3
    ours = classic.stochastic(high, low, close, 3, 2, 2)
    k = arr(NAN, NAN, NAN, (75 + 100 / 3) / 2, (100 / 3 + 25) / 2, (25 + 200 / 3) / 2)
    np.testing.assert_allclose(ours.k, k)
    np.testing.assert_allclose(ours.d, arr(NAN, NAN, NAN, NAN, (k[3] + k[4]) / 2,
                                           (k[4] + k[5]) / 2))


def test_stochastic_flat_window_is_50() -> None:
    high = arr(5, 5, 5, 5, 6, 7)
    low = arr(5, 5, 5, 5, 5, 5)
    ours = classic.stochastic(high, low, high, 3, 1, 1)
    np.testing.assert_array_equal(ours.k, arr(NAN, NAN, 50, 50, 100, 100))
    k, _ = talib.STOCH(high, low, high, fastk_period=3, slowk_period=1, slowd_period=1)
    assert k[2] == 0 and k[3] == 0  # TA-Lib: 0 on an empty range (divergence)


def test_stochastic_rsi_by_hand() -> None:
    # RSI(1) is 100 on an up close, 0 on a down close, 50 on an unchanged one.
    close = arr(1, 2, 1, 1, 3, 2)
    np.testing.assert_array_equal(classic.rsi(close, 1), arr(NAN, 100, 0, 50, 100, 0))
    # stoch over 2 RSIs: bar 2 [100, 0] -> 0; 3 [0, 50] -> 100; 4 [50, 100] -> 100;
    # 5 [100, 0] -> 0. k = SMA2 of that, d = SMA2 of k.
    ours = classic.stochastic_rsi(close, 1, 2, 2, 2)
    np.testing.assert_array_equal(ours.k, arr(NAN, NAN, NAN, 50, 100, 50))
    np.testing.assert_array_equal(ours.d, arr(NAN, NAN, NAN, NAN, 75, 75))


def test_stochastic_rsi_windows_hold_only_defined_rsi_values() -> None:
    # RSI(3) first at bar 3; a window of 4 RSIs first ends at bar 6 (the v1 reference
    # would start at bar max(3, 4) = 4 with NaNs in the window).
    close = arr(10, 11, 12, 11, 13, 14, 12, 15)
    ours = classic.stochastic_rsi(close, 3, 4, 1, 1)
    assert first_defined(ours.k) == 6
    r = classic.rsi(close, 3)
    window = r[3:7]
    assert ours.k[6] == pytest.approx(100 * (r[6] - window.min()) / (window.max() - window.min()))


def test_stochastic_rsi_flat_is_50() -> None:
    ours = classic.stochastic_rsi(np.full(12, 3.0), 2, 3, 2, 2)
    np.testing.assert_array_equal(ours.k[5:], np.full(7, 50.0))
    np.testing.assert_array_equal(ours.d[6:], np.full(6, 50.0))


def test_cci_by_hand() -> None:
    tp = arr(1, 2, 3, 4, 2, 2)
    # bar 2: mean 2, deviation 2/3 -> 1 / 0.01 = 100; bar 4: [3, 4, 2] -> -100;
    # bar 5: [4, 2, 2] mean 8/3, deviation 8/9 -> (-2/3) / (0.04/3) = -50.
    np.testing.assert_allclose(classic.cci(tp, tp, tp, 3), arr(NAN, NAN, 100, 100, -100, -50))
    # High/low/close enter through the typical price only.
    np.testing.assert_allclose(classic.cci(tp + 1, tp - 1, tp, 3),
                               arr(NAN, NAN, 100, 100, -100, -50))


def test_obv_by_hand() -> None:
    out = classic.obv(arr(10, 11, 11, 9, 12), arr(100, 200, 300, 400, 500))
    np.testing.assert_array_equal(out, arr(100, 300, 300, -100, 400))


def test_bollinger_bands_by_hand() -> None:
    ours = classic.bollinger_bands(arr(1, 2, 3, 4, 6), 3, 2)
    std = arr(NAN, NAN, math.sqrt(2 / 3), math.sqrt(2 / 3), math.sqrt(14 / 9))
    middle = arr(NAN, NAN, 2, 3, 13 / 3)
    np.testing.assert_allclose(ours.middle, middle)
    np.testing.assert_allclose(ours.upper, middle + 2 * std)  # population std, not ddof=1
    np.testing.assert_allclose(ours.lower, middle - 2 * std)


def test_aroon_by_hand() -> None:
    # Window of period + 1 = 4 bars; ties go to the most recent extreme.
    ours = classic.aroon(arr(1, 3, 2, 2, 1, 0), arr(5, 4, 4, 3, 3, 4), 3)
    np.testing.assert_allclose(ours.up, arr(NAN, NAN, NAN, 100 / 3, 0, 100 / 3))
    np.testing.assert_allclose(ours.down, arr(NAN, NAN, NAN, 100, 100, 200 / 3))


def test_adx_by_hand() -> None:
    high = arr(10, 12, 13, 12, 14, 13)
    low = arr(8, 9, 11, 10, 11, 12)
    close = arr(9, 11, 12, 11, 13, 12)
    # +DM 2 1 0 2 0, -DM 0 0 1 0 0, TR 3 2 2 3 1 (bars 1..5). Period 2, Wilder averages
    # seeded at bar 2: +DM 1.5 .75 1.375 .6875, -DM 0 .5 .25 .125 -> DX 100, 20, 900/13,
    # 900/13 (DX only needs the DM ratio); ADX = mean(100, 20) = 60, then Wilder.
    expected = arr(NAN, NAN, NAN, 60, 1680 / 26, 3480 / 52)
    np.testing.assert_allclose(classic.adx(high, low, close, 2), expected)


def test_adx_without_directional_movement_is_0() -> None:
    # The range is there (TR > 0) but highs and lows never move: DI+ = DI- = 0.
    close = arr(1, 2, 1, 2, 1, 2, 1, 2)
    out = classic.adx(np.full(8, 3.0), np.full(8, 0.0), close, 2)
    np.testing.assert_array_equal(out, arr(NAN, NAN, NAN, 0, 0, 0, 0, 0))


def test_macd_by_hand() -> None:
    close = arr(1, 3, 2, 5, 4, 6)
    ours = classic.macd(close, 2, 3, 2)
    # EMA2 (alpha 2/3) from bar 1: 2, 2, 4, 4, 16/3; EMA3 (alpha 1/2) from bar 2: 2, 3.5,
    # 3.75, 4.875; signal seeded at bar 3 with mean(0, .5) = .25.
    line = arr(NAN, NAN, 0, 0.5, 0.25, 16 / 3 - 4.875)
    signal = arr(NAN, NAN, NAN, 0.25, 0.25, 0.25 + 2 / 3 * (line[5] - 0.25))
    np.testing.assert_allclose(ours.macd, line, atol=1e-15)
    np.testing.assert_allclose(ours.signal, signal)
    np.testing.assert_allclose(ours.histogram, line - signal, atol=1e-15)


def test_supertrend_by_hand_with_flips() -> None:
    high = arr(10, 11, 12, 11, 9, 8, 10, 12)
    low = arr(9, 10, 11, 9, 7, 7, 9, 11)
    close = arr(9.5, 10.5, 11.5, 9.5, 7.5, 7.5, 9.5, 11.5)
    # ATR(2) from bar 2: 1.5 2 2.25 1.625 2.0625 2.28125. Bar 2 starts up on the lower band
    # (10); bar 3 closes 9.5 < 10: down, value = the upper band 12; the upper band falls
    # (10.25, 9.125) and holds at 9.125 on bar 6 (basic 11.5625 is higher), where the close
    # 9.5 crosses it: up, value = the lower band 7.4375; bar 7 lower band rises to 9.21875.
    ours = classic.supertrend(high, low, close, 2, 1)
    value = arr(NAN, NAN, 10, 12, 10.25, 9.125, 7.4375, 9.21875)
    trend = arr(NAN, NAN, 1, -1, -1, -1, 1, 1)
    np.testing.assert_allclose(ours.value, value)
    np.testing.assert_array_equal(ours.trend, trend)
    st, direction = talib.SUPERTREND(high, low, close, timeperiod=2, multiplier=1.0)
    np.testing.assert_allclose(st, value)
    np.testing.assert_array_equal(direction, np.nan_to_num(trend))


def test_ichimoku_by_hand() -> None:
    high = arr(2, 4, 3, 5, 6, 4, 7, 8)
    low = arr(1, 2, 1, 3, 4, 2, 5, 6)
    close = arr(1.5, 3, 2, 4, 5, 3, 6, 7)
    ours = classic.ichimoku(high, low, close, 2, 3, 4)
    np.testing.assert_array_equal(ours.tenkan_sen, arr(NAN, 2.5, 2.5, 3, 4.5, 4, 4.5, 6.5))
    np.testing.assert_array_equal(ours.kijun_sen, arr(NAN, NAN, 2.5, 3, 3.5, 4, 4.5, 5))
    # span A = (tenkan + kijun) / 2 from bar 2 (2.5, 3, 4, ...) shown 3 bars later.
    np.testing.assert_array_equal(ours.senkou_span_a, arr(NAN, NAN, NAN, NAN, NAN, 2.5, 3, 4))
    # span B = midpoint over 4 bars from bar 3 (3, 3.5, ...) shown 3 bars later.
    np.testing.assert_array_equal(ours.senkou_span_b, arr(NAN, NAN, NAN, NAN, NAN, NAN, 3, 3.5))
    # chikou at bar t is the close of bar t + 3.
    np.testing.assert_array_equal(ours.chikou_span, arr(4, 5, 3, 6, 7, NAN, NAN, NAN))


# --------------------------------------------------------------------------- edge cases

# name -> (compute from (high, low, close, volume), bars needed for the first value)
CASES: dict[str, tuple[Callable[..., object], int]] = {
    "vwma": (lambda h, lo, c, v: classic.vwma(c, v, 5), 5),
    "rsi": (lambda h, lo, c, v: classic.rsi(c, 5), 6),
    "stochastic": (lambda h, lo, c, v: classic.stochastic(h, lo, c, 5, 3, 2), 7),
    "stochastic_rsi": (lambda h, lo, c, v: classic.stochastic_rsi(c, 5, 4, 3, 2), 11),
    "cci": (lambda h, lo, c, v: classic.cci(h, lo, c, 5), 5),
    "obv": (lambda h, lo, c, v: classic.obv(c, v), 1),
    "bollinger_bands": (lambda h, lo, c, v: classic.bollinger_bands(c, 5, 2), 5),
    "aroon": (lambda h, lo, c, v: classic.aroon(h, lo, 5), 6),
    "adx": (lambda h, lo, c, v: classic.adx(h, lo, c, 5), 10),
    "macd": (lambda h, lo, c, v: classic.macd(c, 3, 6, 4), 6),
    "supertrend": (lambda h, lo, c, v: classic.supertrend(h, lo, c, 5, 3), 6),
    "ichimoku": (lambda h, lo, c, v: classic.ichimoku(h, lo, c, 3, 5, 8), 3),
}


def lines(result: object) -> list[np.ndarray]:
    return list(result) if isinstance(result, tuple) else [result]  # type: ignore[list-item]


def run_strict(name: str, high: np.ndarray, low: np.ndarray, close: np.ndarray,
               volume: np.ndarray) -> list[np.ndarray]:
    """Every line of one indicator, with any numpy floating-point event or warning fatal."""
    compute, _ = CASES[name]
    with strict():
        out = lines(compute(high, low, close, volume))
    for line in out:
        assert line.dtype == np.float64 and line.shape == close.shape
        assert not np.isinf(line).any()
    return out


def wavy(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    close = 100 + 10 * np.sin(np.arange(n) / 3.0)
    return close + 1, close - 1, close, np.full(n, 1000.0)


@pytest.mark.parametrize("name", CASES)
def test_too_few_bars_give_nan(name: str) -> None:
    _, needed = CASES[name]
    for n in sorted(n for n in {0, 1, needed - 1} if n < needed):
        for line in run_strict(name, *wavy(n)):
            assert np.isnan(line).all(), (name, n)


@pytest.mark.parametrize("name", CASES)
def test_enough_bars_give_a_value(name: str) -> None:
    _, needed = CASES[name]
    out = run_strict(name, *wavy(needed))
    # The count is tight: the earliest line is first defined on the last of those bars.
    assert min(first_defined(line) for line in out if (~np.isnan(line)).any()) == needed - 1


def test_ichimoku_first_values() -> None:
    # tenkan needs 3 bars; chikou is defined on bar 0 once there are kijun + 1 = 6 bars.
    cloud = classic.ichimoku(*wavy(3)[:3], 3, 5, 8)
    assert first_defined(cloud.tenkan_sen) == 2 and np.isnan(cloud.chikou_span).all()
    cloud = classic.ichimoku(*wavy(6)[:3], 3, 5, 8)
    assert first_defined(cloud.chikou_span) == 0 and np.isnan(cloud.chikou_span[1:]).all()


CONSTANT_VALUES = {
    "vwma": [10.0],
    "rsi": [50.0],
    "stochastic": [50.0, 50.0],
    "stochastic_rsi": [50.0, 50.0],
    "cci": [0.0],
    "obv": [1000.0],
    "bollinger_bands": [10.0, 10.0, 10.0],
    "aroon": [100.0, 100.0],
    "adx": [0.0],
    "macd": [0.0, 0.0, 0.0],
    "supertrend": [10.0, 1.0],
    "ichimoku": [10.0] * 5,
}


@pytest.mark.parametrize("name", CASES)
def test_constant_prices(name: str) -> None:
    n = 40
    flat = np.full(n, 10.0)
    out = run_strict(name, flat, flat, flat, np.full(n, 1000.0))
    for line, expected in zip(out, CONSTANT_VALUES[name], strict=True):
        defined = line[~np.isnan(line)]
        assert defined.size > 0
        np.testing.assert_allclose(defined, expected, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("name", CASES)
def test_zero_volume(name: str) -> None:
    high, low, close, _ = wavy(40)
    out = run_strict(name, high, low, close, np.zeros(40))
    if name == "vwma":
        assert np.isnan(out[0]).all()  # no traded volume, no volume-weighted price
    elif name == "obv":
        np.testing.assert_array_equal(out[0], np.zeros(40))
    else:  # volume is not an input: the same as with volume
        with_volume = run_strict(name, *wavy(40))
        for a, b in zip(out, with_volume, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("call", [
    lambda x: classic.vwma(x, x, 0),
    lambda x: classic.rsi(x, 0),
    lambda x: classic.stochastic(x, x, x, 14, 0, 3),
    lambda x: classic.stochastic_rsi(x, 14, 14, 3, -1),
    lambda x: classic.cci(x, x, x, 0),
    lambda x: classic.bollinger_bands(x, 0, 2),
    lambda x: classic.aroon(x, x, 0),
    lambda x: classic.adx(x, x, x, 0),
    lambda x: classic.macd(x, 12, 0, 9),
    lambda x: classic.supertrend(x, x, x, 0, 3),
    lambda x: classic.ichimoku(x, x, x, 9, 26, 0),
])
def test_periods_below_one_are_rejected(call: Callable[[np.ndarray], object]) -> None:
    with pytest.raises(ValueError, match="must be at least 1"):
        call(np.arange(30.0))

