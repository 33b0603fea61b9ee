"""Compile (or load from the cache) the backtest kernel and every strategy's indicators
before the first request needs them: the first run on a machine compiles the bar loop in a
few seconds, a fresh process loads it in well under one. Call :func:`warm_up` when a worker
starts (as :mod:`marketdata.indicators.warmup` is)."""

from __future__ import annotations

import numpy as np


def warm_up() -> None:
    from marketdata.backtest.engine import backtest
    from marketdata.backtest.strategies import STRATEGIES
    from marketdata.indicators.bars import PriceArrays

    size = 120  # enough bars for every strategy to signal and trade
    close = 100.0 + 10.0 * np.sin(np.arange(size) / 5.0)
    bars = PriceArrays.from_columns(np.arange(size) * 86400, close, close + 1.0, close - 1.0, close,
                             np.full(size, 1000.0))
    for name in STRATEGIES:
        backtest(bars, name, {"allowShort": True, "stopLossPct": 0.05, "takeProfitPct": 0.05,
                              "maxLeverage": 2.0, "marginInterestRate": 0.05,
                              "shortBorrowRate": 0.01},
                 dividends=[(int(bars.timestamps[10]), 0.5)])
