"""Option prices and greeks: Black-Scholes-Merton (European) and Bjerksund-Stensland 2002
(American), vectorised over numpy arrays (numpy only, no framework).

Inputs (every one an array or a scalar; they broadcast against each other):

- ``S`` spot of the underlying, ``K`` strike, both per share in the same currency;
- ``T`` time to expiry in **years, ACT/365**: calendar seconds to expiry / (365 x 86,400).
  When the caller does not have T, :func:`time_to_expiry` measures it from now to the
  exchange's close on the expiry day (16:00 America/New_York; Yahoo's ``expiration`` is
  00:00 UTC of that day);
- ``r`` the risk-free rate and ``q`` the dividend yield, both **continuously compounded,
  per year, as fractions** (0.05 is 5 %; see :mod:`marketdata.options.rates`);
- ``sigma`` the volatility, per sqrt(year), a fraction (0.2 is 20 %);
- ``is_call`` booleans (True a call, False a put);
- ``style`` ``"european"`` or ``"american"`` for the whole call, or a boolean array
  ``is_american`` per contract (:func:`greeks`, :func:`price`).

Outputs, per contract (:class:`Greeks`), per share (multiply by the contract size, 100 for a
``REGULAR`` contract, for a position):

- ``price``;
- ``delta`` dV/dS; ``gamma`` d2V/dS2 (per unit of spot);
- ``theta`` **per calendar day**: dV/dt / 365 where t is calendar time (so -dV/dT / 365);
- ``vega`` **per volatility point**: dV/dsigma / 100 (the change for sigma 0.20 -> 0.21);
- ``rho`` **per rate point**: dV/dr / 100 (r 0.04 -> 0.05), q held fixed.

Edge rules: no answer rather than a wrong one. A contract gets NaN in every output where
any input is NaN or infinite, S <= 0, K <= 0, T <= 0 (expired, or expiring now: the value
is then the intrinsic value, which is not a model output) or sigma <= 0; and, for the
American model, where Bjerksund-Stensland's exponent beta is not > 1 (a negative rate
deep enough that sqrt((b/s^2 - 1/2)^2 + 2r/s^2) is imaginary or below 1/2 - b/s^2 - 1, i.e.
no finite exercise boundary) or an intermediate overflows. Numpy warnings are silenced
inside; NaN is the signal.

**European: Black-Scholes-Merton** with continuous dividend yield (Merton 1973). Analytic
greeks, the textbook forms (Hull, Options, Futures and Other Derivatives, ch. 19).

**American: Bjerksund-Stensland 2002** ("Closed form valuation of American options",
Bjerksund and Stensland, 2002; the formulas of Haug, The Complete Guide to Option Pricing
Formulas, 2nd ed., 2007, pp. 104-108): the value of exercising at a two-step flat boundary
(I1 on [0, t1], I2 on [t1, T], t1 = (sqrt 5 - 1) T / 2), a lower bound of the true American
price, floored at the European price and at the intrinsic value (a flat boundary can be
worth less than holding to expiry when T and sigma are large; QuantLib floors its 1993
engine the same way). Calls with q <= 0 (b = r - q >= r) are never exercised early: the
European price; so are calls whose boundary (above max(K, r K / q)) lies 10 standard
deviations of the log price beyond the spot, drift included: a premium below 2e-23 q T S,
where the formula's (I/S)^kappa would overflow times a vanishing tail (q of a few 1e-9, sigma
of a fraction of a percent; ``_kernels.boundary_unreachable``). Puts through the put-call
transformation P(S, K, T, r, q, sigma) = C(K, S, T, r=q, q=r, sigma). At or beyond the
boundary (S >= I2 for a call) the price is the intrinsic value. The bivariate normal is
:func:`marketdata.options._normal.bvn_cdf` (Genz, double precision).
American greeks are the **analytic derivatives of the BS2002 price** (:func:`bs2002`;
:mod:`marketdata.options._jets`: the formula differentiated in forward mode, through
phi, psi, the univariate and bivariate normals and the trigger prices' dependence on K, T,
sigma, r and q via beta, B_inf, B_0, h(T), I1, I2 and t1; puts through the same
transformation, their delta and gamma the call's derivatives in its strike). Where the
price switches branch (exercise now at S >= I2, the floors) they are the selected branch's
derivatives (at a kink, one side's). :func:`bs2002_reference`, central finite differences
with the bumps of :data:`AMERICAN_BUMPS` (spot +-0.1 % of S x min(1, sigma sqrt(T)),
volatility +-0.1 % of sigma, rate +-1e-5 with q fixed, time +-1 hour or T/2), is the
reference they are tested against (and a Richardson extrapolation of finer differences,
to 1e-6 relative).

:func:`bs1993_american` (price) and :func:`bs1993_greeks` (analytic greeks) are the 1993
one-step boundary ("Closed-form approximation of American options", Scandinavian Journal of
Management, 1993) that QuantLib's ``BjerksundStenslandApproximationEngine`` implements
(with analytic greeks); they share every building block with BS2002 and exist to check
them against QuantLib.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal
from zoneinfo import ZoneInfo

import numpy as np
from numpy.typing import ArrayLike

from marketdata.options import _jets, _kernels
from marketdata.options._normal import bvn_cdf, ncdf, npdf
from marketdata.options._threads import chunked

Style = Literal["european", "american"]

DAYS_PER_YEAR = 365.0  # ACT/365: theta per calendar day, T in years of 365 days
SECONDS_PER_YEAR = DAYS_PER_YEAR * 86_400.0
EXCHANGE_TZ = ZoneInfo("America/New_York")
EXCHANGE_CLOSE = dt.time(16, 0)

# Relative spot bump, relative sigma bump, absolute rate bump and the time step (years) of
# bs2002_reference's finite differences (the reference of the analytic American greeks, and
# their fallback where a derivative overflows).
AMERICAN_BUMPS = {"spot": 1e-3, "sigma": 1e-3, "rate": 1e-5, "time": 1.0 / 8_760.0}

_T1_FRACTION = (np.sqrt(5.0) - 1.0) / 2.0  # t1 / T in BS2002
_RHO_2002 = float(np.sqrt(_T1_FRACTION))  # the correlation of its bivariate normals


@dataclass(frozen=True)
class Greeks:
    """Per-share price and greeks of each contract (the units in the module docstring)."""

    price: np.ndarray
    delta: np.ndarray
    gamma: np.ndarray
    theta: np.ndarray
    vega: np.ndarray
    rho: np.ndarray


def time_to_expiry(expiration: float | np.ndarray, now: dt.datetime) -> np.ndarray:
    """Years (ACT/365) from ``now`` (aware) to 16:00 America/New_York on each expiry day.

    ``expiration`` is Yahoo's: Unix seconds at 00:00 UTC of the expiry day. A result <= 0
    (expired, or past the close on the expiry day) is what the pricing turns into NaN."""
    if now.tzinfo is None:
        raise ValueError("now must be timezone-aware")
    days = np.atleast_1d(np.asarray(expiration, dtype=float))
    out = np.full(days.shape, np.nan)
    for i, seconds in enumerate(days.flat):
        if not np.isfinite(seconds):
            continue
        day = dt.datetime.fromtimestamp(float(seconds), dt.UTC).date()
        close = dt.datetime.combine(day, EXCHANGE_CLOSE, tzinfo=EXCHANGE_TZ)
        out.flat[i] = (close - now).total_seconds() / SECONDS_PER_YEAR
    return out


def _arrays(*values: ArrayLike) -> list[np.ndarray]:
    """The inputs as float64 arrays of one broadcast shape (copies, so callers' arrays are
    never written)."""
    arrays = np.broadcast_arrays(*[np.asarray(v, dtype=float) for v in values])
    return [np.array(a, dtype=float) for a in arrays]


def _valid(S: np.ndarray, K: np.ndarray, T: np.ndarray, r: np.ndarray, q: np.ndarray,
           sigma: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return (np.isfinite(S) & np.isfinite(K) & np.isfinite(T) & np.isfinite(r)
                & np.isfinite(q) & np.isfinite(sigma) & (S > 0) & (K > 0) & (T > 0)
                & (sigma > 0))


def bsm(S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike, q: ArrayLike, sigma: ArrayLike,
        is_call: ArrayLike) -> Greeks:
    """Black-Scholes-Merton price and analytic greeks of European options."""
    S_, K_, T_, r_, q_, v_, c_ = _arrays(S, K, T, r, q, sigma, is_call)
    call = c_.astype(bool)
    ok = _valid(S_, K_, T_, r_, q_, v_)
    # Invalid lanes compute on harmless numbers and are set to NaN at the end.
    S_, K_, T_, v_ = (np.where(ok, a, 1.0) for a in (S_, K_, T_, v_))
    r_, q_ = (np.where(ok, a, 0.0) for a in (r_, q_))
    with np.errstate(all="ignore"):
        sqrt_t = np.sqrt(T_)
        vol = v_ * sqrt_t
        d1 = (np.log(S_ / K_) + (r_ - q_ + 0.5 * v_ * v_) * T_) / vol
        d2 = d1 - vol
        dq = np.exp(-q_ * T_)
        dr = np.exp(-r_ * T_)
        sign = np.where(call, 1.0, -1.0)
        n1 = ncdf(sign * d1)
        n2 = ncdf(sign * d2)
        pdf1 = npdf(d1)
        fwd = S_ * dq
        strike = K_ * dr
        price = sign * (fwd * n1 - strike * n2)
        delta = sign * dq * n1
        gamma = dq * pdf1 / (S_ * vol)
        vega_annual = fwd * pdf1 * sqrt_t
        theta_annual = (-fwd * pdf1 * v_ / (2.0 * sqrt_t)
                        - sign * r_ * strike * n2 + sign * q_ * fwd * n1)
        rho_annual = sign * T_ * strike * n2
    out = [price, delta, gamma, theta_annual / DAYS_PER_YEAR, vega_annual / 100.0,
           rho_annual / 100.0]
    return Greeks(*(np.where(ok, a, np.nan) for a in out))


def bsm_price(S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike, q: ArrayLike,
              sigma: ArrayLike,
              is_call: ArrayLike) -> np.ndarray:
    """Black-Scholes-Merton price only."""
    return bsm(S, K, T, r, q, sigma, is_call).price


# -- Bjerksund-Stensland -------------------------------------------------------------------

def _phi(S: np.ndarray, T: np.ndarray, gamma: np.ndarray | float, H: np.ndarray,
         I: np.ndarray, r: np.ndarray, b: np.ndarray, v: np.ndarray,
         scale: np.ndarray | float = 1.0) -> np.ndarray:
    """Bjerksund-Stensland's phi(S, T | gamma, H, I) with S**gamma written (S/scale)**gamma
    (the caller multiplies by scale**gamma, folded into alpha: no overflow of S**beta)."""
    v2 = v * v
    lam = (-r + gamma * b + 0.5 * gamma * (gamma - 1.0) * v2) * T
    vol = v * np.sqrt(T)
    d = -(np.log(S / H) + (b + (gamma - 0.5) * v2) * T) / vol
    kappa = 2.0 * b / v2 + (2.0 * gamma - 1.0)
    return (np.exp(lam) * (S / scale) ** gamma
            * (ncdf(d) - (I / S) ** kappa * ncdf(d - 2.0 * np.log(I / S) / vol)))


def _psi(S: np.ndarray, T: np.ndarray, gamma: np.ndarray | float, H: np.ndarray,
         I2: np.ndarray, I1: np.ndarray, t1: np.ndarray, r: np.ndarray, b: np.ndarray,
         v: np.ndarray, scale: np.ndarray | float = 1.0) -> np.ndarray:
    """BS2002's psi(S, T | gamma, H, I2, I1, t1), S**gamma as (S/scale)**gamma."""
    v2 = v * v
    drift1 = (b + (gamma - 0.5) * v2) * t1
    drift = (b + (gamma - 0.5) * v2) * T
    vol1 = v * np.sqrt(t1)
    vol = v * np.sqrt(T)
    e1 = (np.log(S / I1) + drift1) / vol1
    e2 = (np.log(I2 * I2 / (S * I1)) + drift1) / vol1
    e3 = (np.log(S / I1) - drift1) / vol1
    e4 = (np.log(I2 * I2 / (S * I1)) - drift1) / vol1
    f1 = (np.log(S / H) + drift) / vol
    f2 = (np.log(I2 * I2 / (S * H)) + drift) / vol
    f3 = (np.log(I1 * I1 / (S * H)) + drift) / vol
    f4 = (np.log(S * I1 * I1 / (H * I2 * I2)) + drift) / vol
    lam = -r + gamma * b + 0.5 * gamma * (gamma - 1.0) * v2
    kappa = 2.0 * b / v2 + (2.0 * gamma - 1.0)
    rho = _RHO_2002
    return (np.exp(lam * T) * (S / scale) ** gamma
            * (bvn_cdf(-e1, -f1, rho)
               - (I2 / S) ** kappa * bvn_cdf(-e2, -f2, rho)
               - (I1 / S) ** kappa * bvn_cdf(-e3, -f3, -rho)
               + (I1 / I2) ** kappa * bvn_cdf(-e4, -f4, -rho)))


