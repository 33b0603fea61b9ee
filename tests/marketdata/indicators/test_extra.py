"""The v2-only indicators of :mod:`marketdata.indicators.extra`.

Three kinds of checks: TA-Lib as the oracle on every real series for each indicator TA-Lib
defines (1e-6 relative after warm-up, same warm-up), small hand-computed series for the
others and for every place where we deliberately differ from TA-Lib or the v2 reference,
and edge cases (no bars, one bar, fewer bars than the period, constant prices, zero volume)
that must give NaN or a documented value without any exception or numpy warning.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import talib

from marketdata.indicators import core, extra
from marketdata.indicators.bars import PriceArrays

from .conftest import OSCILLATOR_FLOOR, arr, assert_matches, strict

NAN = np.nan
# TA-Lib's KC re-seeds its ATR, TA-Lib's ADOSC seeds its EMAs with the first value: both
# transients have decayed below 1e-9 relative after 200 bars (the recordings have ~250).
CONVERGED = 200


# --------------------------------------------------------------------------- oracle: TA-Lib

@pytest.mark.parametrize("period", [20, 5])
def test_dema_matches_talib(oracle_series: PriceArrays, period: int) -> None:
    assert_matches(extra.dema(oracle_series.close, period),
                   talib.DEMA(oracle_series.close, timeperiod=period))


@pytest.mark.parametrize("period", [20, 5])
def test_tema_matches_talib(oracle_series: PriceArrays, period: int) -> None:
    assert_matches(extra.tema(oracle_series.close, period),
                   talib.TEMA(oracle_series.close, timeperiod=period))


@pytest.mark.parametrize("period", [20, 21, 9, 16, 2])  # odd n: floor(n/2); non-squares
def test_hma_matches_talib(oracle_series: PriceArrays, period: int) -> None:
    assert_matches(extra.hma(oracle_series.close, period),
                   talib.HMA(oracle_series.close, timeperiod=period))


@pytest.mark.parametrize("period", [14, 5])
def test_williams_r_matches_talib(oracle_series: PriceArrays, period: int) -> None:
    b = oracle_series
    assert_matches(extra.williams_r(b.high, b.low, b.close, period),
                   talib.WILLR(b.high, b.low, b.close, timeperiod=period),
                   abs_floor=OSCILLATOR_FLOOR)


@pytest.mark.parametrize("period", [12, 1])
def test_roc_and_momentum_match_talib(oracle_series: PriceArrays, period: int) -> None:
    c = oracle_series.close
    assert_matches(extra.roc(c, period), talib.ROC(c, timeperiod=period),
                   abs_floor=OSCILLATOR_FLOOR)
    assert_matches(extra.momentum(c, period), talib.MOM(c, timeperiod=period),
                   abs_floor=OSCILLATOR_FLOOR)


@pytest.mark.parametrize("period", [14, 3])
def test_cmo_matches_talib_unsmoothed_cmo(oracle_series: PriceArrays, period: int) -> None:
    # Chande's plain sums are TA-Lib's CMOU; TA-Lib's CMO is Wilder-smoothed (below).
    assert_matches(extra.cmo(oracle_series.close, period),
                   talib.CMOU(oracle_series.close, timeperiod=period),
                   abs_floor=OSCILLATOR_FLOOR)


def test_awesome_oscillator_matches_talib(oracle_series: PriceArrays) -> None:
    b = oracle_series
    assert_matches(extra.awesome_oscillator(b.high, b.low),
                   talib.AO(b.high, b.low, fastperiod=5, slowperiod=34),
                   abs_floor=OSCILLATOR_FLOOR)
    assert_matches(extra.awesome_oscillator(b.high, b.low, 3, 8),
                   talib.AO(b.high, b.low, fastperiod=3, slowperiod=8),
                   abs_floor=OSCILLATOR_FLOOR)


def test_coppock_curve_matches_talib(oracle_series: PriceArrays) -> None:
    c = oracle_series.close
    assert_matches(extra.coppock_curve(c),
                   talib.COPPOCK(c, wmaperiod=10, roc1period=11, roc2period=14),
                   abs_floor=OSCILLATOR_FLOOR)
    assert_matches(extra.coppock_curve(c, 5, 3, 4),
                   talib.COPPOCK(c, wmaperiod=4, roc1period=3, roc2period=5),
                   abs_floor=OSCILLATOR_FLOOR)


@pytest.mark.parametrize(("step", "maximum"), [(0.02, 0.2), (0.01, 0.1)])
def test_parabolic_sar_matches_talib(oracle_series: PriceArrays, step: float,
                                     maximum: float) -> None:
    b = oracle_series
    assert_matches(extra.parabolic_sar(b.high, b.low, step, maximum),
                   talib.SAR(b.high, b.low, acceleration=step, maximum=maximum))


@pytest.mark.parametrize(("period", "atr_period"), [(20, 10), (10, 20)])
def test_keltner_channels_match_talib_where_the_definitions_agree(
        oracle_series: PriceArrays, period: int, atr_period: int) -> None:
    b = oracle_series
    ours = extra.keltner_channels(b.high, b.low, b.close, period, atr_period, 2.0)
    upper, middle, lower = talib.KC(b.high, b.low, b.close, timeperiod=period,
                                    atrperiod=atr_period, nbdev=2.0)
    # Same warm-up on all three lines.
    for line in ours:
        assert np.array_equal(np.isnan(line), np.isnan(upper))
    # Band width: multiplier * ATR, equal once TA-Lib's re-seeded ATR has converged.
    assert_matches(ours.upper - ours.middle, upper - middle, skip=CONVERGED)
    assert_matches(ours.middle - ours.lower, middle - lower, skip=CONVERGED)
    # Middle: the EMA of the close (TA-Lib's KC uses the typical price: see below).
    ema = talib.EMA(b.close, timeperiod=period)
    ema[np.isnan(upper)] = NAN
    assert_matches(ours.middle, ema)


@pytest.mark.parametrize("period", [20, 5])
def test_donchian_channels_match_talib(oracle_series: PriceArrays, period: int) -> None:
    b = oracle_series
    for ours, theirs in zip(extra.donchian_channels(b.high, b.low, period),
                            talib.DONCHIAN(b.high, b.low, timeperiod=period), strict=True):
        assert_matches(ours, theirs)


@pytest.mark.parametrize("period", [14, 3])
def test_money_flow_index_matches_talib(oracle_series: PriceArrays, period: int) -> None:
    b = oracle_series
    assert_matches(extra.money_flow_index(b.high, b.low, b.close, b.volume, period),
                   talib.MFI(b.high, b.low, b.close, b.volume, timeperiod=period),
                   abs_floor=OSCILLATOR_FLOOR)


@pytest.mark.parametrize("period", [20, 3])
def test_chaikin_money_flow_matches_talib(oracle_series: PriceArrays, period: int) -> None:
    b = oracle_series
    assert_matches(extra.chaikin_money_flow(b.high, b.low, b.close, b.volume, period),
                   talib.CMF(b.high, b.low, b.close, b.volume, timeperiod=period),
                   abs_floor=1e-5)  # CMF lives in [-1, 1]


def test_accumulation_distribution_matches_talib(oracle_series: PriceArrays) -> None:
    b = oracle_series
    assert_matches(extra.accumulation_distribution(b.high, b.low, b.close, b.volume),
                   talib.AD(b.high, b.low, b.close, b.volume))


def test_chaikin_oscillator_matches_talib_after_its_seed_decays(oracle_series: PriceArrays) -> None:
    b = oracle_series
    ours = extra.chaikin_oscillator(b.high, b.low, b.close, b.volume)
    theirs = talib.ADOSC(b.high, b.low, b.close, b.volume, fastperiod=3, slowperiod=10)
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))  # same first bar (9)
    assert_matches(ours, theirs, skip=CONVERGED, abs_floor=1.0)  # volume-sized values


def test_vwap_matches_talib(oracle_series: PriceArrays) -> None:
    b = oracle_series
    assert_matches(extra.vwap(b.high, b.low, b.close, b.volume),
                   talib.VWAP(b.high, b.low, b.close, b.volume))


def test_balance_of_power_matches_talib(oracle_series: PriceArrays) -> None:
    b = oracle_series
    assert_matches(extra.balance_of_power(b.open, b.high, b.low, b.close),
                   talib.BOP(b.open, b.high, b.low, b.close), abs_floor=1e-5)


def test_heikin_ashi_matches_talib(oracle_series: PriceArrays) -> None:
    b = oracle_series
    ours = extra.heikin_ashi(b.open, b.high, b.low, b.close)
    for mine, theirs in zip(ours, talib.HA(b.open, b.high, b.low, b.close), strict=True):
        assert_matches(mine, theirs)


# --------------------------------------------------------------------------- hand-computed

def test_dema_and_tema_hand_values() -> None:
    x = arr(1, 2, 4, 8)
    # EMA2 (alpha 2/3): bar1 1.5, bar2 1.5 + 2/3*2.5 = 19/6, bar3 19/6 + 2/3*(8 - 19/6) =
    # 115/18; its EMA2: bar2 (1.5 + 19/6)/2 = 7/3, bar3 7/3 + 2/3*(115/18 - 7/3) = 136/27;
    # the EMA2 of that: bar3 (7/3 + 136/27)/2 = 199/54.
    e1 = arr(NAN, 1.5, 19 / 6, 115 / 18)
    e2 = arr(NAN, NAN, 7 / 3, 136 / 27)
    np.testing.assert_allclose(extra.dema(x, 2), 2 * e1 - e2, rtol=1e-13)
    e3 = arr(NAN, NAN, NAN, 199 / 54)
    np.testing.assert_allclose(extra.tema(x, 2), 3 * e1 - 3 * e2 + e3, rtol=1e-13)


def test_hma_uses_floor_of_half_and_of_square_root() -> None:
    x = np.cumsum(np.arange(1.0, 31.0) ** 1.5)
    # HMA5: 2*WMA2 - WMA5, then WMA over floor(sqrt 5) = 2 values.
    w2 = (x[1:] * 2 + x[:-1]) / 3
    w5 = np.array([(x[i - 4:i + 1] * np.arange(1, 6)).sum() / 15 for i in range(4, x.size)])
    raw = 2 * w2[3:] - w5  # bars 4..
    expected = (2 * raw[1:] + raw[:-1]) / 3  # bars 5..
    got = extra.hma(x, 5)
    assert np.isnan(got[:5]).all()
    np.testing.assert_allclose(got[5:], expected, rtol=1e-10)


def test_alma_hand_values() -> None:
    x = arr(1, 2, 4, 8)
    # n = 3, offset 0.85, sigma 6: m = 1.7, s = 0.5, w_i = exp(-(i - 1.7)^2 / 0.5).
    w = [math.exp(-((i - 1.7) ** 2) / 0.5) for i in range(3)]
    bar2 = (w[0] * 1 + w[1] * 2 + w[2] * 4) / sum(w)
    bar3 = (w[0] * 2 + w[1] * 4 + w[2] * 8) / sum(w)
    np.testing.assert_allclose(extra.alma(x, 3), [NAN, NAN, bar2, bar3], rtol=1e-14)
    assert extra.alma(x, 3)[2] == pytest.approx(3.37389, abs=1e-5)


def test_alma_weighs_the_newest_bars_most() -> None:
    newest = np.zeros(9)
    newest[-1] = 1.0
    oldest = np.zeros(9)
    oldest[0] = 1.0
    assert extra.alma(newest)[-1] > 0.2
    assert extra.alma(oldest)[-1] < 1e-4  # exp(-6.8^2 / 4.5) / sum(w) = 1.05e-5
    assert extra.alma(np.full(12, 7.0))[8:] == pytest.approx([7.0] * 4)


def test_mcginley_dynamic_hand_values() -> None:
    # Seed = SMA2 at bar 1 = 11; bar 2: 11 + 0/(...) = 11; bar 3: 11 + 2 / (2 (13/11)^4).
    got = extra.mcginley_dynamic(arr(10, 12, 11, 13), 2)
    np.testing.assert_allclose(got, [NAN, 11, 11, 11 + 14641 / 28561], rtol=1e-14)


def test_mcginley_dynamic_is_undefined_from_a_zero_price() -> None:
    with strict():
        got = extra.mcginley_dynamic(arr(10, 12, 11, 0, 13), 2)
    np.testing.assert_array_equal(got, [NAN, 11, 11, NAN, NAN])


def test_williams_r_hand_values_and_flat_window() -> None:
    high, low = arr(10, 12, 11, 11), arr(8, 9, 9, 11)
    close = arr(9, 11, 10, 11)
    # bar1: HH 12 LL 8 -> -100*1/4; bar2: HH 12 LL 9 -> -100*2/3; bar3: HH 11 LL 9 -> 0.
    np.testing.assert_allclose(extra.williams_r(high, low, close, 2),
                               [NAN, -25, -200 / 3, 0], rtol=1e-14)
    flat = np.full(5, 3.0)
    # HH == LL: -50 (the v2 reference's value, and the stochastic's 50); TA-Lib gives 0.
    assert extra.williams_r(flat, flat, flat, 3)[2:].tolist() == [-50.0] * 3
    assert talib.WILLR(flat, flat, flat, timeperiod=3)[2:].tolist() == [0.0] * 3


def test_roc_and_momentum_hand_values() -> None:
    x = arr(100, 110, 99, 0, 5)
    np.testing.assert_allclose(extra.momentum(x, 1), [NAN, 10, -11, -99, 5])
    # ROC over a zero base price is 0 (TA-Lib's value; the v2 reference gives null).
    with strict():
        got = extra.roc(x, 1)
    np.testing.assert_allclose(got, [NAN, 10, -10, -100, 0])
    assert talib.ROC(x, timeperiod=1)[4] == 0.0


def test_cmo_is_chande_plain_sums_not_talib_wilder_cmo() -> None:
    x = arr(1, 2, 4, 3, 3, 5)
    # changes 1, 2, -1, 0, 2; windows of 3: (3-1)/4, (2-1)/3, (2-1)/3.
    np.testing.assert_allclose(extra.cmo(x, 3), [NAN, NAN, NAN, 50, 100 / 3, 100 / 3],
                               rtol=1e-14)
    # TA-Lib's CMO smooths the sums with Wilder's average: bar 4 = 2*RSI - 100 differs.
    assert talib.CMO(x, timeperiod=3)[4] != pytest.approx(100 / 3, abs=1.0)


def test_cmo_differs_from_talib_cmo_on_real_data(oracle_series: PriceArrays) -> None:
    c = oracle_series.close
    gap = np.nanmax(np.abs(extra.cmo(c, 14) - talib.CMO(c, timeperiod=14)))
    assert gap > 5.0


def test_awesome_oscillator_hand_values() -> None:
    high, low = arr(3, 5, 7, 9), arr(1, 1, 3, 3)  # medians 2, 3, 5, 6
    np.testing.assert_allclose(extra.awesome_oscillator(high, low, 1, 3),
                               [NAN, NAN, 5 - 10 / 3, 6 - 14 / 3], rtol=1e-14)


def test_coppock_curve_hand_values() -> None:
    x = arr(100, 110, 99, 108.9)
    # ROC1: 10, -10, 10; ROC2: bar2 -1, bar3 -1; sums bar2 -11, bar3 9; WMA2 bar3 (-11+18)/3.
    np.testing.assert_allclose(extra.coppock_curve(x, 2, 1, 2), [NAN, NAN, NAN, 7 / 3],
                               rtol=1e-12)


def test_parabolic_sar_reverses_on_the_low_not_the_close() -> None:
    # Long from bar 1 (SAR 9, EP 11); bar 2 makes EP 12, AF 0.04, SAR 9.04 -> 9.1584.
    # Bar 3's low 9.0 pierces 9.1584 while its close 10.5 stays above it: Wilder (and
    # TA-Lib) reverse to short at the extreme point 12; the v2 reference, which tests the
    # close, would still be long.
    high, low = arr(10, 11, 12, 11.5), arr(9, 10, 11, 9.0)
    expected = [NAN, 9.0, 9.04, 12.0]
    np.testing.assert_allclose(extra.parabolic_sar(high, low), expected, rtol=1e-14)
    np.testing.assert_allclose(talib.SAR(high, low), expected, rtol=1e-14)


def test_bull_bear_power_hand_values() -> None:
    high, low, close = arr(2, 4, 7), arr(0, 2, 4), arr(1, 3, 6)
    # EMA2: bar1 2, bar2 2 + 2/3*4 = 14/3.
    power = extra.bull_bear_power(high, low, close, 2)
    np.testing.assert_allclose(power.bull_power, [NAN, 2, 7 - 14 / 3], rtol=1e-14)
    np.testing.assert_allclose(power.bear_power, [NAN, 0, 4 - 14 / 3], atol=1e-14)


def test_keltner_channels_hand_values_use_the_close_ema() -> None:
    high, low, close = arr(11, 12, 13), arr(9, 10, 10.5), arr(10, 11, 12.5)
    # EMA2(close): bar1 10.5, bar2 10.5 + 2/3*2 = 11.8333; TR: bar1 2, bar2 2.5;
    # ATR1 = TR.
    bands = extra.keltner_channels(high, low, close, 2, 1, 2.0)
    middle = arr(NAN, 10.5, 10.5 + 4 / 3)
    np.testing.assert_allclose(bands.middle, middle, rtol=1e-14)
    np.testing.assert_allclose(bands.upper, middle + 2 * arr(NAN, 2, 2.5), rtol=1e-14)
    np.testing.assert_allclose(bands.lower, middle - 2 * arr(NAN, 2, 2.5), rtol=1e-14)
    # TA-Lib's middle line is the EMA of the typical price (h+l+c)/3 instead.
    _, talib_middle, _ = talib.KC(high, low, close, timeperiod=2, atrperiod=1, nbdev=2.0)
    typical = (high + low + close) / 3
    assert talib_middle[2] == pytest.approx(typical[:2].mean() + 2 / 3 * (typical[2]
                                                                          - typical[:2].mean()))
    assert talib_middle[2] != pytest.approx(bands.middle[2])


def test_donchian_channels_hand_values() -> None:
    bands = extra.donchian_channels(arr(5, 7, 6), arr(1, 4, 2), 2)
    np.testing.assert_array_equal(bands.upper, [NAN, 7, 7])
    np.testing.assert_array_equal(bands.lower, [NAN, 1, 2])
    np.testing.assert_array_equal(bands.middle, [NAN, 4, 4.5])


def test_choppiness_index_hand_values() -> None:
    high, low = arr(10, 11, 12, 11), arr(9, 10, 10, 10)
    close = arr(9.5, 10.5, 11, 10.5)
    # TR (bar 0 undefined): 1.5, 2, 1. Bar 2: sum 3.5 over HH-LL 12-10; bar 3: 3 over 2.
    expected = [NAN, NAN, 100 * math.log10(1.75) / math.log10(2),
                100 * math.log10(1.5) / math.log10(2)]
    np.testing.assert_allclose(extra.choppiness_index(high, low, close, 2), expected,
                               rtol=1e-14)


def test_choppiness_index_flat_window_is_50_even_after_moves() -> None:
    high = np.concatenate([10 + np.sin(np.arange(30.0)), np.full(20, 10.0)])
    with strict():
        got = extra.choppiness_index(high, high, high, 14)
    assert got[-5:].tolist() == [50.0] * 5
    assert np.isnan(extra.choppiness_index(high, high, high, 1)).all()  # log10(1) = 0


def test_money_flow_index_hand_values() -> None:
    high, low, close = arr(3, 4, 3, 5), arr(1, 2, 1, 3), arr(2, 3, 2, 4)  # TP 2 3 2 4
    volume = arr(10, 10, 20, 5)  # flows 20 30 40 20: + - +
    np.testing.assert_allclose(extra.money_flow_index(high, low, close, volume, 2),
                               [NAN, NAN, 100 * 30 / 70, 100 * 20 / 60], rtol=1e-14)


def test_money_flow_index_without_flow_is_50_not_talib_0() -> None:
    flat = np.full(20, 5.0)
    volume = np.full(20, 1000.0)
    assert extra.money_flow_index(flat, flat, flat, volume, 14)[14:].tolist() == [50.0] * 6
    assert talib.MFI(flat, flat, flat, volume, timeperiod=14)[14:].tolist() == [0.0] * 6
    rising = np.arange(20.0) + 1
    assert extra.money_flow_index(rising, rising, rising, np.zeros(20), 14)[-1] == 50.0


def test_flat_tail_after_active_bars_gives_exact_neutral_values() -> None:
    # A window of zero moves after 2,000 active bars: a cumulative-sum window leaves a
    # residue of ~1e-6 there; the windows must be exactly 0 (CMO 0, MFI 50, CMF 0).
    rng = np.random.default_rng(7)
    close = np.concatenate([100 + np.cumsum(rng.normal(0, 1, 2000)), np.full(30, 90.0)])
    high, low = close + 1, close - 1
    high[-30:] = low[-30:] = 90.0
    volume = np.concatenate([rng.uniform(1e6, 5e7, 2000), np.full(30, 1e7)])
    with strict():
        assert extra.cmo(close, 14)[-5:].tolist() == [0.0] * 5
        assert extra.money_flow_index(high, low, close, volume, 14)[-5:].tolist() == [50.0] * 5
        assert extra.chaikin_money_flow(high, low, close, volume, 20)[-5:].tolist() == [0.0] * 5
        volume[-30:] = 0.0
        assert extra.chaikin_money_flow(high, low, close, volume, 20)[-5:].tolist() == [0.0] * 5


def test_accumulation_distribution_and_chaikin_oscillator_hand_values() -> None:
    high, low = np.full(5, 12.0), np.full(5, 10.0)
    close = arr(12, 10, 11, 12, 12)  # multipliers 1, -1, 0, 1, 1
    volume = arr(100, 200, 300, 400, 500)
    ad = extra.accumulation_distribution(high, low, close, volume)
    np.testing.assert_array_equal(ad, [100, -100, -100, 300, 800])
    # EMA2 (seed bar 1 = 0): -200/3, 1600/9, 16000/27; EMA3 (seed bar 2 = -100/3): 400/3,
    # 1400/3. Oscillator = difference, first at bar 2.
    osc = extra.chaikin_oscillator(high, low, close, volume, 2, 3)
    np.testing.assert_allclose(osc, [NAN, NAN, -100 / 3, 400 / 9, 3400 / 27], rtol=1e-13)
    # TA-Lib's ADOSC seeds both EMAs with AD[0] = 100, so its first values differ.
    theirs = talib.ADOSC(high, low, close, volume, fastperiod=2, slowperiod=3)
    assert np.isnan(theirs[:2]).all()
    assert theirs[2] != pytest.approx(-100 / 3, abs=1.0)


def test_chaikin_money_flow_hand_values() -> None:
    high, low = np.full(3, 12.0), np.full(3, 10.0)
    close, volume = arr(12, 10, 11.5), arr(100, 300, 200)  # MFM 1, -1, 0.5
    np.testing.assert_allclose(extra.chaikin_money_flow(high, low, close, volume, 2),
                               [NAN, -200 / 400, -200 / 500], rtol=1e-14)


def test_vwap_hand_values_and_no_volume_yet() -> None:
    high, low, close = arr(3, 6, 9), arr(1, 2, 3), arr(2, 4, 6)  # TP 2, 4, 6
    with strict():
        got = extra.vwap(high, low, close, arr(0, 10, 30))
    np.testing.assert_allclose(got, [NAN, 4, (40 + 180) / 40], rtol=1e-14)
    assert talib.VWAP(high, low, close, arr(0, 10, 30))[0] == 0.0  # TA-Lib: 0, not a price


def test_balance_of_power_hand_values() -> None:
    got = extra.balance_of_power(arr(10, 5), arr(12, 5), arr(8, 5), arr(11, 5))
    np.testing.assert_array_equal(got, [0.25, 0.0])


def test_pivot_points_use_the_previous_bar() -> None:
    high, low, close = arr(12, 100), arr(9, 50), arr(12, 70)  # bar 0: P = 11, range 3
    p = extra.pivot_points(high, low, close)
    assert [line[1] for line in p] == [11, 13, 14, 16, 10, 8, 7]
    assert all(np.isnan(line[0]) for line in p)
    f = extra.fibonacci_pivot_points(high, low, close)
    np.testing.assert_allclose([line[1] for line in f],
                               [11, 12.146, 12.854, 14, 9.854, 9.146, 8], rtol=1e-14)
    assert f._fields == ("pivot", "r1", "r2", "r3", "s1", "s2", "s3")


def test_fibonacci_retracement_hand_values() -> None:
    fib = extra.fibonacci_retracement(arr(10, 12, 11, 9), arr(8, 9, 7, 8), 3)
    assert np.isnan(fib.swing_high[:2]).all()
    np.testing.assert_array_equal(fib.swing_high[2:], [12, 12])
    np.testing.assert_array_equal(fib.swing_low[2:], [7, 7])
    np.testing.assert_allclose([line[3] for line in fib[2:]],
                               [10.82, 10.09, 9.5, 8.91, 8.07], rtol=1e-13)


def test_heikin_ashi_hand_values() -> None:
    o, h, lo, c = arr(10, 11), arr(12, 13), arr(9, 10), arr(11, 12)
    ha = extra.heikin_ashi(o, h, lo, c)
    # close (O+H+L+C)/4: 10.5, 11.5; open: (10+11)/2 = 10.5, then (10.5 + 10.5)/2.
    np.testing.assert_array_equal(ha.close, [10.5, 11.5])
    np.testing.assert_array_equal(ha.open, [10.5, 10.5])
    np.testing.assert_array_equal(ha.high, [12, 13])
    np.testing.assert_array_equal(ha.low, [9, 10])


ZIGZAG_HIGH = arr(100, 102, 106, 110, 109, 105, 104, 107)
ZIGZAG_LOW = arr(99, 100, 104, 108, 104, 101, 102, 105)


def test_zigzag_last_pivot_confirmed_and_running() -> None:
    # Bar 2 (106 >= 99 * 1.05) confirms the low of bar 0; bar 4 (104 <= 110 * 0.95) the
    # high of bar 3; bar 5 extends the leg down to 101; bar 7 (107 >= 101 * 1.05)
    # confirms that low.
    h, lo = ZIGZAG_HIGH[:7], ZIGZAG_LOW[:7]
    assert extra.zigzag_last_pivot(h, lo) == (3, 110.0, True)
    # The v2 reference reports the running extreme of the leg in progress instead.
    assert extra.zigzag_last_pivot(h, lo, confirmed=False) == (5, 101.0, False)
    assert extra.zigzag_last_pivot(ZIGZAG_HIGH, ZIGZAG_LOW) == (5, 101.0, False)
    assert extra.zigzag_last_pivot(ZIGZAG_HIGH, ZIGZAG_LOW, confirmed=False) == (7, 107.0, True)
    assert extra.zigzag_last_pivot(h[:4], lo[:4]) == (0, 99.0, False)
    assert extra.zigzag_last_pivot(h[:4], lo[:4], confirmed=False) == (3, 110.0, True)


def test_zigzag_pivot_is_the_first_bar_at_the_extreme() -> None:
    high, low = arr(100, 106, 110, 110, 104), arr(99, 104, 108, 108, 103)
    assert extra.zigzag_last_pivot(high, low) == (2, 110.0, True)
    assert extra.zigzag_last_pivot(high[:4], low[:4], confirmed=False) == (2, 110.0, True)
    high, low = arr(100, 99, 96, 96, 100), arr(99, 94, 92, 92, 97)  # same in a leg down
    assert extra.zigzag_last_pivot(high, low) == (2, 92.0, False)


def test_zigzag_outside_bar_before_the_first_pivot_confirms_the_older_extreme() -> None:
    # Bar 2 rises 5 % above the low of bar 1 and falls 5 % below the high of bar 0: the
    # older extreme (the high of bar 0) is the first pivot, the leg down runs to bar 2.
    high, low = arr(100, 99.5, 102), arr(99, 97, 94.9)
    assert extra.zigzag_last_pivot(high, low) == (0, 100.0, True)
    assert extra.zigzag_last_pivot(high, low, confirmed=False) == (2, 94.9, False)


def test_zigzag_first_pivot_can_be_a_high() -> None:
    high, low = arr(100, 99, 94), arr(99, 96, 93)  # 93 <= 100 * 0.95
    assert extra.zigzag_last_pivot(high, low) == (0, 100.0, True)
    assert extra.zigzag_last_pivot(high, low, confirmed=False) == (2, 93.0, False)
    assert extra.zigzag_last_pivot(high, low, threshold=0.1) is None


def test_zigzag_last_pivot_on_real_data_is_a_real_extreme(oracle_series: PriceArrays) -> None:
    b = oracle_series
    pivot = extra.zigzag_last_pivot(b.high, b.low)
    assert pivot is not None
    series = b.high if pivot.is_high else b.low
    assert series[pivot.index] == pivot.price
    # Confirmed: some later bar moved 5 % away from it.
    later = b.low[pivot.index + 1:] if pivot.is_high else b.high[pivot.index + 1:]
    if pivot.is_high:
        assert later.min() <= pivot.price * 0.95
    else:
        assert later.max() >= pivot.price * 1.05
    running = extra.zigzag_last_pivot(b.high, b.low, confirmed=False)
    assert running is not None and running.index > pivot.index
    assert running.is_high != pivot.is_high


# --------------------------------------------------------------------------- edge cases

def _outputs(result: Any) -> list[np.ndarray]:
    return list(result) if isinstance(result, tuple) else [result]


# name -> (function of (open, high, low, close, volume), first defined bar)
CASES: dict[str, tuple[Callable[..., Any], int]] = {
    "dema": (lambda o, h, lo, c, v: extra.dema(c, 20), 38),
    "tema": (lambda o, h, lo, c, v: extra.tema(c, 20), 57),
    "hma": (lambda o, h, lo, c, v: extra.hma(c, 20), 22),
    "alma": (lambda o, h, lo, c, v: extra.alma(c), 8),
    "mcginley_dynamic": (lambda o, h, lo, c, v: extra.mcginley_dynamic(c, 20), 19),
    "williams_r": (lambda o, h, lo, c, v: extra.williams_r(h, lo, c, 14), 13),
    "roc": (lambda o, h, lo, c, v: extra.roc(c, 12), 12),
    "momentum": (lambda o, h, lo, c, v: extra.momentum(c, 10), 10),
    "cmo": (lambda o, h, lo, c, v: extra.cmo(c, 14), 14),
    "awesome_oscillator": (lambda o, h, lo, c, v: extra.awesome_oscillator(h, lo), 33),
    "coppock_curve": (lambda o, h, lo, c, v: extra.coppock_curve(c), 23),
    "parabolic_sar": (lambda o, h, lo, c, v: extra.parabolic_sar(h, lo), 1),
    "bull_bear_power": (lambda o, h, lo, c, v: extra.bull_bear_power(h, lo, c), 12),
    "keltner_channels": (lambda o, h, lo, c, v: extra.keltner_channels(h, lo, c), 19),
    "donchian_channels": (lambda o, h, lo, c, v: extra.donchian_channels(h, lo), 19),
    "choppiness_index": (lambda o, h, lo, c, v: extra.choppiness_index(h, lo, c), 14),
    "money_flow_index": (lambda o, h, lo, c, v: extra.money_flow_index(h, lo, c, v), 14),
    "chaikin_money_flow": (lambda o, h, lo, c, v: extra.chaikin_money_flow(h, lo, c, v), 19),
    "accumulation_distribution": (
        lambda o, h, lo, c, v: extra.accumulation_distribution(h, lo, c, v), 0),
    "chaikin_oscillator": (lambda o, h, lo, c, v: extra.chaikin_oscillator(h, lo, c, v), 9),
    "vwap": (lambda o, h, lo, c, v: extra.vwap(h, lo, c, v), 0),
    "balance_of_power": (lambda o, h, lo, c, v: extra.balance_of_power(o, h, lo, c), 0),
    "pivot_points": (lambda o, h, lo, c, v: extra.pivot_points(h, lo, c), 1),
    "fibonacci_pivot_points": (lambda o, h, lo, c, v: extra.fibonacci_pivot_points(h, lo, c),
                               1),
    "heikin_ashi": (lambda o, h, lo, c, v: extra.heikin_ashi(o, h, lo, c), 0),
    "fibonacci_retracement": (lambda o, h, lo, c, v: extra.fibonacci_retracement(h, lo), 49),
}


def _walk(n: int, seed: int = 3) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    close = 50 + np.cumsum(rng.normal(0, 1, n))
    open_ = close + rng.normal(0, 0.3, n)
    high = np.maximum(open_, close) + rng.uniform(0, 1, n)
    low = np.minimum(open_, close) - rng.uniform(0, 1, n)
    return open_, high, low, close, rng.uniform(1e5, 1e6, n)


@pytest.mark.parametrize("name", CASES)
def test_warm_up_length(name: str) -> None:
    func, first = CASES[name]
    with strict():
        short = _outputs(func(*_walk(first)))
        enough = _outputs(func(*_walk(first + 1)))
    for line in short:
        assert line.shape == (first,) and np.isnan(line).all()
    for line in enough:
        assert np.isnan(line[:first]).all() and not np.isnan(line[first])
    with strict():
        long = _outputs(func(*_walk(300)))
    for line in long:
        assert np.isfinite(line[first:]).all()


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("bars", [0, 1, 2])
def test_no_bars_one_bar_two_bars(name: str, bars: int) -> None:
    func, first = CASES[name]
    with strict():
        lines = _outputs(func(*_walk(bars)))
    for line in lines:
        assert line.shape == (bars,)
        assert np.isnan(line[:first]).all()


@pytest.mark.parametrize("name", CASES)
def test_constant_prices_and_zero_volume(name: str) -> None:
    func, first = CASES[name]
    flat = np.full(120, 25.0)
    for volume in (np.full(120, 1e6), np.zeros(120)):
        with strict():
            lines = _outputs(func(flat, flat, flat, flat, volume))
        for line in lines:
            assert not np.isinf(line).any()
            if name == "vwap" and not volume.any():
                assert np.isnan(line).all()  # no volume traded yet: no price
            else:
                assert np.isfinite(line[first:]).all()


def test_constant_prices_give_documented_values() -> None:
    flat = np.full(60, 25.0)
    volume = np.full(60, 1e6)
    with strict():
        assert extra.williams_r(flat, flat, flat)[-1] == -50.0
        assert extra.cmo(flat)[-1] == 0.0
        assert extra.roc(flat)[-1] == 0.0
        assert extra.money_flow_index(flat, flat, flat, volume)[-1] == 50.0
        assert extra.chaikin_money_flow(flat, flat, flat, volume)[-1] == 0.0
        assert extra.chaikin_money_flow(flat, flat, flat, volume * 0)[-1] == 0.0
        assert extra.choppiness_index(flat, flat, flat)[-1] == 50.0
        assert extra.balance_of_power(flat, flat, flat, flat)[-1] == 0.0
        assert extra.accumulation_distribution(flat, flat, flat, volume)[-1] == 0.0
        assert extra.chaikin_oscillator(flat, flat, flat, volume)[-1] == 0.0
        assert extra.vwap(flat, flat, flat, volume)[-1] == 25.0
        for value in (extra.dema(flat, 20)[-1], extra.tema(flat, 20)[-1],
                      extra.hma(flat, 20)[-1], extra.alma(flat)[-1],
                      extra.mcginley_dynamic(flat, 20)[-1], extra.parabolic_sar(flat, flat)[-1]):
            assert value == pytest.approx(25.0, rel=1e-12)
        assert extra.zigzag_last_pivot(flat, flat) is None
        assert extra.zigzag_last_pivot(flat, flat, confirmed=False) is None


@pytest.mark.parametrize("bars", [0, 1])
def test_zigzag_with_few_bars_is_none(bars: int) -> None:
    _, high, low, _, _ = _walk(bars)
    with strict():
        assert extra.zigzag_last_pivot(high, low) is None
        assert extra.zigzag_last_pivot(high, low, confirmed=False) is None


def test_zigzag_over_zero_prices_is_none() -> None:
    zero = np.zeros(5)
    with strict():
        assert extra.zigzag_last_pivot(zero, zero) is None
        assert extra.zigzag_last_pivot(zero, zero, confirmed=False) is None


def test_money_flow_index_rounding_tie_is_unchanged() -> None:
    # Typical prices 89.65/3 twice, computed from different H/L/C: the doubles differ by
    # one bit (bar 2 is "lower"), but the price did not move: that flow counts for neither.
    high, low, close = arr(29.0, 30.01, 29.99), arr(28.0, 29.7, 29.75), arr(28.5, 29.94, 29.91)
    assert (high + low + close)[2] < (high + low + close)[1]  # the rounding artefact
    # Bar 1 is a rise (flow 100 * 89.65/3); bar 2 neither: MFI2 at bar 2 = 100.
    got = extra.money_flow_index(high, low, close, arr(100, 100, 100), 2)
    assert got[2] == pytest.approx(100.0, rel=1e-12)  # counted as a fall it would be 50
    assert talib.MFI(high, low, close, arr(100, 100, 100), timeperiod=2)[2] == pytest.approx(
        100.0, rel=1e-12)


def test_inputs_with_leading_nans_start_at_their_first_value() -> None:
    # The smoothers accept another indicator's output (NaN warm-up first).
    x = np.concatenate([np.full(5, NAN), _walk(80)[3]])
    with strict():
        assert core.first_valid(extra.dema(x, 10)) == 5 + 18
        assert core.first_valid(extra.hma(x, 9)) == 5 + 8 + 2
        assert core.first_valid(extra.alma(x, 9)) == 5 + 8
        assert core.first_valid(extra.mcginley_dynamic(x, 9)) == 5 + 8
        assert core.first_valid(extra.cmo(x, 9)) == 5 + 9
