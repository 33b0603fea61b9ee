"""The compiled kernels (marketdata.options._kernels, what the public functions run) against
the vectorised numpy reference (``pricing.bs2002_price_reference``,
``implied.implied_volatility_reference``) on the generated grid, and the warm-up. The
analytic greeks' kernel (marketdata.options._jets) against ``bs2002_reference``: test_greeks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from marketdata.options import _kernels
from marketdata.options import implied as I
from marketdata.options import pricing as P
from marketdata.options.warmup import warm_up
from tests.marketdata.options.conftest import grid

REL = 1e-10
PRICE_ABS = 1e-12  # x S: the bivariate normal's absolute precision scale
NAMES = ("price", "delta", "gamma", "theta", "vega", "rho")


def _same_nans(a: np.ndarray, b: np.ndarray) -> None:
    assert np.array_equal(np.isnan(a), np.isnan(b))


def test_bs2002_price_kernel_equals_the_numpy_reference():
    g = grid(3000, seed=46)
    g["is_call"] = g["is_call"].astype(float)  # booleans as numbers too
    ours, ref = P.bs2002_price(**g), P.bs2002_price_reference(**g)
    _same_nans(ours, ref)
    ok = np.isfinite(ref)
    assert np.all(np.abs(ours - ref)[ok] <= REL * np.abs(ref[ok]) + PRICE_ABS * g["S"][ok])


def test_iv_kernels_equal_the_numpy_reference():
    """Same answers (NaN where the reference has none); where the price determines sigma
    (vega >= 1e-6 of the price, the price 1e-8 x S above its lower bound, the price above
    1e-6 x S), within 1e-10 relative or the bracket's width at which both may stop
    (SIGMA_TOL, 1e-8): the last bits of the prices can end the iterations one step apart."""
    g = grid(1000, seed=48)
    sigma = g.pop("sigma")
    for style, model in (("european", P.bsm), ("american", P.bs2002)):
        greeks = model(**g, sigma=sigma)
        ours = I.implied_volatility(greeks.price, **g, style=style)
        ref = I.implied_volatility_reference(greeks.price, **g, style=style)
        _same_nans(ours, ref)
        lower, _ = I.price_bounds(**g, style=style)
        informative = (greeks.vega > 1e-6 * greeks.price) & (greeks.price > lower + 1e-8 * g["S"]) \
            & (greeks.price > 1e-6 * g["S"])
        d = np.abs(ours - ref)[informative]
        assert np.all(d <= REL * ref[informative] + I.SIGMA_TOL), style


def test_erfc_and_the_vectorised_exp_equal_numpy():
    from marketdata.options._normal import erfc

    x = np.concatenate([np.linspace(-27, 27, 20_001), [0.0, 0.46875, -0.46875, 4.0, -4.0,
                                                       26.543, np.nan]])
    ref = erfc(x)
    ours = np.array([_kernels.erfc(v) for v in x])
    _same_nans(ours, ref)
    ok = ref > 0
    assert np.max(np.abs(ours - ref)[ok] / ref[ok]) < 1e-14
    a = np.concatenate([np.linspace(-746, 710, 50_001), [-np.inf, np.inf, np.nan]])
    with np.errstate(over="ignore"):
        e = np.exp(a)
    mine = np.array([_kernels._exp(v) for v in a])
    _same_nans(mine, e)
    ok = (e > 1e-300) & np.isfinite(e)
    assert np.max(np.abs(mine[ok] - e[ok]) / e[ok]) < 5e-16
    assert np.array_equal(mine[~ok & ~np.isnan(e)] == 0, e[~ok & ~np.isnan(e)] == 0)


@pytest.mark.slow("compiles the options kernels (~20 s of CPU) when numba's cache is empty")
def test_warm_up_runs_every_kernel_without_warnings():
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        warm_up()


def test_a_chain_cut_into_chunks_is_priced_as_one_call(monkeypatch):
    """marketdata.options._threads: chunks on the cores give the single call's numbers,
    element for element (greeks and the American IV)."""
    import numpy as np

    from marketdata.options import _threads, implied, pricing

    rng = np.random.default_rng(7)
    n = 1_000
    S = np.full(n, 100.0)
    K = rng.uniform(60, 160, n)
    T = rng.uniform(0.01, 2.0, n)
    r = rng.uniform(0.0, 0.06, n)
    q = rng.uniform(0.005, 0.04, n)
    sigma = rng.uniform(0.1, 0.9, n)
    call = rng.random(n) < 0.5
    monkeypatch.setattr(_threads, "cores", lambda: 4)
    chunked = pricing.bs2002(S, K, T, r, q, sigma, call)
    prices = pricing.bs2002_price(S, K, T, r, q, sigma, call)
    iv_chunked = implied.implied_volatility(prices, S, K, T, r, q, call, "american")
    monkeypatch.setattr(_threads, "cores", lambda: 1)
    single = pricing.bs2002(S, K, T, r, q, sigma, call)
    iv_single = implied.implied_volatility(prices, S, K, T, r, q, call, "american")
    for name in ("price", "delta", "gamma", "theta", "vega", "rho"):
        np.testing.assert_array_equal(getattr(chunked, name), getattr(single, name))
    np.testing.assert_array_equal(iv_chunked, iv_single)
