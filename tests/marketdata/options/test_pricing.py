"""marketdata.options.pricing against independent libraries (dev only, never imported by
the service): vollib (Black-Scholes-Merton prices and greeks, pure Python, LetsBeRational's
normal) and QuantLib (AnalyticEuropeanEngine's greeks; BjerksundStenslandApproximationEngine,
the 1993 boundary, for the Bjerksund-Stensland building blocks; QdFpAmericanEngine, an
accurate American price, as the bound BS2002 must stay below), plus properties.

Unit mapping: vollib's theta is per calendar day, its vega and rho per point (ours too);
QuantLib's theta is per year (ours x 365), its vega and rho per unit (ours x 100).
Tolerance: 1e-6 relative, with an absolute floor of 1e-10 x S for price-like numbers (a
deep out-of-the-money price of 1e-200 is compared as 0).
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from marketdata.options import pricing as P
from tests.marketdata.options.conftest import grid, ql_option

REL = 1e-6
NAMES = ("price", "delta", "gamma", "theta", "vega", "rho")


def close(ours: float, ref: float, floor: float) -> bool:
    return abs(ours - ref) <= REL * abs(ref) + floor


def test_bsm_price_and_greeks_equal_vollib_on_the_grid():
    from vollib.black_scholes_merton import black_scholes_merton as v_price
    from vollib.black_scholes_merton.greeks import analytical as v

    g = grid(1000)
    ours = P.bsm(**g)
    bad = []
    for i in range(1000):
        args = ("c" if g["is_call"][i] else "p", g["S"][i], g["K"][i], g["T"][i], g["r"][i],
                g["sigma"][i], g["q"][i])
        ref = {"price": v_price(*args), "delta": v.delta(*args), "gamma": v.gamma(*args),
               "theta": v.theta(*args), "vega": v.vega(*args), "rho": v.rho(*args)}
        floor = 1e-10 * g["S"][i]
        for name in NAMES:
            mine = float(getattr(ours, name)[i])
            # gamma is per unit of spot: its floor scales as 1/S
            f = floor / g["S"][i] ** 2 if name == "gamma" else floor
            if not close(mine, ref[name], f):
                bad.append((i, name, mine, ref[name]))
    assert not bad, bad[:10]


def test_bsm_greeks_equal_quantlib_analytic_european(ql):
    g = grid(300, seed=1)
    ours = P.bsm(**g)
    for i in range(300):
        opt, process = ql_option(ql, *(g[k][i] for k in ("S", "K", "T", "r", "q", "sigma")),
                                 bool(g["is_call"][i]), american=False)
        opt.setPricingEngine(ql.AnalyticEuropeanEngine(process))
        floor = 1e-10 * g["S"][i]
        ref = {"price": opt.NPV(), "delta": opt.delta(), "gamma": opt.gamma(),
               "theta": opt.theta() / 365.0, "vega": opt.vega() / 100.0,
               "rho": opt.rho() / 100.0}
        for name in NAMES:
            f = floor / g["S"][i] ** 2 if name == "gamma" else floor
            assert close(float(getattr(ours, name)[i]), ref[name], f), (i, name)


def test_bjerksund_stensland_blocks_equal_quantlib_1993_engine(ql):
    """QuantLib's engine is the 1993 one-step boundary, floored at the European price: our
    1993 price (same phi, boundary terms and put-call transformation as BS2002) equals it."""
    g = grid(400, seed=2)
    ours = P.bs1993_american(**g)
    european = P.bsm_price(**g)
    for i in range(400):
        opt, process = ql_option(ql, *(g[k][i] for k in ("S", "K", "T", "r", "q", "sigma")),
                                 bool(g["is_call"][i]), american=True)
        opt.setPricingEngine(ql.BjerksundStenslandApproximationEngine(process))
        assert close(max(ours[i], european[i]), opt.NPV(), 1e-10 * g["S"][i]), i


def test_bs2002_is_a_lower_bound_of_the_american_price_above_the_european(ql):
    """BS2002 values a feasible exercise strategy: it never exceeds the accurate American
    price (QuantLib's QdFp engine) and never falls below the European or intrinsic value.
    Its error is measured too (the README quotes it)."""
    g = grid(120, seed=3)
    ours = P.bs2002_price(**g)
    european = P.bsm_price(**g)
    intrinsic = np.maximum(np.where(g["is_call"], g["S"] - g["K"], g["K"] - g["S"]), 0)
    errors = []
    for i in range(120):
        opt, process = ql_option(ql, *(g[k][i] for k in ("S", "K", "T", "r", "q", "sigma")),
                                 bool(g["is_call"][i]), american=True)
        opt.setPricingEngine(ql.QdFpAmericanEngine(process, ql.QdFpAmericanEngine.accurateScheme()))
        accurate = opt.NPV()
        assert ours[i] <= accurate + 1e-6 * accurate + 1e-9, i
        assert ours[i] >= max(european[i], intrinsic[i]) - 1e-12 * g["S"][i], i
        errors.append((ours[i] - accurate) / max(accurate, 1e-12 * g["S"][i]))
    assert np.median(np.abs(errors)) < 0.01


def test_bs2002_matches_haugs_example():
    # Haug (2007), the BS2002 example: S=42, X=40, T=0.75, r=4%, b=-4% (q=8%), sigma=35%:
    # call 5.2704 under the 1993 boundary, 5.2868 under the 2002 two-step boundary.
    haug = (42, 40, 0.75, 0.04, 0.08, 0.35, True)
    assert P.bs1993_american(*haug) == pytest.approx(5.2704, abs=1e-4)
    assert P.bs2002_price(*haug) == pytest.approx(5.2869, abs=1e-4)


def test_american_without_early_exercise_is_the_european_with_its_greeks():
    """A call with q = 0 is never exercised early: BS2002 is the BSM price and greeks
    exactly (the analytic ones: ``pricing.bs2002`` routes such contracts to :func:`bsm`)."""
    g = grid(500, seed=4)
    g["q"] = np.zeros(500)
    g["is_call"] = np.ones(500, bool)
    am, eu = P.bs2002(**g), P.bsm(**g)
    for name in NAMES:
        np.testing.assert_array_equal(getattr(am, name), getattr(eu, name))


@pytest.mark.parametrize(("q", "sigma"), [(1e-9, 0.0547), (2e-12, 0.2), (1e-7, 0.05),
                                           (0.01, 0.005), (0.001, 0.005)])
def test_an_unreachable_boundary_is_the_european_price_not_nan(q, sigma):
    """A boundary (above r K / q) tens of standard deviations beyond the spot: the formula's
    (I/S)^kappa overflowed times a vanishing normal tail (NaN: hypothesis found q = 1e-9 at
    sigma 5.5 %); the premium is below 2e-23 q T S, so the price and greeks are the European's,
    in the compiled kernel, the jets and the numpy reference alike. Puts by the
    transformation (r plays q's part)."""
    S, K = np.array([10.0, 10.0, 10.0]), np.array([5.0, 10.0, 20.0])
    for T in (1 / 365, 30 / 365, 1.0):
        for call in (True, False):
            r_, q_ = (0.0625, q) if call else (q, 0.0625)
            args = (S, K, T, r_, q_, sigma, call)
            eu = P.bsm(*args)
            am = P.bs2002(*args)
            # A put's European price is the transformed call's (the same to rounding).
            close = {"rtol": 1e-12, "atol": 1e-13}
            np.testing.assert_allclose(P.bs2002_price(*args), eu.price, **close)
            np.testing.assert_array_equal(P.bs2002_price_reference(*args),
                                          P.bs2002_price(*args))
            np.testing.assert_array_equal(am.price, P.bs2002_price(*args))
            for name in NAMES[1:]:
                np.testing.assert_array_equal(getattr(am, name), getattr(eu, name))
    # Just inside the rule's reach the formula is still used (a real boundary nearby).
    assert not P._no_early_exercise([np.array([v]) for v in (10.0, 10.0, 1.0, 0.05, 0.03,
                                                              0.3, True)])


@pytest.mark.parametrize("bad", [
    {"S": 0.0}, {"S": -1.0}, {"K": 0.0}, {"T": 0.0}, {"T": -0.1}, {"sigma": 0.0},
    {"sigma": -0.2}, {"r": np.nan}, {"q": np.inf}, {"S": np.nan},
])
@pytest.mark.parametrize("style", ["european", "american"])
def test_invalid_inputs_give_nan_in_every_output(bad, style):
    args = {"S": 100.0, "K": 100.0, "T": 0.5, "r": 0.05, "q": 0.02, "sigma": 0.3,
            "is_call": np.array([True, False])} | bad
    out = P.greeks(**args, style=style)
    for name in NAMES:
        assert np.all(np.isnan(getattr(out, name))), name


def test_mixed_styles_route_each_contract_to_its_model():
    g = grid(50, seed=5)
    american = np.arange(50) % 2 == 0
    mixed = P.greeks(**g, style=american)
    assert np.array_equal(mixed.price[american], P.bs2002_price(**g)[american])
    assert np.array_equal(mixed.price[~american], P.bsm_price(**g)[~american])
    assert np.array_equal(P.price(**g, style=american), mixed.price)
    with pytest.raises(ValueError):
        P.greeks(**g, style="bermudan")


def test_time_to_expiry_is_to_the_close_in_new_york():
    now = dt.datetime(2025, 2, 21, 21, 0, tzinfo=dt.UTC)  # 16:00 New York (EST), a Friday
    friday = 1740700800  # 2025-02-28 00:00 UTC, Yahoo's expiration
    assert P.time_to_expiry(friday, now)[0] == pytest.approx(7 / 365)
    summer = dt.datetime(2025, 7, 18, 20, 0, tzinfo=dt.UTC)  # 16:00 EDT on the expiry day
    assert P.time_to_expiry(1752796800, summer)[0] == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(P.time_to_expiry(np.nan, now)[0])
    with pytest.raises(ValueError):
        P.time_to_expiry(friday, dt.datetime(2025, 2, 21))  # naive


def test_exercise_style_per_symbol():
    assert P.exercise_style("^SPX") == "european"
    assert P.exercise_style("spxw") == "european"
    assert P.exercise_style("AAPL") == "american"
    assert P.exercise_style("SPY") == "american"
    assert P.exercise_style("OEX") == "american"


# -- properties ----------------------------------------------------------------------------
spot = st.floats(10, 1000)
moneyness = st.floats(0.5, 2.0)
years = st.integers(1, 3 * 365).map(lambda d: d / 365)
rate = st.floats(-0.01, 0.08)
div = st.floats(0.0, 0.05)
vol = st.floats(0.05, 1.5)


@given(spot, moneyness, years, rate, div, vol)
def test_put_call_parity(S, m, T, r, q, sigma):
    K = S * m
    call, put = P.bsm_price(S, K, T, r, q, sigma, np.array([True, False]))
    parity = S * math.exp(-q * T) - K * math.exp(-r * T)
    assert call - put == pytest.approx(parity, rel=1e-9, abs=1e-9 * S)


@given(spot, moneyness, years, rate, div, vol, st.booleans(),
       st.sampled_from(["european", "american"]))
def test_price_increases_with_sigma(S, m, T, r, q, sigma, is_call, style):
    sigmas = np.array([sigma, sigma * 1.01 + 1e-3])
    p = P.price(S, S * m, T, r, q, sigmas, is_call, style)
    assert p[1] >= p[0] - 1e-12 * S


@example(10.0, 1.0, 1 / 365, 6.500058556015022e-142, 0.0, 1.0, False)  # beta rounds to 1
@example(10.0, 1.0, 1 / 365, 0.0625, 1e-9, 0.0547, True)  # the boundary out of reach
@given(spot, moneyness, years, rate, div, vol, st.booleans())
def test_american_at_least_european(S, m, T, r, q, sigma, is_call):
    am = P.bs2002_price(S, S * m, T, r, q, sigma, is_call)
    eu = P.bsm_price(S, S * m, T, r, q, sigma, is_call)
    assert am >= eu - 1e-12 * S
