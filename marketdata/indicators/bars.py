"""The arrays every indicator kernel and the backtest engine read: a symbol's bars
(:class:`marketdata.records.bars.Bars`, the one bar record) as parallel float64 columns,
oldest bar first. A computing view of the record, not a record of its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class PriceArrays:
    """OHLCV columns as float64 arrays of equal length, oldest first, no missing values.

    Bars never hold a bar without a price (and the v1 candles no bar without a volume), so
    every array here is dense; indicators never see a NaN input price.
    """

    timestamps: np.ndarray  # int64 epoch seconds
    open: np.ndarray
    high: np.ndarray
    low: np.ndarray
    close: np.ndarray
    volume: np.ndarray
    adjclose: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.close.size)

    @classmethod
    def from_columns(cls, timestamps: Any, open: Any, high: Any, low: Any, close: Any,
                     volume: Any, adjclose: Any = None) -> PriceArrays:
        def column(values: Any) -> np.ndarray:
            return np.ascontiguousarray(values, dtype=np.float64)

        adj = None
        if adjclose is not None:
            adj = np.array([np.nan if v is None else v for v in adjclose], dtype=np.float64)
        bars = cls(np.asarray(timestamps, dtype=np.int64), column(open), column(high),
                   column(low), column(close), column(volume), adj)
        sizes = {a.size for a in (bars.timestamps, bars.open, bars.high, bars.low, bars.close,
                                  bars.volume)}
        if len(sizes) != 1:
            raise ValueError(f"OHLCV columns differ in length: {sorted(sizes)}")
        return bars

    @classmethod
    def from_candles(cls, candles: Any) -> PriceArrays:
        """From the v1 view of bars (:class:`marketdata.records.bars.Candles`)."""
        return cls.from_columns(candles.timestamps, candles.open, candles.high, candles.low,
                                candles.close, candles.volume, candles.adjclose)

    @property
    def typical(self) -> np.ndarray:
        """(high + low + close) / 3."""
        return (self.high + self.low + self.close) / 3.0

    @property
    def median(self) -> np.ndarray:
        """(high + low) / 2."""
        return (self.high + self.low) / 2.0
