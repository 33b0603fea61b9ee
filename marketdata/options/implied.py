"""Implied volatility from an option's price, vectorised, for both models (numpy only).

``implied_volatility(price, S, K, T, r, q, is_call, style)`` returns, per contract, the
sigma at which the model of its exercise style (Black-Scholes-Merton for European,
Bjerksund-Stensland 2002 for American: :mod:`marketdata.options.pricing`) gives ``price``.
The price is usually the mid of bid and ask (:func:`mid`). Units as in ``pricing``.

**No answer rather than a wrong one.** NaN where:

- an input is invalid (the pricing's rules: S, K, T, sigma domain) or the price is not a
  finite number > 0;
- the price is outside the no-arbitrage bounds, at the bound included (where sigma is 0 or
  undefined): European call ``max(S e^-qT - K e^-rT, 0) < C < S e^-qT``, put
  ``max(K e^-rT - S e^-qT, 0) < P < K e^-rT``; American call
  ``max(S - K, S e^-qT - K e^-rT, 0) < C < S``, put ``max(K - S, K e^-rT - S e^-qT, 0) < P < K``;
- the price is outside the model's prices over the bracket **[1e-4, 5.0]** (0.01 % to
  500 % a year: below it the option is worth its bound to 1e-10, above it no listed
  option trades), i.e. price(1e-4) > price or price(5.0) < price;
- the solver has not converged after ``max_iter`` (100) iterations.

**Solver.** The model price is increasing in sigma, so a bracket [lo, hi] with price(lo) <
target < price(hi) is kept and shrunk every iteration. European: Newton with the analytic
vega from a Manaster-Koehler start, sqrt(2 |ln(F/K)| / T) clipped into the bracket; a Newton
step that leaves the bracket (or a vega below 1e-300) is replaced by bisection. American: a
secant step through the last two iterates, also replaced by bisection when it leaves the
bracket; BS2002 overflows (NaN) at very small sigma, so a NaN price counts as below the
target (the bracket's low end moves up). Converged when |model(sigma) - price| <= min(1e-12,
1e-9 x price) (absolute per share, ``price_tol``, and relative for prices below 1e-3), when
a Newton or secant step moves sigma by less than 1e-12 of itself, or when the bracket is
narrower than 1e-8 (``sigma_tol``, the bisection's end); the answer is the last iterate (the
bracket's midpoint on the third rule). The price tolerance is tighter than a quote's
precision on purpose: the answer then has ~1e-9 relative precision wherever vega is not
tiny, and it costs one or two iterations. BS2002 prices have an absolute precision of ~1e-13
x S (the bivariate normal's), so an American IV solved from a price below ~1e-6 x S (far
below a listed option's tick) is less precise.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from marketdata.options import _kernels
from marketdata.options._threads import chunked
from marketdata.options.pricing import (
    Style,
    _arrays,
    _is_american,
    _valid,
    bs2002_price_reference,
    bsm,
)

SIGMA_MIN = 1e-4
SIGMA_MAX = 5.0
PRICE_TOL = 1e-12
STEP_TOL = 1e-12  # relative
RELATIVE_PRICE_TOL = 1e-9
SIGMA_TOL = 1e-8
MAX_ITER = 100


def mid(bid: ArrayLike, ask: ArrayLike) -> np.ndarray:
    """(bid + ask) / 2 where both are finite, bid > 0 and ask >= bid; NaN otherwise."""
    b, a = (np.asarray(x, dtype=float) for x in np.broadcast_arrays(bid, ask))
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(b) & np.isfinite(a) & (b > 0) & (a >= b)
    return np.where(ok, (b + a) / 2.0, np.nan)


def price_bounds(S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike, q: ArrayLike,
                 is_call: ArrayLike,
                 style: Style | ArrayLike = "european") -> tuple[np.ndarray, np.ndarray]:
    """The no-arbitrage (lower, upper) bounds of each contract's price (module docstring)."""
    S_, K_, T_, r_, q_, c_ = _arrays(S, K, T, r, q, is_call)
    call = c_.astype(bool)
    american = _is_american(style, S_.shape)
    with np.errstate(all="ignore"):
        fwd = S_ * np.exp(-q_ * T_)
        strike = K_ * np.exp(-r_ * T_)
        european_low = np.maximum(np.where(call, fwd - strike, strike - fwd), 0.0)
        intrinsic = np.maximum(np.where(call, S_ - K_, K_ - S_), 0.0)
        lower = np.where(american, np.maximum(intrinsic, european_low), european_low)
        upper = np.where(call, np.where(american, S_, fwd), np.where(american, K_, strike))
    return lower, upper


