"""The v2 indicator set: every indicator's value at the last bar of a series.

Each member is the series value at the **last bar** (null when it is not defined there:
too few bars, or an undefined value such as a VWMA over zero volume) rather than the last
non-null value an earlier bar had, which would present an old number as current. The
exceptions are the ones the definitions imply: pivot points come from the previous bar,
Ichimoku's leading spans are the cloud drawn at the last bar (computed ``kijun`` bars
earlier) and its lagging span is the last close (the value drawn ``kijun`` bars back), and
the zig-zag reports its last pivot wherever it was.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from marketdata.indicators import classic, core, extra
from marketdata.indicators.bars import PriceArrays
from marketdata.indicators.core import last

MOVING_AVERAGE_PERIODS = (10, 20, 50, 100, 200)


def _object(**members: float | str | int | bool | None) -> dict[str, Any] | None:
    """A member object, or None when none of its numbers is defined."""
    if all(v is None for k, v in members.items() if k not in ("trend", "isHigh")):
        return None
    return members


def _lines(**arrays: np.ndarray) -> dict[str, Any] | None:
    return _object(**{name: last(values) for name, values in arrays.items()})


def _pivots(pivots: Any) -> dict[str, Any] | None:
    return _lines(pivot=pivots.pivot, r1=pivots.r1, r2=pivots.r2, r3=pivots.r3,
                  s1=pivots.s1, s2=pivots.s2, s3=pivots.s3)


def indicator_set(bars: PriceArrays) -> dict[str, Any]:
    """The spec's "Indicator set" for one series (members in alphabetical order)."""
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
    out["mcginleyDynamic20"] = last(extra.mcginley_dynamic(c, 20))

    out["rsi14"] = last(classic.rsi(c, 14))
    out["stochastic"] = _lines(**dict(zip(("k", "d"), classic.stochastic(h, lo, c, 14, 3, 3),
                                          strict=True)))
    out["stochasticRsi"] = _lines(**dict(zip(("k", "d"), classic.stochastic_rsi(c, 14, 14, 3, 3),
                                             strict=True)))
    out["cci20"] = last(classic.cci(h, lo, c, 20))
    out["williamsR14"] = last(extra.williams_r(h, lo, c, 14))
    out["roc12"] = last(extra.roc(c, 12))
    out["momentum10"] = last(extra.momentum(c, 10))
    out["cmo14"] = last(extra.cmo(c, 14))
    out["awesomeOscillator"] = last(extra.awesome_oscillator(h, lo))
    out["coppockCurve"] = last(extra.coppock_curve(c))

    macd = classic.macd(c, 12, 26, 9)
    out["macd"] = _lines(macd=macd.macd, signal=macd.signal, histogram=macd.histogram)
    out["adx14"] = last(classic.adx(h, lo, c, 14))
    aroon = classic.aroon(h, lo, 25)
    out["aroon"] = _lines(aroonUp=aroon.up, aroonDown=aroon.down)
    trend = classic.supertrend(h, lo, c, 10, 3)
    value, direction = last(trend.value), last(trend.trend)
    out["supertrend"] = None if value is None else {
        "value": value, "trend": "up" if direction and direction > 0 else "down"}
    cloud = classic.ichimoku(h, lo, c, 9, 26, 52)
    out["ichimoku"] = _object(
        conversionLine=last(cloud.tenkan_sen), baseLine=last(cloud.kijun_sen),
        leadingSpanA=last(cloud.senkou_span_a), leadingSpanB=last(cloud.senkou_span_b),
        laggingSpan=last(c))
    out["parabolicSar"] = last(extra.parabolic_sar(h, lo))
    power = extra.bull_bear_power(h, lo, c, 13)
    out["bullBearPower"] = _lines(bullPower=power.bull_power, bearPower=power.bear_power)
    out["elderRayIndex"] = out["bullBearPower"] and dict(out["bullBearPower"])

    bands = classic.bollinger_bands(c, 20, 2)
    out["bollingerBands"] = _lines(upper=bands.upper, middle=bands.middle, lower=bands.lower)
    out["atr14"] = last(core.atr(h, lo, c, 14))
    keltner = extra.keltner_channels(h, lo, c, 20, 10, 2.0)
    out["keltnerChannels"] = _lines(upper=keltner.upper, middle=keltner.middle,
                                    lower=keltner.lower)
    donchian = extra.donchian_channels(h, lo, 20)
    out["donchianChannels"] = _lines(upper=donchian.upper, middle=donchian.middle,
                                     lower=donchian.lower)
    out["trueRange"] = last(core.true_range(h, lo, c))
    out["choppinessIndex14"] = last(extra.choppiness_index(h, lo, c, 14))

    out["obv"] = last(classic.obv(c, v))
    out["mfi14"] = last(extra.money_flow_index(h, lo, c, v, 14))
    out["cmf20"] = last(extra.chaikin_money_flow(h, lo, c, v, 20))
    out["chaikinOscillator"] = last(extra.chaikin_oscillator(h, lo, c, v))
    out["accumulationDistribution"] = last(extra.accumulation_distribution(h, lo, c, v))
    out["vwap"] = last(extra.vwap(h, lo, c, v))
    out["balanceOfPower"] = last(extra.balance_of_power(o, h, lo, c))

    out["pivotPoints"] = _pivots(extra.pivot_points(h, lo, c))
    out["fibonacciPivotPoints"] = _pivots(extra.fibonacci_pivot_points(h, lo, c))
    fib = extra.fibonacci_retracement(h, lo, 50)
    out["fibonacciRetracement50"] = _lines(
        swingHigh=fib.swing_high, swingLow=fib.swing_low, level236=fib.level236,
        level382=fib.level382, level50=fib.level50, level618=fib.level618,
        level786=fib.level786)
    out["heikinAshi"] = _heikin_ashi(bars)
    pivot = extra.zigzag_last_pivot(h, lo)
    out["zigzagLastPivot"] = None if pivot is None else {
        "index": int(pivot.index), "price": float(pivot.price), "isHigh": bool(pivot.is_high)}
    return dict(sorted(out.items()))


