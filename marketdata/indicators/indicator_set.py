"""The v2 indicator set: every indicator's value at the last bar of a series, declared on
:class:`IndicatorSet` (its numbers, and its objects: a multi-line indicator's lines, each a
small record), where it is computed.

Each member is the series value at the **last bar** (null when it is not defined there:
too few bars, or an undefined value such as a VWMA over zero volume) rather than the last
non-null value an earlier bar had, which would present an old number as current. The
exceptions are the ones the definitions imply: pivot points come from the previous bar,
Ichimoku's leading spans are the cloud drawn at the last bar (computed ``kijun`` bars
earlier) and its lagging span is the last close (the value drawn ``kijun`` bars back), and
the zig-zag reports its last pivot wherever it was. An object is null when none of its
numbers is defined.

Prices and price differences are in the series' currency (index points for an index);
volumes in shares (or contracts, units) traded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from marketdata.indicators import classic, core, extra
from marketdata.indicators.bars import PriceArrays
from marketdata.indicators.core import last
from marketdata.records.members import member

MOVING_AVERAGE_PERIODS = (10, 20, 50, 100, 200)

# Every number of the set is a double; a timestamp or a volume a 64-bit integer.
DOUBLE = {"format": "double"}
INT64 = {"format": "int64"}
_PRICE = "in the series' currency"


def _number(description: str) -> Any:
    """A number member of the set (or of an object's lines): a double, null when not
    defined at the last bar."""
    return member(description, schema=DOUBLE)


def _price(description: str) -> Any:
    """A number member in the series' currency."""
    return _number(f"{description}, {_PRICE}")


def _ma(kind: str, period: int) -> Any:
    return _price(f"{kind} of the close over {period} bars")


# -- the lines of the set's objects ----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AroonLines:
    aroon_up: float | None = _number("100 x (period - bars since the highest high) / "
                                     "period, 0..100")
    aroon_down: float | None = _number("100 x (period - bars since the lowest low) / "
                                       "period, 0..100")


@dataclass(frozen=True, slots=True)
class BandLines:
    upper: float | None = _price("Upper band")
    middle: float | None = _price("Middle line")
    lower: float | None = _price("Lower band")


@dataclass(frozen=True, slots=True)
class PowerLines:
    bull_power: float | None = _price("High - EMA of the close")
    bear_power: float | None = _price("Low - EMA of the close")


@dataclass(frozen=True, slots=True)
class PivotLevels:
    pivot: float | None = _price("Pivot P = (high + low + close) / 3")
    r1: float | None = _price("First resistance")
    r2: float | None = _price("Second resistance")
    r3: float | None = _price("Third resistance")
    s1: float | None = _price("First support")
    s2: float | None = _price("Second support")
    s3: float | None = _price("Third support")


@dataclass(frozen=True, slots=True)
class RetracementLevels:
    swing_high: float | None = _price("Highest high of the window (HH)")
    swing_low: float | None = _price("Lowest low of the window (LL)")
    level236: float | None = _price("HH - 0.236 x (HH - LL)")
    level382: float | None = _price("HH - 0.382 x (HH - LL)")
    level50: float | None = _price("HH - 0.5 x (HH - LL)")
    level618: float | None = _price("HH - 0.618 x (HH - LL)")
    level786: float | None = _price("HH - 0.786 x (HH - LL)")


@dataclass(frozen=True, slots=True)
class HeikinAshiCandle:
    timestamp: int = member("The last bar's start, Unix seconds", schema=INT64)
    open: float | None = _price("(the previous Heikin-Ashi open + close) / 2")
    high: float | None = _price("max(the bar's high, the Heikin-Ashi open and close)")
    low: float | None = _price("min(the bar's low, the Heikin-Ashi open and close)")
    close: float | None = _price("(open + high + low + close) / 4 of the bar")
    adj_close: float | None = _number(f"The last bar's adjusted close, {_PRICE}; null "
                                      "without one")
    volume: int = member("The last bar's volume", schema=INT64)


@dataclass(frozen=True, slots=True)
class IchimokuLines:
    conversion_line: float | None = _price("Tenkan-sen: midpoint of the highest high and "
                                           "the lowest low of 9 bars")
    base_line: float | None = _price("Kijun-sen: the same midpoint over 26 bars")
    leading_span_a: float | None = _price("Senkou span A drawn at the last bar: (conversion "
                                          "+ base) / 2 of 26 bars earlier")
    leading_span_b: float | None = _price("Senkou span B drawn at the last bar: the 52-bar "
                                          "midpoint of 26 bars earlier")
    lagging_span: float | None = _price("Chikou span: the last close (drawn 26 bars back)")


@dataclass(frozen=True, slots=True)
class MacdLines:
    macd: float | None = _price("EMA 12 - EMA 26 of the close")
    signal: float | None = _price("EMA 9 of the MACD line")
    histogram: float | None = _price("MACD - signal")


@dataclass(frozen=True, slots=True)
class StochasticLines:
    k: float | None = _number("%K: the raw %K smoothed by an SMA of 3, 0..100")
    d: float | None = _number("%D: SMA 3 of %K, 0..100")


@dataclass(frozen=True, slots=True)
class SupertrendLine:
    value: float = _price("The trailing band: the lower band in an uptrend, the upper in a "
                          "downtrend")
    trend: Literal["up", "down"] = member("The trend at the last bar")


@dataclass(frozen=True, slots=True)
class ZigzagPoint:
    index: int = member("The pivot bar's position in the series (0: the first bar)")
    price: float = _price("The pivot's high (a top) or low (a bottom)")
    is_high: bool = member("Whether the pivot is a top")


# -- the set ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class IndicatorSet:
    """The spec's "Indicator set": every indicator at the last bar, members in alphabetical
    order (as Python sorts their names: ``ema10``, ``ema100``, ``ema20``...)."""

    accumulation_distribution: float | None = _number(
        "Chaikin's accumulation/distribution line: running sum of the money flow multiplier "
        "((close - low) - (high - close)) / (high - low) x volume from the first bar; volume "
        "units")
    adx14: float | None = _number("Wilder's average directional index over 14 bars, 0..100")
    alma9: float | None = _price("Arnaud Legoux moving average of the close over 9 bars "
                                 "(offset 0.85, sigma 6)")
    aroon: AroonLines | None = member("Chande's Aroon over 25 bars")
    atr14: float | None = _price("Wilder's average true range over 14 bars")
    awesome_oscillator: float | None = _price(
        "Bill Williams' awesome oscillator: SMA 5 - SMA 34 of the median price (high + low) "
        "/ 2")
    balance_of_power: float | None = _number(
        "(close - open) / (high - low) of the last bar, -1..1 (0 when high = low)")
    bollinger_bands: BandLines | None = member(
        "Bollinger bands: SMA 20 of the close +/- 2 population standard deviations")
    bull_bear_power: PowerLines | None = member("Elder's bull and bear power, EMA 13")
    cci20: float | None = _number("Lambert's commodity channel index over 20 bars: (typical "
                                  "price - its SMA) / (0.015 x mean absolute deviation); "
                                  "dimensionless")
    chaikin_oscillator: float | None = _number(
        "Chaikin oscillator: EMA 3 - EMA 10 of the accumulation/distribution line; volume "
        "units")
    choppiness_index14: float | None = _number(
        "Dreiss' choppiness index over 14 bars, 0 (trending) .. 100 (choppy)")
    cmf20: float | None = _number("Chaikin money flow over 20 bars, -1..1")
    cmo14: float | None = _number("Chande momentum oscillator over 14 bars, -100..100")
    coppock_curve: float | None = _number(
        "Coppock curve: WMA 10 of ROC 14 + ROC 11 of the close, percent")
    dema20: float | None = _ma("Double exponential moving average", 20)
    donchian_channels: BandLines | None = member(
        "Donchian channels over 20 bars: the highest high, the midpoint and the lowest low")
    elder_ray_index: PowerLines | None = member("Elder ray index: bullBearPower's values")
    ema10: float | None = _ma("Exponential moving average (SMA-seeded)", 10)
    ema100: float | None = _ma("Exponential moving average (SMA-seeded)", 100)
    ema20: float | None = _ma("Exponential moving average (SMA-seeded)", 20)
    ema200: float | None = _ma("Exponential moving average (SMA-seeded)", 200)
    ema50: float | None = _ma("Exponential moving average (SMA-seeded)", 50)
    fibonacci_pivot_points: PivotLevels | None = member(
        "Fibonacci pivot points from the previous bar: P = (high + low + close) / 3, R/S 1-3 "
        "= P +/- 0.382, 0.618, 1 x (high - low)")
    fibonacci_retracement50: RetracementLevels | None = member(
        "Fibonacci retracement levels of the swing of the last 50 bars (the last included)")
    heikin_ashi: HeikinAshiCandle | None = member("The last Heikin-Ashi candle; null without "
                                                  "bars")
    hma20: float | None = _ma("Hull moving average", 20)
    ichimoku: IchimokuLines | None = member("Hosoda's Ichimoku cloud (9, 26, 52) at the last "
                                            "bar")
    keltner_channels: BandLines | None = member(
        "Keltner channels: EMA 20 of the close +/- 2 x ATR 10")
    macd: MacdLines | None = member("MACD (12, 26, 9) of the close")
    mcginley_dynamic20: float | None = _ma("McGinley dynamic", 20)
    mfi14: float | None = _number("Money flow index over 14 bars, 0..100")
    momentum10: float | None = _price("Close - the close 10 bars earlier")
    obv: float | None = _number("Granville's on-balance volume from the first bar; volume "
                                "units")
    parabolic_sar: float | None = _price("Wilder's parabolic SAR (step 0.02, maximum 0.2)")
    pivot_points: PivotLevels | None = member(
        "Classic floor-trader pivot points from the previous bar: R1 = 2P - low, S1 = 2P - "
        "high, R2/S2 = P +/- (high - low), R3 = high + 2(P - low), S3 = low - 2(high - P)")
    roc12: float | None = _number("Rate of change over 12 bars, percent")
    rsi14: float | None = _number("Wilder's relative strength index over 14 bars, 0..100")
    sma10: float | None = _ma("Simple moving average", 10)
    sma100: float | None = _ma("Simple moving average", 100)
    sma20: float | None = _ma("Simple moving average", 20)
    sma200: float | None = _ma("Simple moving average", 200)
    sma50: float | None = _ma("Simple moving average", 50)
    stochastic: StochasticLines | None = member("Lane's full stochastic (14, 3, 3)")
    stochastic_rsi: StochasticLines | None = member(
        "Stochastic RSI: the full stochastic (14, 3, 3) of RSI 14")
    supertrend: SupertrendLine | None = member("SuperTrend (ATR 10, multiplier 3)")
    tema20: float | None = _ma("Triple exponential moving average", 20)
    true_range: float | None = _price("The last bar's true range: max(high, previous close) "
                                      "- min(low, previous close)")
    vwap: float | None = _price("Volume-weighted average typical price from the first bar "
                                "(no session reset)")
    vwma20: float | None = _ma("Volume-weighted moving average", 20)
    williams_r14: float | None = _number("Williams %R over 14 bars, -100..0")
    wma10: float | None = _ma("Linearly weighted moving average", 10)
    wma100: float | None = _ma("Linearly weighted moving average", 100)
    wma20: float | None = _ma("Linearly weighted moving average", 20)
    wma200: float | None = _ma("Linearly weighted moving average", 200)
    wma50: float | None = _ma("Linearly weighted moving average", 50)
    zigzag_last_pivot: ZigzagPoint | None = member(
        "The last confirmed pivot of a 5 % zig-zag over the highs and lows; null while none")


def _lines(record: type, **arrays: np.ndarray) -> Any:
    """The record of the lines' values at the last bar, or None when none is defined."""
    values = {name: last(series) for name, series in arrays.items()}
    if all(value is None for value in values.values()):
        return None
    return record(**values)


def _pivots(pivots: Any) -> PivotLevels | None:
    return _lines(PivotLevels, pivot=pivots.pivot, r1=pivots.r1, r2=pivots.r2, r3=pivots.r3,
                  s1=pivots.s1, s2=pivots.s2, s3=pivots.s3)


def indicator_set(bars: PriceArrays) -> IndicatorSet:
    """The spec's "Indicator set" of one series."""
    o, h, lo, c, v = bars.open, bars.high, bars.low, bars.close, bars.volume
    out: dict[str, Any] = {}

    for n in MOVING_AVERAGE_PERIODS:
        out[f"sma{n}"] = last(core.sma(c, n))
        out[f"ema{n}"] = last(core.ema(c, n))
        out[f"wma{n}"] = last(core.wma(c, n))
    out["dema20"] = last(extra.dema(c, 20))
    out["tema20"] = last(extra.tema(c, 20))
    out["hma20"] = last(extra.hma(c, 20))
    out["vwma20"] = last(classic.vwma(c, v, 20))
    out["alma9"] = last(extra.alma(c, 9))
    out["mcginley_dynamic20"] = last(extra.mcginley_dynamic(c, 20))

    out["rsi14"] = last(classic.rsi(c, 14))
    k, d = classic.stochastic(h, lo, c, 14, 3, 3)
    out["stochastic"] = _lines(StochasticLines, k=k, d=d)
    k, d = classic.stochastic_rsi(c, 14, 14, 3, 3)
    out["stochastic_rsi"] = _lines(StochasticLines, k=k, d=d)
    out["cci20"] = last(classic.cci(h, lo, c, 20))
    out["williams_r14"] = last(extra.williams_r(h, lo, c, 14))
    out["roc12"] = last(extra.roc(c, 12))
    out["momentum10"] = last(extra.momentum(c, 10))
    out["cmo14"] = last(extra.cmo(c, 14))
    out["awesome_oscillator"] = last(extra.awesome_oscillator(h, lo))
    out["coppock_curve"] = last(extra.coppock_curve(c))

    macd = classic.macd(c, 12, 26, 9)
    out["macd"] = _lines(MacdLines, macd=macd.macd, signal=macd.signal,
                         histogram=macd.histogram)
    out["adx14"] = last(classic.adx(h, lo, c, 14))
    aroon = classic.aroon(h, lo, 25)
    out["aroon"] = _lines(AroonLines, aroon_up=aroon.up, aroon_down=aroon.down)
    trend = classic.supertrend(h, lo, c, 10, 3)
    value, direction = last(trend.value), last(trend.trend)
    out["supertrend"] = None if value is None else SupertrendLine(
        value, "up" if direction and direction > 0 else "down")
    cloud = classic.ichimoku(h, lo, c, 9, 26, 52)
    out["ichimoku"] = _lines(
        IchimokuLines, conversion_line=cloud.tenkan_sen, base_line=cloud.kijun_sen,
        leading_span_a=cloud.senkou_span_a, leading_span_b=cloud.senkou_span_b,
        lagging_span=c)
    out["parabolic_sar"] = last(extra.parabolic_sar(h, lo))
    power = extra.bull_bear_power(h, lo, c, 13)
    out["bull_bear_power"] = out["elder_ray_index"] = _lines(
        PowerLines, bull_power=power.bull_power, bear_power=power.bear_power)

    bands = classic.bollinger_bands(c, 20, 2)
    out["bollinger_bands"] = _lines(BandLines, upper=bands.upper, middle=bands.middle,
                                    lower=bands.lower)
    out["atr14"] = last(core.atr(h, lo, c, 14))
    keltner = extra.keltner_channels(h, lo, c, 20, 10, 2.0)
    out["keltner_channels"] = _lines(BandLines, upper=keltner.upper, middle=keltner.middle,
                                     lower=keltner.lower)
    donchian = extra.donchian_channels(h, lo, 20)
    out["donchian_channels"] = _lines(BandLines, upper=donchian.upper,
                                      middle=donchian.middle, lower=donchian.lower)
    out["true_range"] = last(core.true_range(h, lo, c))
    out["choppiness_index14"] = last(extra.choppiness_index(h, lo, c, 14))

    out["obv"] = last(classic.obv(c, v))
    out["mfi14"] = last(extra.money_flow_index(h, lo, c, v, 14))
    out["cmf20"] = last(extra.chaikin_money_flow(h, lo, c, v, 20))
    out["chaikin_oscillator"] = last(extra.chaikin_oscillator(h, lo, c, v))
    out["accumulation_distribution"] = last(extra.accumulation_distribution(h, lo, c, v))
    out["vwap"] = last(extra.vwap(h, lo, c, v))
    out["balance_of_power"] = last(extra.balance_of_power(o, h, lo, c))

    out["pivot_points"] = _pivots(extra.pivot_points(h, lo, c))
    out["fibonacci_pivot_points"] = _pivots(extra.fibonacci_pivot_points(h, lo, c))
    fib = extra.fibonacci_retracement(h, lo, 50)
    out["fibonacci_retracement50"] = _lines(
        RetracementLevels, swing_high=fib.swing_high, swing_low=fib.swing_low,
        level236=fib.level236, level382=fib.level382, level50=fib.level50,
        level618=fib.level618, level786=fib.level786)
    out["heikin_ashi"] = _heikin_ashi(bars)
    pivot = extra.zigzag_last_pivot(h, lo)
    out["zigzag_last_pivot"] = None if pivot is None else ZigzagPoint(
        int(pivot.index), float(pivot.price), bool(pivot.is_high))
    return IndicatorSet(**out)


def _heikin_ashi(bars: PriceArrays) -> HeikinAshiCandle | None:
    if len(bars) == 0:
        return None
    candle = extra.heikin_ashi(bars.open, bars.high, bars.low, bars.close)
    adj = None if bars.adjclose is None else last(bars.adjclose)
    return HeikinAshiCandle(int(bars.timestamps[-1]), last(candle.open), last(candle.high),
                            last(candle.low), last(candle.close), adj, int(bars.volume[-1]))