def implied_volatility(price: ArrayLike, S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike,
                       q: ArrayLike,
                       is_call: ArrayLike, style: Style | ArrayLike = "european", *,
                       lo: float = SIGMA_MIN, hi: float = SIGMA_MAX,
                       price_tol: float = PRICE_TOL, sigma_tol: float = SIGMA_TOL,
                       max_iter: int = MAX_ITER) -> np.ndarray:
    """Per-contract implied volatility (a fraction), NaN where there is no answer."""
    return _implied(_solve, price, S, K, T, r, q, is_call, style, lo, hi, price_tol,
                    sigma_tol, max_iter)


def implied_volatility_reference(price: ArrayLike, S: ArrayLike, K: ArrayLike, T: ArrayLike,
                                 r: ArrayLike, q: ArrayLike, is_call: ArrayLike,
                                 style: Style | ArrayLike = "european") -> np.ndarray:
    """:func:`implied_volatility` through the vectorised numpy solver (the reference the
    compiled one is tested against)."""
    return _implied(_solve_reference, price, S, K, T, r, q, is_call, style, SIGMA_MIN,
                    SIGMA_MAX, PRICE_TOL, SIGMA_TOL, MAX_ITER)


def _implied(solve: Callable[..., np.ndarray], price: ArrayLike, S: ArrayLike, K: ArrayLike,
             T: ArrayLike, r: ArrayLike, q: ArrayLike, is_call: ArrayLike,
             style: Style | ArrayLike, lo: float, hi: float, price_tol: float,
             sigma_tol: float, max_iter: int) -> np.ndarray:
    P_, S_, K_, T_, r_, q_, c_ = _arrays(price, S, K, T, r, q, is_call)
    shape = P_.shape
    american = _is_american(style, shape).ravel()
    P_, S_, K_, T_, r_, q_, c_ = (a.ravel() for a in (P_, S_, K_, T_, r_, q_, c_))
    call = c_.astype(bool)
    out = np.full(P_.shape, np.nan)
    lower, upper = price_bounds(S_, K_, T_, r_, q_, call, american)
    with np.errstate(invalid="ignore"):
        ok = (_valid(S_, K_, T_, r_, q_, np.ones_like(S_)) & np.isfinite(P_) & (P_ > 0)
              & (P_ > lower) & (P_ < upper))
    for is_am in (False, True):
        lanes = np.flatnonzero(ok & (american == is_am))
        if lanes.size:
            out[lanes] = solve(P_[lanes], S_[lanes], K_[lanes], T_[lanes], r_[lanes],
                                q_[lanes], call[lanes], is_am, lo, hi, price_tol,
                                sigma_tol, max_iter)
    return out.reshape(shape)


def _solve(target: np.ndarray, S: np.ndarray, K: np.ndarray, T: np.ndarray, r: np.ndarray,
           q: np.ndarray, call: np.ndarray, american: bool, lo_bound: float, hi_bound: float,
           price_tol: float, sigma_tol: float, max_iter: int) -> np.ndarray:
    """The solver, compiled (:func:`marketdata.options._kernels.solve_iv`, per contract)."""
    c = np.ascontiguousarray
    return chunked(_kernels.solve_iv,
                   (c(target), c(S), c(K), c(T), c(r), c(q), c(call, dtype=bool)),
                   (american, float(lo_bound), float(hi_bound), float(price_tol),
                    RELATIVE_PRICE_TOL, STEP_TOL, float(sigma_tol), int(max_iter)), axis=0)