def _heikin_ashi(bars: PriceArrays) -> dict[str, Any] | None:
    if len(bars) == 0:
        return None
    candle = extra.heikin_ashi(bars.open, bars.high, bars.low, bars.close)
    adj = None if bars.adjclose is None else last(bars.adjclose)
    return {"timestamp": int(bars.timestamps[-1]), "open": last(candle.open),
            "high": last(candle.high), "low": last(candle.low), "close": last(candle.close),
            "adjClose": adj, "volume": int(bars.volume[-1])}


NUMBER_MEMBERS = (
    "accumulationDistribution", "adx14", "alma9", "atr14", "awesomeOscillator",
    "balanceOfPower", "cci20", "chaikinOscillator", "choppinessIndex14", "cmf20", "cmo14",
    "coppockCurve", "dema20", "ema10", "ema20", "ema50", "ema100", "ema200", "hma20",
    "mcginleyDynamic20", "mfi14", "momentum10", "obv", "parabolicSar", "roc12", "rsi14",
    "sma10", "sma20", "sma50", "sma100", "sma200", "tema20", "trueRange", "vwap", "vwma20",
    "williamsR14", "wma10", "wma20", "wma50", "wma100", "wma200")
OBJECT_MEMBERS = (
    "aroon", "bollingerBands", "bullBearPower", "donchianChannels", "elderRayIndex",
    "fibonacciPivotPoints", "fibonacciRetracement50", "heikinAshi", "ichimoku",
    "keltnerChannels", "macd", "pivotPoints", "stochastic", "stochasticRsi", "supertrend",
    "zigzagLastPivot")
MEMBERS = tuple(sorted(NUMBER_MEMBERS + OBJECT_MEMBERS))
