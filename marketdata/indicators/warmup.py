"""Compile (or load from the cache) every numba kernel before the first request needs it.

A fresh process loads the cached machine code in about 0.3 s; the very first run on a
machine compiles it in about 2.5 s. gunicorn calls :func:`warm_up` when a worker starts, so
neither lands on a client's request.
"""

from __future__ import annotations

import numpy as np


def warm_up() -> None:
    from marketdata.indicators.bars import PriceArrays
    from marketdata.indicators.functions import FUNCTIONS
    from marketdata.indicators.indicator_set import indicator_set

    size = 120  # enough bars for every kernel's loop body to run
    steps = np.sin(np.arange(size) / 5.0)
    close = 100.0 + 10.0 * steps
    bars = PriceArrays.from_columns(np.arange(size) * 86400, close, close + 1.0, close - 1.0, close,
                             np.full(size, 1000.0))
    indicator_set(bars)
    for function in FUNCTIONS.values():
        function.compute(bars, **function.defaults())
