"""The prebuilt strategies: small classes turning the shared indicator kernels into signals.

A strategy never simulates anything. From the bars it computes, once and vectorised, four
boolean conditions per bar and packs them into one ``uint8`` flag array
(:class:`SignalPlan`): "go long" (:data:`LONG_ENTRY`), "close a long" (:data:`LONG_EXIT`),
"go short" (:data:`SHORT_ENTRY`), "close a short" (:data:`SHORT_EXIT`). The engine reads the
flag that fits its position at each close (flat: the entries; long: the long exit, then a
short entry to reverse; short: the mirror), so a strategy needs no state.

A crossing is the issue's rule: ``a`` crosses above ``b`` on bar i when
``a[i-1] <= b[i-1]`` and ``a[i] > b[i]`` (below: ``>=`` then ``<``). Bars where an indicator
is not defined yet (NaN) never signal. Indicators come from :mod:`marketdata.indicators`
(never re-implemented here): SMA and EMA from ``core``, RSI (Wilder), MACD, Bollinger
(population sigma) and SuperTrend from ``classic``, Donchian from ``extra``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from marketdata.backtest._kernel import (
    EXIT_LONG,
    EXIT_SHORT,
    LONG,
    LONG_ENTRY,
    LONG_EXIT,
    SHORT,
    SHORT_ENTRY,
    SHORT_EXIT,
)
from marketdata.errors import FieldError, InvalidParameters
from marketdata.indicators import classic, core, extra
from marketdata.indicators.bars import PriceArrays

Describe = Callable[[int, int], tuple[str, float]]


@dataclass(frozen=True)
class SignalPlan:
    """What a strategy decided for every bar: ``flags[i]`` (bits above) and ``describe``,
    which gives the reason text and strength of a signal of a kind on a bar (called only
    for the few bars that signal)."""

    flags: np.ndarray
    describe: Describe


def pack(long_entry: np.ndarray, long_exit: np.ndarray, short_entry: np.ndarray,
         short_exit: np.ndarray) -> np.ndarray:
    """Four boolean arrays -> one uint8 flag array."""
    return (long_entry.astype(np.uint8) * LONG_ENTRY | long_exit.astype(np.uint8) * LONG_EXIT
            | short_entry.astype(np.uint8) * SHORT_ENTRY
            | short_exit.astype(np.uint8) * SHORT_EXIT).astype(np.uint8)


def crosses_above(a: np.ndarray, b: np.ndarray | float) -> np.ndarray:
    """a[i-1] <= b[i-1] and a[i] > b[i]; False on bar 0 and wherever a value is NaN."""
    b = np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape)
    out = np.zeros(a.shape, dtype=bool)
    out[1:] = (a[:-1] <= b[:-1]) & (a[1:] > b[1:])
    return out


def crosses_below(a: np.ndarray, b: np.ndarray | float) -> np.ndarray:
    """a[i-1] >= b[i-1] and a[i] < b[i]; False on bar 0 and wherever a value is NaN."""
    b = np.broadcast_to(np.asarray(b, dtype=np.float64), a.shape)
    out = np.zeros(a.shape, dtype=bool)
    out[1:] = (a[:-1] >= b[:-1]) & (a[1:] < b[1:])
    return out


def num(value: float) -> str:
    """A price or indicator value in a reason: six significant digits."""
    return f"{float(value):.6g}"


class Strategy:
    """Base: ``name`` (the API's value), ``title`` (``strategyName`` in results) and
    ``defaults`` (the strategy parameters it reads, with their defaults)."""

    name: ClassVar[str]
    title: ClassVar[str]
    summary: ClassVar[str]
    defaults: ClassVar[dict[str, Any]] = {}

    def __init__(self, **params: Any) -> None:
        unknown = set(params) - set(self.defaults)
        if unknown:
            raise TypeError(f"{self.name} takes no {sorted(unknown)}")
        self.params = {**self.defaults, **params}
        self.check()

    def check(self) -> None:
        """Relations between parameters (bounds are checked by the parameter table)."""

    def warmup(self) -> int:
        """Index of the first bar that can signal (the indicators' warm-up)."""
        return 0

    def plan(self, bars: PriceArrays) -> SignalPlan:
        raise NotImplementedError

    @classmethod
    def from_params(cls, given: Mapping[str, Any]) -> Strategy:
        """The strategy with its members of ``given`` (checked ``params``); members it does
        not read are left to the caller (they are ignored and reported)."""
        return cls(**{k: v for k, v in given.items() if k in cls.defaults})


def _invalid(name: str, message: str, value: Any) -> InvalidParameters:
    return InvalidParameters([FieldError(name, message, "value_error", value,
                                         location="body")])


class _Crossover(Strategy):
    """Fast average crossing the slow one: above -> long (or close a short), below ->
    short (or close a long)."""

    defaults: ClassVar[dict[str, Any]] = {"fastPeriod": 10, "slowPeriod": 20}
    label: ClassVar[str]

    @staticmethod
    def average(close: np.ndarray, period: int) -> np.ndarray:
        raise NotImplementedError

    def check(self) -> None:
        if self.params["fastPeriod"] >= self.params["slowPeriod"]:
            raise _invalid("fastPeriod", "Input should be less than slowPeriod "
                           f"({self.params['slowPeriod']})", self.params["fastPeriod"])

    def warmup(self) -> int:
        return self.params["slowPeriod"]

    def plan(self, bars: PriceArrays) -> SignalPlan:
        fast_n, slow_n = self.params["fastPeriod"], self.params["slowPeriod"]
        fast = self.average(bars.close, fast_n)
        slow = self.average(bars.close, slow_n)
        up, down = crosses_above(fast, slow), crosses_below(fast, slow)
        fast_name, slow_name = f"{self.label}({fast_n})", f"{self.label}({slow_n})"

        def describe(kind: int, i: int) -> tuple[str, float]:
            word = "above" if kind in (LONG, EXIT_SHORT) else "below"
            return (f"{fast_name} {num(fast[i])} crossed {word} {slow_name} "
                    f"{num(slow[i])}", 1.0)

        return SignalPlan(pack(up, down, down, up), describe)


class SmaCrossover(_Crossover):
    name, title, label = "sma_crossover", "SMA Crossover", "SMA"
    summary = ("SMA(fastPeriod) crossing SMA(slowPeriod): above goes long, below goes short "
               "or closes the long")

    @staticmethod
    def average(close: np.ndarray, period: int) -> np.ndarray:
        return core.sma(close, period)


class EmaCrossover(_Crossover):
    name, title, label = "ema_crossover", "EMA Crossover", "EMA"
    summary = ("EMA(fastPeriod) crossing EMA(slowPeriod) (SMA-seeded EMAs): above goes "
               "long, below goes short or closes the long")

    @staticmethod
    def average(close: np.ndarray, period: int) -> np.ndarray:
        return core.ema(close, period)


class RsiReversal(Strategy):
    name, title = "rsi_reversal", "RSI Reversal"
    summary = ("Wilder RSI(period) crossing up through oversold goes long (or closes a "
               "short); crossing down through overbought goes short (or closes a long)")
    defaults: ClassVar[dict[str, Any]] = {"period": 14, "oversold": 30.0, "overbought": 70.0}

    def check(self) -> None:
        if self.params["oversold"] >= self.params["overbought"]:
            raise _invalid("oversold", "Input should be less than overbought "
                           f"({num(self.params['overbought'])})", self.params["oversold"])

    def warmup(self) -> int:
        return self.params["period"] + 1

    def plan(self, bars: PriceArrays) -> SignalPlan:
        n, low, high = self.params["period"], self.params["oversold"], self.params["overbought"]
        rsi = classic.rsi(bars.close, n)
        up, down = crosses_above(rsi, low), crosses_below(rsi, high)

        def describe(kind: int, i: int) -> tuple[str, float]:
            value = float(rsi[i])
            # Further from the middle is a stronger reversal signal.
            strength = 1.0 if not 20.0 <= value <= 80.0 else \
                0.5 if not 25.0 <= value <= 75.0 else 0.3
            if kind in (LONG, EXIT_SHORT):
                return f"RSI({n}) crossed above {num(low)} ({value:.2f})", strength
            return f"RSI({n}) crossed below {num(high)} ({value:.2f})", strength

        return SignalPlan(pack(up, down, down, up), describe)


class MacdSignal(Strategy):
    name, title = "macd_signal", "MACD Signal"
    summary = ("MACD line (EMA(fastPeriod) - EMA(slowPeriod)) crossing its signal line "
               "(EMA(signalPeriod) of the line): above goes long, below goes short or closes "
               "the long")
    defaults: ClassVar[dict[str, Any]] = {"fastPeriod": 12, "slowPeriod": 26, "signalPeriod": 9}

    def check(self) -> None:
        if self.params["fastPeriod"] >= self.params["slowPeriod"]:
            raise _invalid("fastPeriod", "Input should be less than slowPeriod "
                           f"({self.params['slowPeriod']})", self.params["fastPeriod"])

    def warmup(self) -> int:
        return self.params["slowPeriod"] + self.params["signalPeriod"] - 1

    def plan(self, bars: PriceArrays) -> SignalPlan:
        p = self.params
        macd = classic.macd(bars.close, p["fastPeriod"], p["slowPeriod"], p["signalPeriod"])
        up, down = crosses_above(macd.macd, macd.signal), crosses_below(macd.macd, macd.signal)
        label = f"MACD({p['fastPeriod']},{p['slowPeriod']},{p['signalPeriod']})"

        def describe(kind: int, i: int) -> tuple[str, float]:
            word = "above" if kind in (LONG, EXIT_SHORT) else "below"
            return (f"{label} line {num(macd.macd[i])} crossed {word} its signal "
                    f"{num(macd.signal[i])}", 1.0)

        return SignalPlan(pack(up, down, down, up), describe)


class BollingerMeanReversion(Strategy):
    name, title = "bollinger_mean_reversion", "Bollinger Mean Reversion"
    summary = ("Close at or below the lower band goes long, at or above the upper band goes "
               "short; a long exits at the middle band (exitAtMiddle) or the upper band, a "
               "short at the middle or the lower band")
    defaults: ClassVar[dict[str, Any]] = {"period": 20, "stdDev": 2.0, "exitAtMiddle": True}

    def warmup(self) -> int:
        return self.params["period"] - 1

    def plan(self, bars: PriceArrays) -> SignalPlan:
        p = self.params
        bands = classic.bollinger_bands(bars.close, p["period"], p["stdDev"])
        close = bars.close
        with np.errstate(invalid="ignore"):
            long_entry = close <= bands.lower
            short_entry = close >= bands.upper
            if p["exitAtMiddle"]:
                long_exit, short_exit = close >= bands.middle, close <= bands.middle
            else:
                long_exit, short_exit = short_entry, long_entry
        label = f"Bollinger({p['period']}, {num(p['stdDev'])})"

        def describe(kind: int, i: int) -> tuple[str, float]:
            c = num(close[i])
            if kind == LONG:
                return f"Close {c} at or below the lower {label} band {num(bands.lower[i])}", 1.0
            if kind == SHORT:
                return f"Close {c} at or above the upper {label} band {num(bands.upper[i])}", 1.0
            if p["exitAtMiddle"]:
                word = "above" if kind == EXIT_LONG else "below"
                return f"Close {c} back at or {word} the middle band {num(bands.middle[i])}", 1.0
            if kind == EXIT_LONG:
                return f"Close {c} at or above the upper band {num(bands.upper[i])}", 1.0
            return f"Close {c} at or below the lower band {num(bands.lower[i])}", 1.0

        return SignalPlan(pack(long_entry, long_exit, short_entry, short_exit), describe)


class SupertrendFollow(Strategy):
    name, title = "supertrend_follow", "SuperTrend Follow"
    summary = ("SuperTrend(period, multiplier) turning up goes long (or closes a short); "
               "turning down goes short (or closes a long)")
    defaults: ClassVar[dict[str, Any]] = {"period": 10, "multiplier": 3.0}

    def warmup(self) -> int:
        return self.params["period"] + 1

    def plan(self, bars: PriceArrays) -> SignalPlan:
        p = self.params
        st = classic.supertrend(bars.high, bars.low, bars.close, p["period"], p["multiplier"])
        trend = st.trend
        up = np.zeros(trend.shape, dtype=bool)
        down = np.zeros(trend.shape, dtype=bool)
        up[1:] = (trend[:-1] == -1.0) & (trend[1:] == 1.0)
        down[1:] = (trend[:-1] == 1.0) & (trend[1:] == -1.0)
        label = f"SuperTrend({p['period']}, {num(p['multiplier'])})"

        def describe(kind: int, i: int) -> tuple[str, float]:
            if kind in (LONG, EXIT_SHORT):
                return (f"{label} turned up: close {num(bars.close[i])} above the upper "
                        f"band; trailing stop now {num(st.value[i])}", 1.0)
            return (f"{label} turned down: close {num(bars.close[i])} below the lower band; "
                    f"trailing stop now {num(st.value[i])}", 1.0)

        return SignalPlan(pack(up, down, down, up), describe)


class DonchianBreakout(Strategy):
    name, title = "donchian_breakout", "Donchian Breakout"
    summary = ("Close above the previous bar's period-high goes long, below the previous "
               "period-low goes short; a long exits below the previous middle line "
               "(exitAtMiddle) or low, a short above the previous middle or high")
    defaults: ClassVar[dict[str, Any]] = {"period": 20, "exitAtMiddle": True}

    def warmup(self) -> int:
        return self.params["period"]

    def plan(self, bars: PriceArrays) -> SignalPlan:
        p = self.params
        channel = extra.donchian_channels(bars.high, bars.low, p["period"])
        # The previous bar's channel: the current bar's own high is always <= its upper.
        upper, middle, lower = (core.shift(x, 1) for x in channel)
        close = bars.close
        with np.errstate(invalid="ignore"):
            long_entry, short_entry = close > upper, close < lower
            if p["exitAtMiddle"]:
                long_exit, short_exit = close < middle, close > middle
            else:
                long_exit, short_exit = short_entry, long_entry
        n = p["period"]

        def describe(kind: int, i: int) -> tuple[str, float]:
            c = num(close[i])
            if kind == LONG:
                return f"Close {c} broke above the {n}-bar high {num(upper[i])}", 1.0
            if kind == SHORT:
                return f"Close {c} broke below the {n}-bar low {num(lower[i])}", 1.0
            if p["exitAtMiddle"]:
                word = "below" if kind == EXIT_LONG else "above"
                return f"Close {c} crossed {word} the {n}-bar middle {num(middle[i])}", 1.0
            if kind == EXIT_LONG:
                return f"Close {c} broke below the {n}-bar low {num(lower[i])}", 1.0
            return f"Close {c} broke above the {n}-bar high {num(upper[i])}", 1.0

        return SignalPlan(pack(long_entry, long_exit, short_entry, short_exit), describe)


class BuyAndHold(Strategy):
    name, title = "buy_and_hold", "Buy and Hold"
    summary = ("A long signal on the first bar (filled at the second bar's open), held to "
               "the end; the benchmark for the others")

    def plan(self, bars: PriceArrays) -> SignalPlan:
        flags = np.zeros(len(bars), dtype=np.uint8)
        if flags.size:
            flags[0] = LONG_ENTRY

        def describe(kind: int, i: int) -> tuple[str, float]:
            return "Buy and hold: enter on the first bar", 1.0

        return SignalPlan(flags, describe)


STRATEGIES: dict[str, type[Strategy]] = {cls.name: cls for cls in (
    SmaCrossover, EmaCrossover, RsiReversal, MacdSignal, BollingerMeanReversion,
    SupertrendFollow, DonchianBreakout, BuyAndHold)}
