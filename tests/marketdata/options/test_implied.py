"""marketdata.options.implied: the solver against vollib's (LetsBeRational, dev only) on the
generated grid and on the real Yahoo chains in ../shared/upstream, round trips under both
models, and NaN outside the no-arbitrage bounds."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from marketdata.options import implied as I
from marketdata.options import pricing as P
from marketdata.options.rates import dividend_yield
from tests.marketdata.options.conftest import grid, recorded_chains

REL = 1e-6


def _vollib_iv(price, S, K, T, r, q, is_call):
    from py_lets_be_rational.exceptions import VolatilityValueException
    from vollib.black_scholes_merton.implied_volatility import implied_volatility
    from vollib.helpers.exceptions import PriceIsAboveMaximum, PriceIsBelowIntrinsic

    try:
        return implied_volatility(price, S, K, T, r, q, "c" if is_call else "p")
    except (PriceIsAboveMaximum, PriceIsBelowIntrinsic, VolatilityValueException):
        return np.nan


def test_iv_equals_vollib_on_the_grid():
    g = grid(800, seed=11)
    sigma = g.pop("sigma")
    greeks = P.bsm(**g, sigma=sigma)
    ours = I.implied_volatility(greeks.price, **g)
    # Where a price says something about sigma: vega of at least 1e-6 of the price per point.
    informative = greeks.vega > 1e-6 * np.maximum(greeks.price, 1e-300)
    informative &= greeks.price > 1e-8 * g["S"]
    assert np.isfinite(ours[informative]).all()
    for i in np.flatnonzero(informative):
        ref = _vollib_iv(greeks.price[i], *(g[k][i] for k in ("S", "K", "T", "r", "q")),
                         g["is_call"][i])
        assert abs(ours[i] - ref) <= REL * ref, (i, ours[i], ref)
        assert abs(ours[i] - sigma[i]) <= REL * sigma[i], (i, ours[i], sigma[i])


def test_american_round_trip_on_the_grid():
    g = grid(400, seed=12)
    sigma = g.pop("sigma")
    prices = P.bs2002_price(**g, sigma=sigma)
    ours = I.implied_volatility(prices, **g, style="american")
    vega = P.bs2002(**g, sigma=sigma).vega
    informative = vega > 1e-6 * np.maximum(prices, 1e-300)
    lower, _ = I.price_bounds(**g, style="american")
    informative &= prices > lower + 1e-8 * g["S"]
    assert np.isfinite(ours[informative]).all()
    np.testing.assert_allclose(ours[informative], sigma[informative], rtol=REL)


def test_real_chains_iv_from_mid_and_last_equals_vollib():
    """Every contract of the recorded chains (AAPL, ^VXAPL): IV from the mid where there is
    one (the recordings are from a weekend: most bids are 0) and from the last trade price,
    both under BSM, against vollib. Yahoo's impliedVolatility is only reported (printed)."""
    contracts = recorded_chains()
    report = []
    checked = 0
    for name, quote, c, is_call in contracts:
        S = quote["regularMarketPrice"]
        now = dt.datetime.fromtimestamp(quote["regularMarketTime"], dt.UTC)
        T = float(P.time_to_expiry(c["expiration"], now)[0])
        q = dividend_yield((quote.get("dividendYield") or 0) / 100)  # v7: percent
        r = 0.043  # ~ the 1M bill's continuous rate on 2025-02-21
        for price in (float(I.mid(c.get("bid", np.nan), c.get("ask", np.nan))),
                      c.get("lastPrice", np.nan)):
            ours = float(I.implied_volatility(price, S, c["strike"], T, r, q, is_call))
            ref = _vollib_iv(price, S, c["strike"], T, r, q, is_call)
            if np.isfinite(ref) and ref > 1e-3:
                vega = float(P.bsm(S, c["strike"], T, r, q, ref, is_call).vega)
                if vega > 1e-6 * price:
                    assert abs(ours - ref) <= REL * ref, (name, c["contractSymbol"], ours, ref)
                    checked += 1
            elif np.isfinite(ours):
                # vollib has no answer (or sigma ~ 0): ours must be a solution of its own
                back = float(P.bsm_price(S, c["strike"], T, r, q, ours, is_call))
                assert abs(back - price) <= 1e-9 * max(price, 1.0)
            report.append((c["contractSymbol"], ours, c.get("impliedVolatility")))
    assert checked >= 50
    diffs = [abs(o - y) for _, o, y in report if np.isfinite(o) and y and y > 0.01]
    print(f"\nYahoo IV vs ours (sanity report only): {len(diffs)} contracts, "
          f"median |diff| {np.median(diffs) if diffs else float('nan'):.4f}")


@pytest.mark.parametrize("style", ["european", "american"])
def test_prices_outside_the_bounds_have_no_iv(style):
    S, K, T, r, q = 100.0, 90.0, 0.5, 0.05, 0.01
    lower, upper = I.price_bounds(S, K, T, r, q, np.array([True, False]), style)
    for is_call, lo, hi in ((True, lower[0], upper[0]), (False, lower[1], upper[1])):
        prices = np.array([lo - 0.01, lo, hi, hi + 1, 0.0, -1.0, np.nan, np.inf])
        assert np.isnan(I.implied_volatility(prices, S, K, T, r, q, is_call, style)).all()


def test_mid():
    out = I.mid([1.0, 0.0, 2.0, np.nan, 1.0], [1.2, 1.0, 1.0, 1.0, 1.0])
    assert out[0] == pytest.approx(1.1) and np.isnan(out[1:4]).all() and out[4] == 1.0


@pytest.mark.slow("a solve per example under both models (hypothesis), ~3 s")
@given(st.floats(10, 1000), st.floats(0.7, 1.4), st.integers(7, 730), st.floats(0, 0.06),
       st.floats(0, 0.04), st.floats(0.08, 1.2), st.booleans(),
       st.sampled_from(["european", "american"]))
def test_iv_of_price_is_sigma(S, m, days, r, q, sigma, is_call, style):
    T = days / 365
    price = P.price(S, S * m, T, r, q, sigma, is_call, style)
    vega = P.greeks(S, S * m, T, r, q, sigma, is_call, style).vega
    lower, _ = I.price_bounds(S, S * m, T, r, q, is_call, style)
    if vega < 1e-4 * price or price < lower + 1e-6 * S:
        return  # the price barely depends on sigma there
    assert float(I.implied_volatility(price, S, S * m, T, r, q, is_call, style)) == \
        pytest.approx(sigma, rel=1e-6)


@given(st.floats(10, 1000), st.floats(0.5, 2.0), st.floats(0.001, 3), st.booleans(),
       st.sampled_from(["european", "american"]), st.floats(0.0, 1.0))
def test_below_the_lower_bound_is_nan(S, m, T, is_call, style, frac):
    lower, upper = I.price_bounds(S, S * m, T, 0.03, 0.01, is_call, style)
    below = float(lower) * frac
    assert np.isnan(I.implied_volatility(below, S, S * m, T, 0.03, 0.01, is_call, style))
    assert np.isnan(I.implied_volatility(float(upper) * (1 + frac), S, S * m, T, 0.03, 0.01,
                                         is_call, style))
