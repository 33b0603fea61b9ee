"""marketdata.options.surface: a chain priced from a known smile gives that smile back on
the grid, the ATM term structure and the 25-delta skew; the liquidity rules."""

from __future__ import annotations

import numpy as np
import pytest

from marketdata.options import pricing as P
from marketdata.options.surface import Liquidity, liquid, surface

S, R, Q = 100.0, 0.04, 0.01


def smile(k_over_s: np.ndarray, T: np.ndarray) -> np.ndarray:
    """A skewed smile, linear in K/S (so linear interpolation recovers it exactly)."""
    return 0.2 + 0.05 * np.sqrt(T) - 0.3 * (k_over_s - 1.0)


def chain(style: str):
    strikes = np.arange(60.0, 141.0, 2.5)
    T = np.repeat([30 / 365, 90 / 365, 1.0], strikes.size * 2)
    K = np.tile(np.concatenate([strikes, strikes]), 3)
    call = np.tile(np.r_[np.ones(strikes.size, bool), np.zeros(strikes.size, bool)], 3)
    sigma = smile(K / S, T)
    p = P.price(S, K, T, R, Q, sigma, call, style)
    # a listed option's bid is at least one tick (0.01): no quote below it
    bid = np.where(p * 0.999 >= 0.01, p * 0.999, 0.0)
    return T, K, call, bid, p * 1.001, sigma


@pytest.mark.parametrize("style", ["european", "american"])
def test_the_known_smile_comes_back(style):
    T, K, call, bid, ask, sigma = chain(style)
    s = surface(T, K, call, bid, ask, S, R, Q, style)
    solved = np.isfinite(s.iv)
    assert solved.sum() > 0.6 * T.size
    # the mid is the model price: the IV is the smile's, wherever the price says something
    # about sigma (deep in the money, vega per point below 1e-6 of the spot, it does not)
    vega = P.greeks(S, K, T, R, Q, sigma, call, style).vega
    informative = solved & (vega > 1e-6 * S)
    np.testing.assert_allclose(s.iv[informative], sigma[informative], rtol=1e-6)
    np.testing.assert_allclose(s.expiries, [30 / 365, 90 / 365, 1.0])
    for i, t in enumerate(s.expiries):
        expected = smile(s.moneyness, np.full(s.moneyness.size, t))
        there = np.isfinite(s.grid[i])  # the short expiries have no quoted wings
        assert there[(s.moneyness >= 0.9) & (s.moneyness <= 1.1)].all()
        np.testing.assert_allclose(s.grid[i][there], expected[there], rtol=1e-6)
        assert s.atm[i] == pytest.approx(smile(np.array([1.0]), np.array([t]))[0], rel=1e-6)
        assert s.skew25[i] > 0  # puts richer than calls on this smile


def test_no_extrapolation_outside_the_strikes():
    T, K, call, bid, ask, _ = chain("european")
    narrow = (K >= 90) & (K <= 110)
    s = surface(T[narrow], K[narrow], call[narrow], bid[narrow], ask[narrow], S, R, Q,
                "european")
    m = s.moneyness
    assert np.isnan(s.grid[:, (m < 0.9) | (m > 1.1)]).all()
    assert np.isfinite(s.grid[:, (m >= 0.9) & (m <= 1.1)]).all()


def test_liquidity_rules():
    bid = np.array([0.0, 1.0, 1.0, 1.0, 1.0, np.nan])
    ask = np.array([1.0, 0.9, 2.0, 1.2, 1.2, 1.0])
    T = np.array([0.1, 0.1, 0.1, 0.1, 0.0, 0.1])
    assert list(liquid(bid, ask, T)) == [False, False, False, True, False, False]
    age = np.array([1, 1, 1, 10, 1, 1])
    assert not liquid(bid, ask, T, age, Liquidity(max_age_days=5))[3]
    assert liquid(bid, ask, T, age, Liquidity(max_age_days=20))[3]
    assert not liquid(bid, ask, T, None, Liquidity(max_age_days=20))[3]
    assert liquid(bid, ask, T, None, Liquidity(max_spread=1.5))[2]
