"""Tiny hand-made series and a scripted strategy for the engine tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from marketdata.backtest.engine import BacktestResult, run_backtest
from marketdata.backtest.params import RunConfig
from marketdata.backtest.strategies import (
    LONG_ENTRY,
    LONG_EXIT,
    SHORT_ENTRY,
    SHORT_EXIT,
    SignalPlan,
    Strategy,
)
from marketdata.indicators.bars import PriceArrays

DAY = 86400
T0 = 1_700_000_000  # bar 0's timestamp
L, XL, S, XS = LONG_ENTRY, LONG_EXIT, SHORT_ENTRY, SHORT_EXIT


def make_bars(rows: Sequence[tuple[float, float, float, float]]) -> PriceArrays:
    """``rows`` of (open, high, low, close), one day apart from T0."""
    data = np.asarray(rows, dtype=np.float64).reshape(-1, 4)
    stamps = T0 + DAY * np.arange(len(data), dtype=np.int64)
    return PriceArrays.from_columns(stamps, data[:, 0], data[:, 1], data[:, 2], data[:, 3],
                             np.full(len(data), 1000.0))


def flat(prices: Sequence[float]) -> PriceArrays:
    """Bars whose open, high, low and close are all the given price."""
    return make_bars([(p, p, p, p) for p in prices])


class Scripted(Strategy):
    """Emits exactly the flags it is given (bits of strategies.LONG_ENTRY ...)."""

    name, title, summary = "scripted", "Scripted", "flags given by the test"

    def __init__(self, flags: Sequence[int]) -> None:
        self.flags = np.asarray(flags, dtype=np.uint8)
        self.params = {}

    def plan(self, bars: PriceArrays) -> SignalPlan:
        assert self.flags.size == len(bars)
        return SignalPlan(self.flags, lambda kind, i: (f"scripted kind {kind} at {i}", 1.0))


def run(bars: PriceArrays, flags: Sequence[int], **config: float) -> BacktestResult:
    """A scripted run; costs are 0 unless given (the engine's defaults are not)."""
    base = {"commission_pct": 0.0, "slippage_pct": 0.0}
    return run_backtest(bars, Scripted(flags), RunConfig(**{**base, **config}))
