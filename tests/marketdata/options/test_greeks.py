"""The American model's analytic greeks (marketdata.options._jets through ``pricing.bs2002``):
against finite differences of the numpy reference price (the service's former method,
``pricing.bs2002_reference``, and a Richardson extrapolation of finer ones, to 1e-6
relative), against QuantLib's analytic greeks of the 1993 boundary (its
BjerksundStenslandApproximationEngine: our same machinery on that boundary,
``pricing.bs1993_greeks``), on the generated grid and on the recorded chains.

Finite differences are compared only where every bumped scenario stays on the base's branch
of the price (:func:`branch`): exercise now (S >= I2), the BS2002 formula, the European or
the intrinsic floor, B_0's max, and the European price where q_c <= 1e-12. Across such a
kink the price has no derivative and a central difference averages the two sides; the
analytic greeks are the selected branch's (pricing's docstring). The share so excluded is
bounded, so that the comparisons cannot pass by excluding.

Unit mapping as in test_pricing: QuantLib's theta is per year, vega and rho per unit.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from marketdata.options import _jets
from marketdata.options import pricing as P
from marketdata.options.rates import dividend_yield
from tests.marketdata.options.conftest import grid, ql_option, recorded_chains

REL = 1e-6
GREEKS = ("delta", "gamma", "theta", "vega", "rho")
KEYS = ("S", "K", "T", "r", "q", "sigma")
PRICE_NOISE = 1e-14  # x S: the numpy reference price's rounding (its bivariate normal's)


def branch(S, K, T, r, q, sigma, is_call) -> np.ndarray:
    """Which branch of the American price each contract is on (numpy reference pieces):
    0 European (q_c <= 1e-12), 1 exercise now, 2 the BS2002 formula, 3 the European floor,
    4 the intrinsic floor; + 10 where B_0 = r K / (r - b) rather than K."""
    call = np.asarray(is_call, bool)
    s_c, k_c = np.where(call, S, K), np.where(call, K, S)
    r_c, q_c = np.where(call, r, q), np.where(call, q, r)
    with np.errstate(all="ignore"):
        b = r_c - q_c
        _beta, b_inf, b_zero = P._boundary_terms(k_c, r_c, b, sigma)
        h2 = -(b * T + 2.0 * sigma * np.sqrt(T)) * k_c * k_c / ((b_inf - b_zero) * b_zero)
        I2 = b_zero + (b_inf - b_zero) * (1.0 - np.exp(h2))
        raw = P._bs2002_call(s_c, k_c, T, r_c, b, sigma)
        european = P.bsm_price(s_c, k_c, T, r_c, q_c, sigma, True)
    intrinsic = s_c - k_c
    raw_wins = raw >= np.maximum(european, intrinsic)
    label = np.where(raw_wins, np.where(s_c >= I2, 1, 2),
                     np.where(european >= intrinsic, 3, 4)) + 10 * (r_c > q_c)
    return np.where(q_c > 1e-12, label, 0)


def _same_branch(g: dict, bumps: dict) -> np.ndarray:
    base = branch(**g)
    same = np.ones(base.shape, bool)
    for key, h in bumps.items():
        for sign in (1.0, -1.0):
            same &= branch(**(g | {key: g[key] + sign * h})) == base
    return same


def _richardson(g: dict, rel: float) -> tuple[dict, dict]:
    """Central differences of the numpy reference price at steps h and h/2, extrapolated
    ((4 D(h/2) - D(h)) / 3: truncation O(h^4)); h = rel x each one's scale: S sigma sqrt(T)
    (at most S) for S, the distribution's width; sigma; T; q_c for r (beta and B_0 move
    with r / q_c)."""
    q_c = np.where(g["is_call"], g["q"], g["r"])
    width = g["S"] * np.minimum(1.0, g["sigma"] * np.sqrt(g["T"]))
    bumps = {"S": rel * width, "sigma": rel * g["sigma"], "T": rel * g["T"],
             "r": rel * np.clip(np.abs(q_c), 1e-5, 1e-2)}
    f0 = P.bs2002_price_reference(**g)
    out = {}
    for key, h in bumps.items():
        first, second = [], []
        for k in (1.0, 0.5):
            up = P.bs2002_price_reference(**(g | {key: g[key] + k * h}))
            down = P.bs2002_price_reference(**(g | {key: g[key] - k * h}))
            first.append((up - down) / (2 * k * h))
            second.append((up - 2 * f0 + down) / (k * h) ** 2)
        out[key] = (4 * first[1] - first[0]) / 3
        if key == "S":
            out["gamma"] = (4 * second[1] - second[0]) / 3
    fd = {"delta": out["S"], "gamma": out["gamma"], "theta": -out["T"] / P.DAYS_PER_YEAR,
          "vega": out["sigma"] / 100.0, "rho": out["r"] / 100.0}
    # rounding of the differences: the price's noise over the step (x 4 for gamma's)
    noise = {"delta": 1 / bumps["S"], "gamma": 4 / bumps["S"] ** 2,
             "theta": 1 / bumps["T"] / P.DAYS_PER_YEAR, "vega": 1 / bumps["sigma"] / 100,
             "rho": 1 / bumps["r"] / 100}
    return fd, {"bumps": bumps, "noise": {k: PRICE_NOISE * g["S"] * v for k, v in noise.items()}}


@pytest.mark.slow("17 numpy reference prices of 2,000 contracts, and their branches")
def test_analytic_greeks_equal_richardson_differences_to_1e6():
    g = grid(2000, seed=47)
    ours = P.bs2002(**g)
    fd, meta = _richardson(g, 1e-3)
    same = _same_branch(g, meta["bumps"])
    assert same.mean() > 0.94  # measured: 78 of 2,000 straddle a kink at these steps
    for name in GREEKS:
        a, b = getattr(ours, name), fd[name]
        ok = same & np.isfinite(b)
        assert np.array_equal(np.isnan(a), np.isnan(P.bs2002_price(**g))), name
        err = np.abs(a - b)[ok]
        tol = (REL * np.abs(a) + meta["noise"][name])[ok]
        assert np.all(err <= tol), (name, np.flatnonzero(ok)[np.argmax(err / tol)])


def test_analytic_greeks_equal_the_finite_difference_reference():
    """Against ``bs2002_reference`` (the production bumps of AMERICAN_BUMPS, the method the
    service used before): within the differences' truncation error, measured (worst, away
    from kinks): delta 2e-6, gamma 4e-7, vega 5e-5, rho 5e-5 relative, theta 6e-7 where T
    >= 0.1 and 9e-3 below (a one-hour step on a 1-day option), beyond the rounding noise
    (1e-14 x S per price over the step)."""
    g = grid(2000, seed=47)
    ours, ref = P.bs2002(**g), P.bs2002_reference(**g)
    B, S = P.AMERICAN_BUMPS, g["S"]
    hs = B["spot"] * S * np.minimum(1.0, g["sigma"] * np.sqrt(g["T"]))
    hv = B["sigma"] * g["sigma"]
    ht = np.minimum(B["time"], g["T"] / 2.0)
    same = _same_branch(g, {"S": hs, "sigma": hv, "r": B["rate"], "T": ht})
    assert same.mean() > 0.94
    per_price = {"delta": 1 / hs, "gamma": 4 / hs**2, "theta": 1 / ht / P.DAYS_PER_YEAR,
                 "vega": 1 / hv / 100, "rho": 1 / B["rate"] / 100}
    rel = {"delta": 1e-5, "gamma": 1e-5, "vega": 1e-4, "rho": 1e-4,
           "theta": np.where(g["T"] >= 0.1, 1e-5, 2e-2)}
    for name in GREEKS:
        a, b = getattr(ours, name), getattr(ref, name)
        assert np.array_equal(np.isnan(a), np.isnan(b)), name
        ok = same & np.isfinite(b)
        tol = (rel[name] * np.abs(a) + PRICE_NOISE * S * per_price[name])[ok]
        assert np.all(np.abs(a - b)[ok] <= tol), name


def test_price_is_bs2002_price_bit_for_bit():
    g = grid(3000, seed=46)
    np.testing.assert_array_equal(P.bs2002(**g).price, P.bs2002_price(**g))


def test_a_greek_that_overflows_in_the_jets_is_the_finite_difference():
    """A deep in-the-money put at sigma 1.06 %, q 16.4 %, its boundary within reach: its
    vega and rho overflow inside the jets ((I/S)^kappa ~ 1e300 times a vanishing tail);
    those greeks alone are the reference's finite differences, the others stay analytic,
    the price is the price. (2 of 400,000 random extreme contracts, sigma down to 0.5 %;
    the contract of this test before was one whose boundary is out of reach: European.)"""
    args = (306.19541602497605, 865.171086235584, 2.1537217808792426, 0.041865211071809905,
            0.16369719309418596, 0.010616555196417488, False)
    raw = _jets.bs2002_greeks(*(np.array([a]) for a in args[:-1]), np.array([False]),
                              P.DAYS_PER_YEAR)[:, 0]
    overflowed = {"vega", "rho"}
    assert np.isnan(raw[4:]).all() and np.isfinite(raw[:4]).all()
    ours, ref = P.bs2002(*args), P.bs2002_reference(*args)
    assert float(ours.price) == float(P.bs2002_price(*args))
    for row, name in enumerate(GREEKS, start=1):
        if name in overflowed:
            assert float(getattr(ours, name)) == float(getattr(ref, name)), name
        else:
            assert float(getattr(ours, name)) == raw[row], name
    assert abs(float(ours.delta) - float(ref.delta)) <= 1e-9  # and they agree


def _quantlib_1993(ql, args: tuple) -> dict:
    opt, process = ql_option(ql, *args, american=True)
    opt.setPricingEngine(ql.BjerksundStenslandApproximationEngine(process))
    return {"price": opt.NPV(), "delta": opt.delta(), "gamma": opt.gamma(),
            "theta": opt.theta() / P.DAYS_PER_YEAR, "vega": opt.vega() / 100.0,
            "rho": opt.rho() / 100.0}


def _close(ours: float, ref: float, S: float, name: str) -> bool:
    floor = 1e-10 * S / S**2 if name == "gamma" else 1e-10 * S
    return abs(ours - ref) <= REL * abs(ref) + floor


@pytest.mark.slow("a QuantLib option and engine per contract, 400 contracts")
def test_1993_greeks_equal_quantlibs_analytic_greeks(ql):
    """QuantLib's engine differentiates the 1993 formula analytically (boundary included)
    and floors at the European and intrinsic values as we do: our jets on that boundary
    give its numbers (observed ~1e-12 relative)."""
    g = grid(400, seed=2)
    ours = P.bs1993_greeks(**g)
    intrinsic = np.where(g["is_call"], g["S"] - g["K"], g["K"] - g["S"])
    floored = np.maximum(np.maximum(P.bs1993_american(**g), P.bsm_price(**g)), intrinsic)
    assert np.all(np.abs(ours.price - floored) <= 1e-10 * floored + 1e-12 * g["S"])
    bad = []
    for i in range(400):
        args = (*(g[k][i] for k in KEYS), bool(g["is_call"][i]))
        ref = _quantlib_1993(ql, args)
        for name in ("price", *GREEKS):
            if not _close(float(getattr(ours, name)[i]), ref[name], g["S"][i], name):
                bad.append((i, name, float(getattr(ours, name)[i]), ref[name]))
    assert not bad, bad[:10]


def _chain_contracts() -> dict:
    rows = []
    for _, quote, c, is_call in recorded_chains():
        now = dt.datetime.fromtimestamp(quote["regularMarketTime"], dt.UTC)
        q = float(dividend_yield((quote.get("dividendYield") or 0) / 100))  # v7: percent
        T = float(P.time_to_expiry(c["expiration"], now)[0])
        days = round(T * 365)  # whole days: QuantLib's dates give the same T
        iv = c.get("impliedVolatility") or 0
        sigma = min(iv, 1.5) if iv >= 0.05 else 0.3  # a placeholder: 30 %
        if days >= 1:
            rows.append((quote["regularMarketPrice"], c["strike"], days / 365, 0.043, q,
                         sigma, is_call))
    columns = [np.array(col) for col in zip(*rows, strict=True)]
    return dict(zip((*KEYS, "is_call"), columns, strict=True))


def test_recorded_chains_greeks_against_quantlib_and_richardson(ql):
    """Every contract of the recorded chains (the AAPL one; T in whole days), sigma Yahoo's
    IV where it is one (>= 5 %, capped at 150 %) else 30 %, r = 4.3 %, the quote's dividend
    yield. BS2002's analytic greeks against Richardson differences to 1e-6 (where the bumps
    stay on one branch: a week-out call's BS2002 value and the European floor cross within
    rounding; measured: 50 of 102 compared), and the 1993 boundary's against
    QuantLib's engine to 1e-6 (all)."""
    g = _chain_contracts()
    n = g["S"].size
    assert n >= 100
    ours = P.bs2002(**g)
    fd, meta = _richardson(g, 1e-3)
    same = _same_branch(g, meta["bumps"])
    assert same.sum() >= 40
    for name in GREEKS:
        a = getattr(ours, name)
        ok = same & np.isfinite(fd[name])
        tol = (REL * np.abs(a) + meta["noise"][name])[ok]
        assert np.all(np.abs(a - fd[name])[ok] <= tol), name
    old = P.bs1993_greeks(**g)
    bad = []
    for i in range(n):
        ref = _quantlib_1993(ql, (*(g[k][i] for k in KEYS), bool(g["is_call"][i])))
        for name in ("price", *GREEKS):
            if not _close(float(getattr(old, name)[i]), ref[name], g["S"][i], name):
                bad.append((i, name, float(getattr(old, name)[i]), ref[name]))
    assert not bad, bad[:10]