def _boundary_terms(K: np.ndarray, r: np.ndarray, b: np.ndarray,
                    v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """beta, B_infinity and B0 of a call (carry b = r - q)."""
    v2 = v * v
    beta = (0.5 - b / v2) + np.sqrt((b / v2 - 0.5) ** 2 + 2.0 * r / v2)
    b_inf = beta / (beta - 1.0) * K
    b_zero = np.maximum(K, r / (r - b) * K)
    return beta, b_inf, b_zero


def _bs2002_call(S: np.ndarray, K: np.ndarray, T: np.ndarray, r: np.ndarray, b: np.ndarray,
                 v: np.ndarray) -> np.ndarray:
    """The BS2002 American call where b < r (q > 0), on valid lanes only."""
    beta, b_inf, b_zero = _boundary_terms(K, r, b, v)
    t1 = _T1_FRACTION * T
    span = (b_inf - b_zero) * b_zero
    h1 = -(b * t1 + 2.0 * v * np.sqrt(t1)) * K * K / span
    h2 = -(b * T + 2.0 * v * np.sqrt(T)) * K * K / span
    I1 = b_zero + (b_inf - b_zero) * (1.0 - np.exp(h1))
    I2 = b_zero + (b_inf - b_zero) * (1.0 - np.exp(h2))
    a1 = I1 - K  # alpha1 = (I1 - K) I1**-beta: I1**-beta goes into phi/psi's scale
    a2 = I2 - K
    value = (a2 * (S / I2) ** beta
             - a2 * _phi(S, t1, beta, I2, I2, r, b, v, scale=I2)
             + _phi(S, t1, 1.0, I2, I2, r, b, v)
             - _phi(S, t1, 1.0, I1, I2, r, b, v)
             - K * _phi(S, t1, 0.0, I2, I2, r, b, v)
             + K * _phi(S, t1, 0.0, I1, I2, r, b, v)
             + a1 * _phi(S, t1, beta, I1, I2, r, b, v, scale=I1)
             - a1 * _psi(S, T, beta, I1, I2, I1, t1, r, b, v, scale=I1)
             + _psi(S, T, 1.0, I1, I2, I1, t1, r, b, v)
             - _psi(S, T, 1.0, K, I2, I1, t1, r, b, v)
             - K * _psi(S, T, 0.0, I1, I2, I1, t1, r, b, v)
             + K * _psi(S, T, 0.0, K, I2, I1, t1, r, b, v))
    value = np.where(S >= I2, S - K, value)
    return np.where(beta > 1.0, value, np.nan)


def _bs1993_call(S: np.ndarray, K: np.ndarray, T: np.ndarray, r: np.ndarray, b: np.ndarray,
                 v: np.ndarray) -> np.ndarray:
    """The 1993 one-step boundary (QuantLib's engine), on valid lanes where b < r."""
    beta, b_inf, b_zero = _boundary_terms(K, r, b, v)
    h = -(b * T + 2.0 * v * np.sqrt(T)) * b_zero / (b_inf - b_zero)
    I = b_zero + (b_inf - b_zero) * (1.0 - np.exp(h))
    a = I - K
    value = (a * (S / I) ** beta
             - a * _phi(S, T, beta, I, I, r, b, v, scale=I)
             + _phi(S, T, 1.0, I, I, r, b, v)
             - _phi(S, T, 1.0, K, I, r, b, v)
             - K * _phi(S, T, 0.0, I, I, r, b, v)
             + K * _phi(S, T, 0.0, K, I, r, b, v))
    value = np.where(S >= I, S - K, value)
    return np.where(beta > 1.0, value, np.nan)


def _american(call_formula, S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike, q: ArrayLike,
              sigma: ArrayLike, is_call: ArrayLike) -> np.ndarray:
    S_, K_, T_, r_, q_, v_, c_ = _arrays(S, K, T, r, q, sigma, is_call)
    call = c_.astype(bool)
    ok = _valid(S_, K_, T_, r_, q_, v_)
    s_c, k_c, r_c, q_c = _as_calls(S_, K_, r_, q_, call)
    out = np.full(S_.shape, np.nan)
    # q_c below 1e-12 (a put: r below 1e-12): an early-exercise premium below 1e-12 of the
    # price, and beta = 1 + O(q_c) rounds to 1; and a boundary out of reach before expiry
    # (_no_early_exercise_transformed): priced as European.
    european = ok & _no_early_exercise_transformed(s_c, k_c, T_, r_c, q_c, v_)
    early = ok & ~european
    with np.errstate(all="ignore"):
        if european.any():
            out[european] = bsm_price(s_c[european], k_c[european], T_[european],
                                      r_c[european], q_c[european], v_[european], True)
        if early.any():
            rr = r_c[early]
            out[early] = call_formula(s_c[early], k_c[early], T_[early], rr,
                                      rr - q_c[early], v_[early])
        # A flat-boundary strategy can be worth less than holding to expiry (long-dated,
        # high volatility) or than exercising now: the American price is at least the
        # European and the intrinsic value (QuantLib floors its 1993 engine at the European).
        if early.any():
            european_value = bsm_price(s_c[early], k_c[early], T_[early], r_c[early],
                                       q_c[early], v_[early], True)
            floor = np.maximum(european_value, s_c[early] - k_c[early])
            out[early] = np.where(np.isfinite(out[early]), np.maximum(out[early], floor),
                                  np.nan)
    out[~np.isfinite(out)] = np.nan
    return out


def _as_calls(S: np.ndarray, K: np.ndarray, r: np.ndarray, q: np.ndarray,
              call: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(S, K, r, q) of the calls the contracts are priced as: the put-call transformation
    P(S, K, r, q) = C(K, S, r=q, q=r)."""
    return (np.where(call, S, K), np.where(call, K, S), np.where(call, r, q),
            np.where(call, q, r))


def _no_early_exercise_transformed(s_c: np.ndarray, k_c: np.ndarray, T: np.ndarray,
                                   r_c: np.ndarray, q_c: np.ndarray,
                                   v: np.ndarray) -> np.ndarray:
    """The put-call transformed calls never exercised early: q_c <= 1e-12, or a boundary
    out of reach (``_kernels.boundary_unreachable``, the same rule in numpy: B_0 = max(K,
    r K / q), z = (log(B_0 / S) - (|r - q| + sigma^2 / 2) T) / (sigma sqrt T) >= 10)."""
    with np.errstate(all="ignore"):
        b_zero = np.maximum(k_c, r_c / q_c * k_c)
        z = (np.log(b_zero / s_c) - (np.abs(r_c - q_c) + 0.5 * v * v) * T) / (v * np.sqrt(T))
        return (q_c <= 1e-12) | ((b_zero > 0) & (z >= _kernels.UNREACHABLE_Z))


def _no_early_exercise(flat: list[np.ndarray]) -> np.ndarray:
    """The contracts priced as European (q_c <= 1e-12: a call's q, a put's r; or a
    boundary out of reach), by the put-call transformation; ``flat``: S, K, T, r, q,
    sigma, is_call."""
    S, K, T, r, q, v = flat[:6]
    s_c, k_c, r_c, q_c = _as_calls(S, K, r, q, flat[6].astype(bool))
    return _no_early_exercise_transformed(s_c, k_c, T, r_c, q_c, v)


def bs2002_price(S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike, q: ArrayLike,
                 sigma: ArrayLike,
                 is_call: ArrayLike) -> np.ndarray:
    """Bjerksund-Stensland 2002 price of American options (NaN where undefined): the
    compiled kernel (:func:`marketdata.options._kernels.bs2002_prices`); the contracts
    without early exercise (q_c <= 1e-12, or a boundary out of reach) by the numpy BSM
    price, as the reference."""
    arrays = _arrays(S, K, T, r, q, sigma, is_call)
    shape = arrays[0].shape
    flat = [a.ravel() for a in arrays]
    call = flat[-1].astype(bool)
    european = _no_early_exercise(flat)
    out = np.empty(call.size)
    if european.any():
        out[european] = bs2002_price_reference(*(a[european] for a in flat))
    early = ~european
    if early.any():
        s_, k_, t_, r_, q_, v_ = (np.ascontiguousarray(a[early]) for a in flat[:-1])
        out[early] = _kernels.bs2002_prices(s_, k_, t_, r_, q_, v_, call[early])
    return out.reshape(shape)


def bs2002_price_reference(S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike,
                           q: ArrayLike, sigma: ArrayLike, is_call: ArrayLike) -> np.ndarray:
    """:func:`bs2002_price` in vectorised numpy: the reference the kernel is tested against."""
    return _american(_bs2002_call, S, K, T, r, q, sigma, is_call)


def bs1993_american(S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike, q: ArrayLike,
                    sigma: ArrayLike,
                    is_call: ArrayLike) -> np.ndarray:
    """Bjerksund-Stensland 1993 price (QuantLib's engine; not used by the service)."""
    return _american(_bs1993_call, S, K, T, r, q, sigma, is_call)


def bs2002(S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike, q: ArrayLike, sigma: ArrayLike,
           is_call: ArrayLike) -> Greeks:
    """BS2002 price and **analytic** greeks: the compiled kernel
    (:func:`marketdata.options._jets.bs2002_greeks`, the price's exact derivatives in
    forward mode), one chunk of the chain per core. The contracts without early exercise
    (q_c <= 1e-12, or a boundary out of reach) are European: the price of
    :func:`bs2002_price` (the numpy BSM price of the put-call transformed contract) and the
    analytic BSM greeks of :func:`bsm`. The price is :func:`bs2002_price`'s, bit for bit.
    Where a derivative overflows inside the kernel (extreme contracts, below), that greek is
    the finite difference of :func:`bs2002_reference` (NaN where that has none either)."""
    arrays = _arrays(S, K, T, r, q, sigma, is_call)
    shape = arrays[0].shape
    flat = [a.ravel() for a in arrays]
    call = flat[-1].astype(bool)
    european = _no_early_exercise(flat)
    out = np.empty((6, call.size))
    if european.any():
        lanes = [a[european] for a in flat]
        eu = bsm(*lanes)
        out[0, european] = bs2002_price_reference(*lanes)
        for row, name in enumerate(("delta", "gamma", "theta", "vega", "rho"), start=1):
            out[row, european] = getattr(eu, name)
    early = ~european
    if early.any():
        s_, k_, t_, r_, q_, v_ = (np.ascontiguousarray(a[early]) for a in flat[:-1])
        out[:, early] = chunked(
            _jets.bs2002_greeks, (s_, k_, t_, r_, q_, v_, np.ascontiguousarray(call[early])),
            (DAYS_PER_YEAR,), axis=1)
    # A derivative that overflowed inside the jets (a huge (I/S)^kappa times a vanishing
    # normal tail, at volatilities of about 1 % far from the money: 2 in 400,000 random
    # extreme contracts, none on the test grid): that greek's finite difference.
    overflowed = np.isfinite(out[0]) & ~np.isfinite(out[1:]).all(axis=0)
    if overflowed.any():
        ref = bs2002_reference(*(a[overflowed] for a in flat))
        for row, name in enumerate(("delta", "gamma", "theta", "vega", "rho"), start=1):
            mine = out[row, overflowed]
            out[row, overflowed] = np.where(np.isfinite(mine), mine, getattr(ref, name))
    return Greeks(*(row.reshape(shape) for row in out))


def bs1993_greeks(S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike, q: ArrayLike,
                  sigma: ArrayLike, is_call: ArrayLike) -> Greeks:
    """Bjerksund-Stensland 1993 price and analytic greeks, floored like BS2002 (checks
    only: QuantLib's engine gives analytic greeks of this formula; the tests compare)."""
    arrays = _arrays(S, K, T, r, q, sigma, is_call)
    shape = arrays[0].shape
    s_, k_, t_, r_, q_, v_ = (np.ascontiguousarray(a.ravel()) for a in arrays[:-1])
    call = np.ascontiguousarray(arrays[-1].ravel().astype(bool))
    out = _jets.bs1993_greeks(s_, k_, t_, r_, q_, v_, call, DAYS_PER_YEAR)
    return Greeks(*(row.reshape(shape) for row in out))


def bs2002_reference(S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike, q: ArrayLike,
                     sigma: ArrayLike, is_call: ArrayLike) -> Greeks:
    """BS2002 price and central finite-difference greeks (bumps: :data:`AMERICAN_BUMPS`;
    9 scenarios in one call of :func:`bs2002_price_reference`), vectorised numpy: the
    independent reference the analytic kernel (:func:`bs2002`) is tested against, within
    the differences' truncation error away from the price's kinks."""
    S_, K_, T_, r_, q_, v_, c_ = _arrays(S, K, T, r, q, sigma, is_call)
    n = S_.size
    with np.errstate(all="ignore"):
        hs = AMERICAN_BUMPS["spot"] * S_ * np.minimum(1.0, v_ * np.sqrt(np.abs(T_)))
        hv = AMERICAN_BUMPS["sigma"] * v_
    hr = AMERICAN_BUMPS["rate"]
    ht = np.minimum(AMERICAN_BUMPS["time"], T_ / 2.0)
    # One vectorised call over the 9 scenarios: base, S +- h, sigma +- h, r +- h, T -+ h.
    stack = [
        (S_, v_, r_, T_), (S_ + hs, v_, r_, T_), (S_ - hs, v_, r_, T_),
        (S_, v_ + hv, r_, T_), (S_, v_ - hv, r_, T_),
        (S_, v_, r_ + hr, T_), (S_, v_, r_ - hr, T_), (S_, v_, r_, T_ - ht),
        (S_, v_, r_, T_ + ht),
    ]
    m = len(stack)
    ss, vv, rr, tt = (np.concatenate([s[i].ravel() for s in stack]) for i in range(4))
    prices = bs2002_price_reference(ss, np.tile(K_.ravel(), m), tt, rr, np.tile(q_.ravel(), m), vv,
                          np.tile(c_.ravel(), m)).reshape(m, n)
    p, up, down, vup, vdown, rup, rdown, earlier, later = prices
    hs_, hv_, ht_ = hs.ravel(), hv.ravel(), ht.ravel()
    with np.errstate(all="ignore"):
        delta = (up - down) / (2.0 * hs_)
        gamma = (up - 2.0 * p + down) / (hs_ * hs_)
        vega = (vup - vdown) / (2.0 * hv_) / 100.0
        rho = (rup - rdown) / (2.0 * hr) / 100.0
        theta = (earlier - later) / (2.0 * ht_) / DAYS_PER_YEAR
    shape = S_.shape
    return Greeks(*(a.reshape(shape) for a in (p, delta, gamma, theta, vega, rho)))


def _is_american(style: Style | ArrayLike, shape: tuple[int, ...]) -> np.ndarray:
    if isinstance(style, str):
        if style not in ("european", "american"):
            raise ValueError(f"style must be 'european' or 'american', not {style!r}")
        return np.full(shape, style == "american")
    return np.broadcast_to(np.asarray(style, dtype=bool), shape)


def greeks(S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike, q: ArrayLike, sigma: ArrayLike,
           is_call: ArrayLike, style: Style | ArrayLike = "european") -> Greeks:
    """Price and greeks under the model of each contract's exercise style: BSM for
    European, BS2002 for American. ``style`` is one word for all, or ``is_american``
    booleans per contract."""
    arrays = _arrays(S, K, T, r, q, sigma, is_call)
    american = _is_american(style, arrays[0].shape)
    if not american.any():
        return bsm(*arrays)
    if american.all():
        return bs2002(*arrays)
    eu = bsm(*(a[~american] for a in arrays))
    am = bs2002(*(a[american] for a in arrays))
    out = []
    for name in ("price", "delta", "gamma", "theta", "vega", "rho"):
        values = np.empty(arrays[0].shape)
        values[~american] = getattr(eu, name)
        values[american] = getattr(am, name)
        out.append(values)
    return Greeks(*out)


def price(S: ArrayLike, K: ArrayLike, T: ArrayLike, r: ArrayLike, q: ArrayLike, sigma: ArrayLike,
          is_call: ArrayLike, style: Style | ArrayLike = "european") -> np.ndarray:
    """Price only, under the model of each contract's exercise style."""
    arrays = _arrays(S, K, T, r, q, sigma, is_call)
    american = _is_american(style, arrays[0].shape)
    out = np.empty(arrays[0].shape)
    if (~american).any():
        out[~american] = bsm_price(*(a[~american] for a in arrays))
    if american.any():
        out[american] = bs2002_price(*(a[american] for a in arrays))
    return out


# -- exercise style per underlying ------------------------------------------------------
# Cash-settled, European-exercise index options listed in the US (Cboe, Nasdaq). Every
# other US-listed equity and ETF option is American (OEX, the S&P 100, is American too).
EUROPEAN_ROOTS = frozenset({
    "SPX", "SPXW", "XSP", "NDX", "NDXP", "XND", "RUT", "RUTW", "MRUT", "VIX", "VIXW",
    "DJX", "XEO",
})


def exercise_style(symbol: str) -> Style:
    """European for index options (a Yahoo index symbol, ``^...``, or a root in
    :data:`EUROPEAN_ROOTS`), American for everything else (equities, ETFs)."""
    root = symbol.strip().upper()
    if root.startswith("^") or root in EUROPEAN_ROOTS:
        return "european"
    return "american"
