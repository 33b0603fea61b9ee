"""Compile (or load from numba's cache) the options kernels before the first request needs
them, as :mod:`marketdata.indicators.warmup` does for the indicators: the first run on a
machine compiles them in ~20 s of CPU (half of it the analytic greeks' jets), a fresh
process loads them in about one.
:func:`marketdata.warmup.warm_up_process` (a worker's start) and ``manage.py prepare`` call
:func:`warm_up`."""

from __future__ import annotations

import numpy as np


def warm_up() -> None:
    from marketdata.options.implied import implied_volatility
    from marketdata.options.pricing import greeks, price

    # Calls and puts, early exercise and not (q = 0 call, r = 0 put), both styles.
    S = np.full(4, 100.0)
    K = np.array([90.0, 110.0, 95.0, 105.0])
    T = np.array([0.1, 0.5, 1.0, 2.0])
    r = np.array([0.04, 0.04, 0.0, 0.03])
    q = np.array([0.02, 0.0, 0.01, 0.03])
    sigma = np.array([0.2, 0.3, 0.4, 0.5])
    call = np.array([True, True, False, False])
    for style in ("european", "american"):
        greeks(S, K, T, r, q, sigma, call, style)
        implied_volatility(price(S, K, T, r, q, sigma, call, style), S, K, T, r, q, call, style)
