"""Implied-volatility surface of one chain: liquid contracts, IV per contract, a grid over
expirations x moneyness, the at-the-money term structure and the 25-delta skew (numpy only).

Inputs are arrays per contract: ``T`` (years to expiry, ACT/365, :func:`pricing.time_to_expiry`),
``strike``, ``is_call``, ``bid``, ``ask`` and optionally ``last_trade_age_days``; the spot
``S``, the rate ``r`` (a scalar or per contract: :func:`rates.risk_free_rate` at each T) and
the dividend yield ``q`` (continuous), and the exercise style (one word, or per contract).

**Liquidity rules** (:class:`Liquidity`, every one with a default): a contract is dropped
when its bid is missing or <= 0 (``drop zero bid``), its ask is missing or below its bid
(crossed), its spread (ask - bid) is wider than ``max_spread`` x mid (default 0.5: 50 % of
the mid), or, when ``max_age_days`` is given (default: not applied) and the ages are known,
its last trade is older than that many days (a contract with an unknown age is then dropped
too). T <= 0 drops it (expired).

**IV per contract**: solved from the mid, (bid + ask) / 2, by
:func:`implied.implied_volatility` under the contract's style. Yahoo's
``impliedVolatility`` is never substituted: it is computed by Yahoo at an unknown time from
an unknown price and rate (often a placeholder such as 1e-5), so a contract whose mid cannot
be solved (outside the no-arbitrage bounds, or no solution in [1e-4, 5]) has no IV (NaN) and
stays out of the grid.

**Grid**: one row per expiry (ascending T), one column per moneyness K/S in
``moneyness`` (default 0.70, 0.75, ..., 1.30). Per expiry the curve is built from the
out-of-the-money side, puts below K/S = 1 and calls at and above it (the liquid side, and
the one least touched by early exercise), sorted by strike (a strike listed twice on a side
keeps its mean IV); the grid value is the linear interpolation in K/S between the two
neighbouring strikes, NaN outside the strikes the expiry has (no extrapolation).

**ATM term structure**: the same curve at K/S = 1 per expiry (NaN when the strikes do not
straddle 1).

**25-delta skew**: per expiry, IV of the 25-delta put minus IV of the 25-delta call. Each
liquid contract's delta is the Black-Scholes-Merton delta at its solved IV (for American
contracts too: the market convention), the puts' IVs are interpolated linearly in delta at
-0.25 and the calls' at +0.25; NaN when either side does not straddle its 0.25.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from marketdata.options.implied import implied_volatility, mid
from marketdata.options.pricing import Style, bsm

DEFAULT_MONEYNESS = tuple(round(0.70 + 0.05 * i, 2) for i in range(13))  # 0.70 .. 1.30
SKEW_DELTA = 0.25


@dataclass(frozen=True)
class Liquidity:
    """The rules that keep a contract (module docstring)."""

    max_spread: float = 0.5  # (ask - bid) / mid
    max_age_days: float | None = None  # last trade age; None: not applied


@dataclass(frozen=True)
class Surface:
    """The surface of one chain: per contract (``liquid``, ``iv``, ``delta``, NaN where
    not liquid or not solved) and per expiry (``expiries`` ascending, ``grid`` of shape
    (expiries, moneyness), ``atm``, ``skew25``)."""

    liquid: np.ndarray
    iv: np.ndarray
    delta: np.ndarray
    expiries: np.ndarray
    moneyness: np.ndarray
    grid: np.ndarray
    atm: np.ndarray
    skew25: np.ndarray = field(repr=False)


def liquid(bid: ArrayLike, ask: ArrayLike, T: ArrayLike,
           last_trade_age_days: ArrayLike | None = None,
           rules: Liquidity = Liquidity()) -> np.ndarray:
    """Which contracts pass the liquidity rules."""
    m = mid(bid, ask)
    b, a, t = (np.asarray(x, dtype=float) for x in np.broadcast_arrays(bid, ask, T))
    with np.errstate(invalid="ignore"):
        keep = np.isfinite(m) & np.isfinite(t) & (t > 0)
        keep &= (a - b) <= rules.max_spread * m
        if rules.max_age_days is not None:
            if last_trade_age_days is None:
                keep &= False
            else:
                age = np.broadcast_to(np.asarray(last_trade_age_days, dtype=float), keep.shape)
                keep &= np.isfinite(age) & (age <= rules.max_age_days)
    return keep


def _curve(x: np.ndarray, y: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Linear interpolation of y(x) at ``at`` inside [min x, max x], NaN outside; equal x
    keep their mean."""
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size == 0:
        return np.full(at.shape, np.nan)
    ux, inverse = np.unique(x, return_inverse=True)
    uy = np.bincount(inverse, weights=y) / np.bincount(inverse)
    inside = (at >= ux[0]) & (at <= ux[-1])
    return np.where(inside, np.interp(at, ux, uy), np.nan)


def surface(T: ArrayLike, strike: ArrayLike, is_call: ArrayLike, bid: ArrayLike, ask: ArrayLike,
            S: float, r: ArrayLike, q: ArrayLike, style: Style | ArrayLike = "american", *,
            last_trade_age_days: ArrayLike | None = None, rules: Liquidity = Liquidity(),
            moneyness: tuple[float, ...] | np.ndarray = DEFAULT_MONEYNESS) -> Surface:
    """The surface of one chain (module docstring)."""
    T_, K_, c_, b_, a_ = (np.asarray(x, dtype=float).ravel()
                          for x in np.broadcast_arrays(T, strike, is_call, bid, ask))
    call = c_.astype(bool)
    n = T_.size
    r_ = np.broadcast_to(np.asarray(r, dtype=float), (n,))
    q_ = np.broadcast_to(np.asarray(q, dtype=float), (n,))
    style_ = style if isinstance(style, str) else np.broadcast_to(
        np.asarray(style, dtype=bool), (n,))
    keep = liquid(b_, a_, T_, last_trade_age_days, rules)
    iv = np.full(n, np.nan)
    if keep.any():
        chosen = style_ if isinstance(style_, str) else style_[keep]
        iv[keep] = implied_volatility(mid(b_[keep], a_[keep]), S, K_[keep], T_[keep],
                                      r_[keep], q_[keep], call[keep], chosen)
    solved = np.isfinite(iv)
    delta = np.full(n, np.nan)
    if solved.any():
        delta[solved] = bsm(S, K_[solved], T_[solved], r_[solved], q_[solved], iv[solved],
                            call[solved]).delta
    grid_m = np.asarray(moneyness, dtype=float)
    expiries = np.unique(T_[solved])
    grid = np.full((expiries.size, grid_m.size), np.nan)
    atm = np.full(expiries.size, np.nan)
    skew = np.full(expiries.size, np.nan)
    k_over_s = K_ / S
    for i, t in enumerate(expiries):
        here = solved & (T_ == t)
        otm = here & np.where(call, k_over_s >= 1.0, k_over_s < 1.0)
        grid[i] = _curve(k_over_s[otm], iv[otm], grid_m)
        atm[i] = _curve(k_over_s[otm], iv[otm], np.array([1.0]))[0]
        puts, calls = here & ~call, here & call
        put25 = _curve(delta[puts], iv[puts], np.array([-SKEW_DELTA]))[0]
        call25 = _curve(delta[calls], iv[calls], np.array([SKEW_DELTA]))[0]
        skew[i] = put25 - call25
    return Surface(liquid=keep, iv=iv, delta=delta, expiries=expiries, moneyness=grid_m,
                   grid=grid, atm=atm, skew25=skew)