def _solve_reference(target: np.ndarray, S: np.ndarray, K: np.ndarray, T: np.ndarray,
                     r: np.ndarray, q: np.ndarray, call: np.ndarray, american: bool,
                     lo_bound: float, hi_bound: float, price_tol: float, sigma_tol: float,
                     max_iter: int) -> np.ndarray:
    """:func:`_solve` in vectorised numpy (all contracts' iterations at once, numpy BSM and
    :func:`pricing.bs2002_price_reference`): the reference the kernel is tested against."""
    n = target.size

    def model(idx: np.ndarray, sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        if american:
            return bs2002_price_reference(S[idx], K[idx], T[idx], r[idx], q[idx], sigma,
                                          call[idx]), None
        g = bsm(S[idx], K[idx], T[idx], r[idx], q[idx], sigma, call[idx])
        return g.price, g.vega * 100.0

    result = np.full(n, np.nan)
    everyone = np.arange(n)
    p_lo, _ = model(everyone, np.full(n, lo_bound))
    p_hi, _ = model(everyone, np.full(n, hi_bound))
    # BS2002 overflows at very small sigma (its exponents grow like b / sigma^2): a NaN
    # price there counts as below any target (the target is above the lower bound).
    p_lo = np.where(np.isnan(p_lo), -np.inf, p_lo)
    # The price tolerance, relative for small prices (a 1e-11 price is solved to 1e-20).
    tol = np.minimum(price_tol, RELATIVE_PRICE_TOL * target)
    with np.errstate(invalid="ignore"):
        inside = (p_lo < target - tol) & (target <= p_hi + tol)
    # At the top of the bracket within the tolerance: 5.0. At its bottom (price(1e-4) within
    # the tolerance of the target) sigma is not determined by the price: no answer.
    at_hi = inside & (np.abs(p_hi - target) <= tol)
    result[at_hi] = hi_bound
    active = np.flatnonzero(inside & ~at_hi)
    lo = np.full(n, lo_bound)
    hi = np.full(n, hi_bound)
    with np.errstate(all="ignore"):
        fwd_moneyness = np.log(S * np.exp((r - q) * T) / K)
        x = np.clip(np.sqrt(2.0 * np.abs(fwd_moneyness) / T), lo_bound, hi_bound)
    x = np.where(np.isfinite(x) & (x > lo_bound) & (x < hi_bound), x, 0.3)
    x_prev = np.where(p_hi - target > target - p_lo, lo, hi)
    f_prev = np.where(x_prev == lo, p_lo - target, p_hi - target)
    for _ in range(max_iter):
        if active.size == 0:
            break
        xa = x[active]
        p, vega = model(active, xa)
        f = p - target[active]
        if american:
            f = np.where(np.isnan(f), -np.inf, f)
        done = np.isfinite(f) & (np.abs(f) <= tol[active])
        result[active[done]] = xa[done]
        below = f < 0
        lo[active] = np.where(below, np.maximum(lo[active], xa), lo[active])
        hi[active] = np.where(~below, np.minimum(hi[active], xa), hi[active])
        narrow = ~done & (hi[active] - lo[active] <= sigma_tol)
        result[active[narrow]] = (lo[active[narrow]] + hi[active[narrow]]) / 2.0
        with np.errstate(all="ignore"):
            if vega is not None:
                step = np.where(vega > 1e-300, xa - f / vega, np.nan)
            else:
                step = xa - f * (xa - x_prev[active]) / (f - f_prev[active])
        bisect = (lo[active] + hi[active]) / 2.0
        la, ha = lo[active], hi[active]
        with np.errstate(invalid="ignore"):
            good = np.isfinite(step) & (step > la) & (step < ha) & np.isfinite(f)
        x_prev[active] = xa
        f_prev[active] = f
        new_x = np.where(good, step, bisect)
        x[active] = new_x
        settled = ~done & ~narrow & good & (np.abs(new_x - xa) <= STEP_TOL * xa)
        result[active[settled]] = new_x[settled]
        active = active[~done & ~narrow & ~settled]
    return result
