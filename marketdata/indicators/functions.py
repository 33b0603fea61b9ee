"""The v1 indicator functions: name, parameters with defaults and bounds, output members.

One table drives validation (which parameters a function takes, their bounds), the OpenAPI
description, the history endpoint and the latest-values endpoint. The computations
themselves live in :mod:`core` and :mod:`classic`; this module only binds parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from marketdata.indicators import classic, core
from marketdata.indicators.bars import PriceArrays

MAX_PERIOD = 1000


@dataclass(frozen=True)
class Param:
    """An integer parameter: python name (the 422 key), query alias, default and bounds."""

    name: str
    alias: str
    default: int | None
    minimum: int = 1
    maximum: int = MAX_PERIOD
    description: str = ""


Series = dict[str, np.ndarray]


@dataclass(frozen=True)
class Function:
    """One v1 function. ``compute(bars, **params)`` returns arrays keyed by the spec's
    member names; ``trend`` (SUPERTREND) holds +1 up / -1 down."""

    name: str
    title: str
    params: tuple[Param, ...]
    members: tuple[str, ...]
    compute: Callable[..., Series]
    # Bars needed for the first bar with any member defined, given the resolved parameters.
    min_bars: Callable[[Mapping[str, int]], int]

    def defaults(self) -> dict[str, int]:
        return {p.name: p.default for p in self.params if p.default is not None}


def _period(default: int, description: str = "Look-back period in bars") -> Param:
    return Param("period", "lookBackPeriod", default, description=description)


def _signal(default: int) -> Param:
    return Param("signal_period", "signalPeriod", default, description="Signal line period")


def _smooth(default: int) -> Param:
    return Param("smooth", "smooth", default, description="Smoothing period of %K")


def _ichimoku(bars: PriceArrays, tenkan_period: int, kijun_period: int,
              senkou_period: int) -> Series:
    lines = classic.ichimoku(bars.high, bars.low, bars.close, tenkan_period, kijun_period,
                             senkou_period)
    return {"tenkan_sen": lines.tenkan_sen, "kijun_sen": lines.kijun_sen,
            "chikou_span": lines.chikou_span, "senkou_span_a": lines.senkou_span_a,
            "senkou_span_b": lines.senkou_span_b}


def _macd(bars: PriceArrays, fast_period: int, slow_period: int, signal_period: int) -> Series:
    lines = classic.macd(bars.close, fast_period, slow_period, signal_period)
    return {"value": lines.macd, "signal": lines.signal}


def _obv(bars: PriceArrays, sma_periods: int | None = None) -> Series:
    line = classic.obv(bars.close, bars.volume)
    return {"value": line if sma_periods is None else core.sma(line, sma_periods)}


_FUNCTIONS: tuple[Function, ...] = (
    Function("SMA", "Simple moving average", (_period(10),), ("value",),
             lambda b, period: {"value": core.sma(b.close, period)},
             lambda p: p["period"]),
    Function("EMA", "Exponential moving average", (_period(10),), ("value",),
             lambda b, period: {"value": core.ema(b.close, period)},
             lambda p: p["period"]),
    Function("WMA", "Weighted moving average", (_period(10),), ("value",),
             lambda b, period: {"value": core.wma(b.close, period)},
             lambda p: p["period"]),
    Function("VWMA", "Volume-weighted moving average", (_period(20),), ("value",),
             lambda b, period: {"value": classic.vwma(b.close, b.volume, period)},
             lambda p: p["period"]),
    Function("RSI", "Relative strength index (Wilder)", (_period(14),), ("value",),
             lambda b, period: {"value": classic.rsi(b.close, period)},
             lambda p: p["period"] + 1),
    Function("SRSI", "Stochastic RSI",
             (_period(14, "RSI period"),
              Param("stoch_period", "stochPeriod", 14,
                    description="Stochastic look-back over RSI values"),
              _smooth(3), _signal(3)),
             ("k", "d"),
             lambda b, period, stoch_period, smooth, signal_period: dict(zip(
                 ("k", "d"), classic.stochastic_rsi(b.close, period, stoch_period, smooth,
                                                    signal_period), strict=True)),
             lambda p: p["period"] + p["stoch_period"] + p["smooth"] - 1),
    Function("STOCH", "Stochastic oscillator (full)", (_period(14), _smooth(3), _signal(3)),
             ("k", "d"),
             lambda b, period, smooth, signal_period: dict(zip(
                 ("k", "d"), classic.stochastic(b.high, b.low, b.close, period, smooth,
                                                signal_period), strict=True)),
             lambda p: p["period"] + p["smooth"] - 1),
    Function("CCI", "Commodity channel index", (_period(20),), ("value",),
             lambda b, period: {"value": classic.cci(b.high, b.low, b.close, period)},
             lambda p: p["period"]),
    Function("OBV", "On-balance volume",
             (Param("sma_periods", "smaPeriods", None, description=(
                 "When given, the OBV line smoothed by an SMA of this many bars "
                 "(default: the raw line)")),),
             ("value",), _obv,
             lambda p: p.get("sma_periods") or 1),
    Function("BBANDS", "Bollinger bands",
             (_period(20), Param("std_dev", "stdDev", 2, maximum=10,
                                 description="Band width in standard deviations")),
             ("upper_band", "middle_band", "lower_band"),
             lambda b, period, std_dev: dict(zip(
                 ("upper_band", "middle_band", "lower_band"),
                 classic.bollinger_bands(b.close, period, std_dev), strict=True)),
             lambda p: p["period"]),
    Function("AROON", "Aroon", (_period(25),), ("aroon_up", "aroon_down"),
             lambda b, period: dict(zip(("aroon_up", "aroon_down"),
                                        classic.aroon(b.high, b.low, period), strict=True)),
             lambda p: p["period"] + 1),
    Function("ADX", "Average directional index (Wilder)", (_period(14),), ("value",),
             lambda b, period: {"value": classic.adx(b.high, b.low, b.close, period)},
             lambda p: 2 * p["period"]),
    Function("MACD", "Moving average convergence/divergence",
             (Param("fast_period", "fastPeriod", 12, description="Fast EMA period"),
              Param("slow_period", "slowPeriod", 26, description="Slow EMA period"),
              _signal(9)),
             ("value", "signal"),
             _macd,
             lambda p: max(p["fast_period"], p["slow_period"])),
    Function("SUPERTREND", "SuperTrend",
             (_period(10, "ATR period"),
              Param("multiplier", "multiplier", 3, maximum=100,
                    description="Band distance in ATRs")),
             ("value", "trend"),
             lambda b, period, multiplier: dict(zip(
                 ("value", "trend"),
                 classic.supertrend(b.high, b.low, b.close, period, multiplier), strict=True)),
             lambda p: p["period"] + 1),
    Function("ICHIMOKU", "Ichimoku cloud",
             (Param("tenkan_period", "tenkanPeriod", 9, description="Conversion line period"),
              Param("kijun_period", "kijunPeriod", 26,
                    description="Base line period; also the displacement of the spans"),
              Param("senkou_period", "senkouPeriod", 52,
                    description="Leading span B period")),
             ("tenkan_sen", "kijun_sen", "chikou_span", "senkou_span_a", "senkou_span_b"),
             _ichimoku,
             lambda p: min(p["tenkan_period"], p["kijun_period"] + 1)),
)

FUNCTIONS: dict[str, Function] = {f.name: f for f in _FUNCTIONS}
# Every parameter any function takes, by python name (for "not taken by X" errors).
ALL_PARAMS: dict[str, Param] = {}
for _function in _FUNCTIONS:
    for _param in _function.params:
        ALL_PARAMS.setdefault(_param.name, _param)
