"""Compiled per-contract loops of the American model (and the European IV solver), numba.

The vectorised numpy forms in :mod:`marketdata.options.pricing` and
:mod:`marketdata.options.implied` are the reference implementation (the tests compare these
kernels with them on the generated grid); these are the same formulas, written per contract:

- :func:`bs2002_prices`: the Bjerksund-Stensland 2002 price (put-call transformation, the
  European price where q_c <= 1e-12 or the boundary is out of reach, the floor at the
  European and intrinsic values, NaN where the numpy form gives NaN);
- (its analytic greeks, the same expressions carried as jets, are
  :mod:`marketdata.options._jets`);
- :func:`solve_iv`: the bracketed Newton (European) / secant (American) solver of
  ``implied._solve``, same start, steps, tolerances and NaN rules.

Same algorithms as the numpy forms, down to the order of the sums: Cody's erfc, and Genz's
bivariate normal with the same 16 Gauss-Legendre nodes (their sines computed by numpy at
import, so the nodes are identical). What differs is the elementary functions' last bits
(glibc's ``exp``/``log``/``pow`` here, numpy's SIMD ones there) and, in the bivariate
normal's quadrature, an ``exp`` written here (:func:`_exp`: Cody-Waite reduction and a
degree-13 Taylor polynomial, within 2 ulp) that the compiler vectorises over the 16 nodes.
Prices agree with the numpy form within ~1e-13 relative (tests: 1e-10, or 1e-12 x S).

Where the price is shared, the work is too: the terms of phi and psi that do not depend on
gamma or H (logarithms of the boundary ratios, the normal tails of e1..e4 per gamma) are
computed once per price, each with the numpy form's expression, so its value is the same.

``error_model="numpy"``: a division by zero gives inf or NaN as in numpy (the numpy form
runs under ``np.errstate(all="ignore")``), never an exception.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

_F = TypeVar("_F", bound=Callable[..., Any])
# (cast: the kernels keep their Python signatures for the type checker)
_jit = cast(Callable[[_F], _F], numba.njit(cache=True, nogil=True, error_model="numpy"))
# The small helpers are inlined into their callers (numba's IR inlining): a call per
# quadrature node would keep the node loop from being vectorised.
_inline = cast(Callable[[_F], _F],
               numba.njit(cache=True, nogil=True, error_model="numpy", inline="always"))

# -- Cody's erfc (marketdata.options._normal.erfc, the same coefficients) ------------------
_A0, _A1, _A2, _A3, _A4 = (3.1611237438705656, 113.864154151050156, 377.485237685302021,
                           3209.37758913846947, 0.185777706184603153)
_B0, _B1, _B2, _B3 = (23.6012909523441209, 244.024637934444173, 1282.61652607737228,
                      2844.23683343917062)
_C0, _C1, _C2, _C3, _C4, _C5, _C6, _C7, _C8 = (
    0.564188496988670089, 8.88314979438837594, 66.1191906371416295, 298.635138197400131,
    881.95222124176909, 1712.04761263407058, 2051.07837782607147, 1230.33935479799725,
    2.15311535474403846e-8)
_D0, _D1, _D2, _D3, _D4, _D5, _D6, _D7 = (
    15.7449261107098347, 117.693950891312499, 537.181101862009858, 1621.38957456669019,
    3290.79923573345963, 4362.61909014324716, 3439.36767414372164, 1230.33935480374942)
_P0, _P1, _P2, _P3, _P4, _P5 = (0.305326634961232344, 0.360344899949804439,
                                0.125781726111229246, 0.0160837851487422766,
                                6.58749161529837803e-4, 0.0163153871373020978)
_Q0, _Q1, _Q2, _Q3, _Q4 = (2.56852019228982242, 1.87295284992346047, 0.527905102951428412,
                           0.0605183413124413191, 0.00233520497626869185)
_SQRPI = 0.56418958354775628695
_XBIG = 26.543
_INV_SQRT2 = 0.7071067811865475244008443621048490392848359376887
_INV_SQRT_2PI = 0.3989422804014326779399460599343818684758586311649


@_jit
def _exp_minus_square(y: float) -> float:
    head = math.trunc(y * 16.0) / 16.0
    return math.exp(-head * head) * math.exp(-(y - head) * (y + head))


@_jit
def erfc(x: float) -> float:
    """Cody's erfc of one number (the branches and Horner order of ``_normal.erfc``)."""
    if x != x:
        return np.nan
    y = abs(x)
    if y <= 0.46875:
        ysq = y * y if y > 1.11e-16 else 0.0
        num = _A4 * ysq
        den = ysq
        num = (num + _A0) * ysq
        den = (den + _B0) * ysq
        num = (num + _A1) * ysq
        den = (den + _B1) * ysq
        num = (num + _A2) * ysq
        den = (den + _B2) * ysq
        return 1.0 - x * (num + _A3) / (den + _B3)
    if y <= 4.0:
        num = _C8 * y
        den = y
        num = (num + _C0) * y
        den = (den + _D0) * y
        num = (num + _C1) * y
        den = (den + _D1) * y
        num = (num + _C2) * y
        den = (den + _D2) * y
        num = (num + _C3) * y
        den = (den + _D3) * y
        num = (num + _C4) * y
        den = (den + _D4) * y
        num = (num + _C5) * y
        den = (den + _D5) * y
        num = (num + _C6) * y
        den = (den + _D6) * y
        out = (num + _C7) / (den + _D7) * _exp_minus_square(y)
    elif y >= _XBIG:
        out = 0.0
    else:
        ysq = 1.0 / (y * y)
        num = _P5 * ysq
        den = ysq
        num = (num + _P0) * ysq
        den = (den + _Q0) * ysq
        num = (num + _P1) * ysq
        den = (den + _Q1) * ysq
        num = (num + _P2) * ysq
        den = (den + _Q2) * ysq
        num = (num + _P3) * ysq
        den = (den + _Q3) * ysq
        out = (_SQRPI - ysq * (num + _P4) / (den + _Q4)) / y * _exp_minus_square(y)
    if x < 0:
        out = 2.0 - out
    return out


@_jit
def ncdf(x: float) -> float:
    return 0.5 * erfc(-x * _INV_SQRT2)


# -- exp over the quadrature nodes, vectorisable --------------------------------------------
@intrinsic
def _bits_to_float(typingctx, bits):
    """The float64 whose IEEE bits are the int64 ``bits`` (LLVM bitcast, vectorisable)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # fdlibm's split of ln 2: n * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_EXP_MAX = 709.782712893384
_EXP_MIN = -745.1332191019412


@_inline
def _exp(a: float) -> float:
    """e**a within 2 ulp, branch-free (selects only) so that a loop of them vectorises:
    a = n ln2 + r, |r| <= ln2 / 2, e**r by its Taylor polynomial to r**13 (the next term is
    below 4e-18 relative), 2**n as two normal powers of two (subnormal results round once).
    Overflow gives inf, underflow 0, NaN NaN, as ``math.exp``."""
    c = a if a > _EXP_MIN - 1.0 else _EXP_MIN - 1.0
    c = c if c < _EXP_MAX + 1.0 else _EXP_MAX + 1.0
    n = math.floor(c * _LOG2E + 0.5)
    r = (c - n * _LN2_HI) - n * _LN2_LO
    p = 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    k = np.int64(n)
    k1 = k >> 1
    k2 = k - k1
    out = (p * _bits_to_float((k1 + 1023) << 52)  # type: ignore[call-arg]
           * _bits_to_float((k2 + 1023) << 52))  # type: ignore[call-arg]
    out = 0.0 if a < _EXP_MIN else out
    out = np.inf if a > _EXP_MAX else out
    return a if a != a else out


# -- the bivariate normal at BS2002's correlation (marketdata.options._normal.bvn_cdf) -----
_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)
_RHO = float(np.sqrt((np.sqrt(5.0) - 1.0) / 2.0))
_ASR_POS = float(np.arcsin(_RHO))
_ASR_NEG = float(np.arcsin(-_RHO))
_SN_POS = np.sin(_ASR_POS * (1.0 + _GL_X) / 2.0)
_SN_NEG = np.sin(_ASR_NEG * (1.0 + _GL_X) / 2.0)
_DEN_POS = 1.0 - _SN_POS * _SN_POS
_DEN_NEG = 1.0 - _SN_NEG * _SN_NEG
_NODES = 16


# -- Black-Scholes-Merton (pricing.bsm, one contract) ---------------------------------------
@_jit
def bsm_call(S: float, K: float, T: float, r: float, q: float, v: float) -> float:
    """The BSM call price, as ``pricing.bsm(...).price`` with is_call True, valid inputs."""
    sqrt_t = math.sqrt(T)
    vol = v * sqrt_t
    d1 = (math.log(S / K) + (r - q + 0.5 * v * v) * T) / vol
    d2 = d1 - vol
    return S * math.exp(-q * T) * ncdf(d1) - K * math.exp(-r * T) * ncdf(d2)


@_jit
def bsm_price_vega(S: float, K: float, T: float, r: float, q: float, v: float,
                   call: bool) -> tuple[float, float]:
    """BSM price and dV/dsigma (annual: ``pricing.bsm``'s vega x 100), valid inputs."""
    sqrt_t = math.sqrt(T)
    vol = v * sqrt_t
    d1 = (math.log(S / K) + (r - q + 0.5 * v * v) * T) / vol
    d2 = d1 - vol
    dq = math.exp(-q * T)
    dr = math.exp(-r * T)
    sign = 1.0 if call else -1.0
    n1 = ncdf(sign * d1)
    n2 = ncdf(sign * d2)
    pdf1 = _INV_SQRT_2PI * math.exp(-0.5 * d1 * d1)
    fwd = S * dq
    price = sign * (fwd * n1 - K * dr * n2)
    return price, fwd * pdf1 * sqrt_t / 100.0 * 100.0


# -- Bjerksund-Stensland 2002 (pricing._bs2002_call, one contract) -------------------------
_T1_FRACTION = float((np.sqrt(5.0) - 1.0) / 2.0)


@_jit
def _maximum(a: float, b: float) -> float:
    """np.maximum: NaN if either is NaN."""
    if a != a or b != b:
        return np.nan
    return a if a >= b else b


@_jit
def _minimum(a: float, b: float) -> float:
    """np.minimum: NaN if either is NaN."""
    if a != a or b != b:
        return np.nan
    return a if a <= b else b


@_inline
def _erfc_ems_lane(x: float) -> tuple[float, float]:
    """:func:`erfc` without branches (every branch computed, one selected), so that a loop
    of them vectorises; the same expressions, so the same value up to ``_exp``'s last bit.
    Also exp(-x*x) (Cody's split, what the rational forms are multiplied by; 0 where erfc
    underflows): from x = -z / sqrt 2 that is the normal density of z times sqrt(2 pi)."""
    y = abs(x)
    ysq = y * y if y > 1.11e-16 else 0.0
    num = _A4 * ysq
    den = ysq
    num = (num + _A0) * ysq
    den = (den + _B0) * ysq
    num = (num + _A1) * ysq
    den = (den + _B1) * ysq
    num = (num + _A2) * ysq
    den = (den + _B2) * ysq
    small = 1.0 - x * (num + _A3) / (den + _B3)
    ym = y if y < _XBIG else _XBIG
    head = np.trunc(ym * 16.0) / 16.0
    ems = _exp(-head * head) * _exp(-(ym - head) * (ym + head))
    num = _C8 * ym
    den = ym
    num = (num + _C0) * ym
    den = (den + _D0) * ym
    num = (num + _C1) * ym
    den = (den + _D1) * ym
    num = (num + _C2) * ym
    den = (den + _D2) * ym
    num = (num + _C3) * ym
    den = (den + _D3) * ym
    num = (num + _C4) * ym
    den = (den + _D4) * ym
    num = (num + _C5) * ym
    den = (den + _D5) * ym
    num = (num + _C6) * ym
    den = (den + _D6) * ym
    mid = (num + _C7) / (den + _D7) * ems
    isq = 1.0 / (ym * ym)
    num = _P5 * isq
    den = isq
    num = (num + _P0) * isq
    den = (den + _Q0) * isq
    num = (num + _P1) * isq
    den = (den + _Q1) * isq
    num = (num + _P2) * isq
    den = (den + _Q2) * isq
    num = (num + _P3) * isq
    den = (den + _Q3) * isq
    large = (_SQRPI - isq * (num + _P4) / (den + _Q4)) / ym * ems
    large = 0.0 if y >= _XBIG else large
    out = mid if y <= 4.0 else large
    out = 2.0 - out if x < 0 else out
    out = small if y <= 0.46875 else out
    ems = 0.0 if y >= _XBIG else ems
    return (x, x) if x != x else (out, ems)


@_inline
def _erfc_lane(x: float) -> float:
    """:func:`_erfc_ems_lane`'s erfc alone."""
    return _erfc_ems_lane(x)[0]


# Scratch layout of one BS2002 price (``work``): the arguments of Phi, then their values,
# then the 20 bivariate normals' (h, k), then their 20 x 16 quadrature terms.
_N_PHI = 44
_N_BVN = 20
_Z = 0
_NZ = _Z + _N_PHI
_H = _NZ + _N_PHI
_K = _H + _N_BVN
_TERMS = _K + _N_BVN
WORK_SIZE = _TERMS + _N_BVN * _NODES


@_jit
def _ncdf_batch(work: np.ndarray) -> None:
    """work[_NZ + j] = Phi(work[_Z + j]) for the 44 arguments (vectorised)."""
    for j in range(_N_PHI):
        work[_NZ + j] = 0.5 * _erfc_lane(-work[_Z + j] * _INV_SQRT2)


@_jit
def _bvn_terms(work: np.ndarray) -> None:
    """The quadrature terms of the 20 bivariate normals: the first 10 at +rho_2002, the
    last 10 at -rho_2002 (vectorised over the 16 nodes)."""
    for p in range(_N_BVN):
        h = work[_H + p]
        k = work[_K + p]
        hk = h * k
        hs = (h * h + k * k) / 2.0
        base = _TERMS + p * _NODES
        if p < _N_BVN // 2:
            for i in range(_NODES):
                work[base + i] = _exp((_SN_POS[i] * hk - hs) / _DEN_POS[i])
        else:
            for i in range(_NODES):
                work[base + i] = _exp((_SN_NEG[i] * hk - hs) / _DEN_NEG[i])


@_jit
def _bvn_value(work: np.ndarray, p: int, nh: float, nk: float) -> float:
    """Bivariate normal p from its terms: Phi(-h) Phi(-k) + the integral, clipped."""
    h = work[_H + p]
    k = work[_K + p]
    integral = 0.0
    if math.isfinite(h) and math.isfinite(k):
        total = 0.0
        base = _TERMS + p * _NODES
        for i in range(_NODES):
            total += work[base + i] * _GL_W[i]
        integral = total * (_ASR_POS if p < _N_BVN // 2 else _ASR_NEG) / (4.0 * np.pi)
    out = nh * nk + integral
    if out < 0.0:
        return 0.0
    if out > 1.0:
        return 1.0
    return out


@_jit
def _bs2002_call(S: float, K: float, T: float, r: float, b: float, v: float,
                 work: np.ndarray) -> float:
    """The BS2002 call where b < r, on a valid contract (``pricing._bs2002_call``: the same
    expressions; the Phi and bivariate-normal evaluations batched in ``work``)."""
    v2 = v * v
    beta = (0.5 - b / v2) + math.sqrt((b / v2 - 0.5) ** 2 + 2.0 * r / v2)
    if not beta > 1.0:
        return np.nan
    b_inf = beta / (beta - 1.0) * K
    b_zero = _maximum(K, r / (r - b) * K)
    t1 = _T1_FRACTION * T
    span = (b_inf - b_zero) * b_zero
    sqrt_t1 = math.sqrt(t1)
    sqrt_t = math.sqrt(T)
    h1 = -(b * t1 + 2.0 * v * sqrt_t1) * K * K / span
    h2 = -(b * T + 2.0 * v * sqrt_t) * K * K / span
    I1 = b_zero + (b_inf - b_zero) * (1.0 - math.exp(h1))
    I2 = b_zero + (b_inf - b_zero) * (1.0 - math.exp(h2))
    if S >= I2:
        return S - K  # the numpy form computes the formula and then takes this
    a1 = I1 - K
    a2 = I2 - K
    vol1 = v * sqrt_t1
    vol = v * sqrt_t
    gammas = (beta, 1.0, 0.0)
    # lambda and kappa per gamma (pricing._phi / _psi's expressions)
    lam_b = -r + beta * b + 0.5 * beta * (beta - 1.0) * v2
    lam_1 = -r + 1.0 * b + 0.5 * 1.0 * (1.0 - 1.0) * v2
    lam_0 = -r + 0.0 * b + 0.5 * 0.0 * (0.0 - 1.0) * v2
    kap_b = 2.0 * b / v2 + (2.0 * beta - 1.0)
    kap_1 = 2.0 * b / v2 + (2.0 * 1.0 - 1.0)
    kap_0 = 2.0 * b / v2 + (2.0 * 0.0 - 1.0)

    # phi(S, t1 | gamma, H, I2) for (gamma, H) = (b, I2), (1, I2), (1, I1), (0, I2), (0, I1),
    # (b, I1): Phi(d) and Phi(d - 2 log(I2/S) / vol1) at work[_Z + 0..11].
    log_s_i2 = math.log(S / I2)
    log_s_i1 = math.log(S / I1)
    shift = 2.0 * math.log(I2 / S) / vol1
    for j in range(6):
        gamma = gammas[(0, 1, 1, 2, 2, 0)[j]]
        log_s_h = log_s_i2 if j in (0, 1, 3) else log_s_i1
        d = -(log_s_h + (b + (gamma - 0.5) * v2) * t1) / vol1
        work[_Z + 2 * j] = d
        work[_Z + 2 * j + 1] = d - shift
    # psi's e1..e4 per gamma (Phi(-e) at work[_Z + 12..23]) and f1..f4 per (gamma, H) for
    # (b, I1), (1, I1), (1, K), (0, I1), (0, K) (Phi(-f) at work[_Z + 24..43]); the
    # bivariate normals' (h, k) = (e, f): pairs 2m, 2m + 1 (at +rho) are (e1, f1), (e2, f2)
    # of psi m, pairs 10 + 2m, 11 + 2m (at -rho) its (e3, f3), (e4, f4).
    log_e2 = math.log(I2 * I2 / (S * I1))
    for g in range(3):
        drift1 = (b + (gammas[g] - 0.5) * v2) * t1
        work[_Z + 12 + 4 * g] = -((log_s_i1 + drift1) / vol1)
        work[_Z + 13 + 4 * g] = -((log_e2 + drift1) / vol1)
        work[_Z + 14 + 4 * g] = -((log_s_i1 - drift1) / vol1)
        work[_Z + 15 + 4 * g] = -((log_e2 - drift1) / vol1)
    for hi in range(2):
        H = I1 if hi == 0 else K
        l1 = math.log(S / H)
        l2 = math.log(I2 * I2 / (S * H))
        l3 = math.log(I1 * I1 / (S * H))
        l4 = math.log(S * I1 * I1 / (H * I2 * I2))
        for m in range(5):
            g = (0, 1, 1, 2, 2)[m]
            if (m in (0, 1, 3)) != (hi == 0):
                continue
            drift = (b + (gammas[g] - 0.5) * v2) * T
            f1 = (l1 + drift) / vol
            f2 = (l2 + drift) / vol
            f3 = (l3 + drift) / vol
            f4 = (l4 + drift) / vol
            work[_Z + 24 + 4 * m] = -f1
            work[_Z + 25 + 4 * m] = -f2
            work[_Z + 26 + 4 * m] = -f3
            work[_Z + 27 + 4 * m] = -f4
            work[_H + 2 * m] = -work[_Z + 12 + 4 * g]
            work[_H + 2 * m + 1] = -work[_Z + 13 + 4 * g]
            work[_H + 10 + 2 * m] = -work[_Z + 14 + 4 * g]
            work[_H + 11 + 2 * m] = -work[_Z + 15 + 4 * g]
            work[_K + 2 * m] = f1
            work[_K + 2 * m + 1] = f2
            work[_K + 10 + 2 * m] = f3
            work[_K + 11 + 2 * m] = f4
    _ncdf_batch(work)
    _bvn_terms(work)

    i2s = I2 / S
    c_b = (i2s ** kap_b, i2s ** kap_1, i2s ** kap_0)  # (I2/S)**kappa per gamma
    s_i2_beta = (S / I2) ** beta
    s_i1_beta = (S / I1) ** beta
    phis = [0.0] * 6
    for j in range(6):
        g = (0, 1, 1, 2, 2, 0)[j]
        lam = (lam_b, lam_1, lam_0)[g]
        scaled = s_i2_beta if j == 0 else (s_i1_beta if j == 5 else S ** gammas[g])
        phis[j] = (math.exp(lam * t1) * scaled
                   * (work[_NZ + 2 * j] - c_b[g] * work[_NZ + 2 * j + 1]))
    psis = [0.0] * 5
    for m in range(5):
        g = (0, 1, 1, 2, 2)[m]
        lam = (lam_b, lam_1, lam_0)[g]
        kappa = (kap_b, kap_1, kap_0)[g]
        scaled = s_i1_beta if m == 0 else S ** gammas[g]
        ne = _NZ + 12 + 4 * g
        nf = _NZ + 24 + 4 * m
        psis[m] = (math.exp(lam * T) * scaled
                   * (_bvn_value(work, 2 * m, work[ne], work[nf])
                      - i2s ** kappa * _bvn_value(work, 2 * m + 1, work[ne + 1], work[nf + 1])
                      - (I1 / S) ** kappa * _bvn_value(work, 10 + 2 * m, work[ne + 2],
                                                       work[nf + 2])
                      + (I1 / I2) ** kappa * _bvn_value(work, 11 + 2 * m, work[ne + 3],
                                                        work[nf + 3])))
    return (a2 * s_i2_beta
            - a2 * phis[0]
            + phis[1]
            - phis[2]
            - K * phis[3]
            + K * phis[4]
            + a1 * phis[5]
            - a1 * psis[0]
            + psis[1]
            - psis[2]
            - K * psis[3]
            + K * psis[4])


@_jit
def _valid(S: float, K: float, T: float, r: float, q: float, v: float) -> bool:
    return (math.isfinite(S) and math.isfinite(K) and math.isfinite(T) and math.isfinite(r)
            and math.isfinite(q) and math.isfinite(v) and S > 0 and K > 0 and T > 0
            and v > 0)


# A call whose exercise boundary is this many standard deviations beyond the spot (see
# boundary_unreachable) is never exercised early, to double precision.
UNREACHABLE_Z = 10.0


@_jit
def boundary_unreachable(S: float, K: float, T: float, r: float, q: float, v: float) -> bool:
    """Whether a call (q > 0) reaches its exercise boundary before expiry with a probability
    indistinguishable from 0. Every boundary of Bjerksund-Stensland (and the true one) lies
    above B_0 = max(K, r K / q). The premium of early exercise is at most q T S times the
    chance, in the share measure (drift mu <= |r - q| + sigma^2 / 2), that S rises by
    L = log(B_0 / S) within T: below 2 Phi(-z), z = (L - mu T) / (sigma sqrt T) (the
    reflection term included). At z >= 10 that is below 2e-23 q T S: the European price.
    There the formula's (I/S)^kappa overflows times a vanishing normal tail (q of a few
    1e-9, or sigma of a fraction of a percent), which this rule answers instead of NaN."""
    b_zero = _maximum(K, r / q * K)
    if not b_zero > 0.0:
        return False
    z = (math.log(b_zero / S) - (abs(r - q) + 0.5 * v * v) * T) / (v * math.sqrt(T))
    return z >= UNREACHABLE_Z


@_jit
def bs2002_price(S: float, K: float, T: float, r: float, q: float, v: float, call: bool,
                 work: np.ndarray) -> float:
    """One contract's BS2002 price (``pricing.bs2002_price``'s rules), NaN where undefined."""
    if not _valid(S, K, T, r, q, v):
        return np.nan
    if call:
        s_c, k_c, r_c, q_c = S, K, r, q
    else:
        s_c, k_c, r_c, q_c = K, S, q, r
    if q_c <= 1e-12 or boundary_unreachable(s_c, k_c, T, r_c, q_c, v):
        out = bsm_call(s_c, k_c, T, r_c, q_c, v)
    else:
        out = _bs2002_call(s_c, k_c, T, r_c, r_c - q_c, v, work)
        european = bsm_call(s_c, k_c, T, r_c, q_c, v)
        floor = _maximum(european, s_c - k_c)
        out = _maximum(out, floor) if math.isfinite(out) else np.nan
    return out if math.isfinite(out) else np.nan


@_jit
def bs2002_prices(S: np.ndarray, K: np.ndarray, T: np.ndarray, r: np.ndarray, q: np.ndarray,
                  v: np.ndarray, call: np.ndarray) -> np.ndarray:
    """:func:`bs2002_price` of each contract (1-D float64 arrays, ``call`` booleans)."""
    n = S.size
    out = np.empty(n)
    work = np.empty(WORK_SIZE)
    for i in range(n):
        out[i] = bs2002_price(S[i], K[i], T[i], r[i], q[i], v[i], call[i], work)
    return out


# -- implied volatility (implied._solve, one contract at a time) ---------------------------
@_jit
def _model(S: float, K: float, T: float, r: float, q: float, sigma: float, call: bool,
           american: bool, work: np.ndarray) -> tuple[float, float]:
    if american:
        return bs2002_price(S, K, T, r, q, sigma, call, work), np.nan
    if not _valid(S, K, T, r, q, sigma):
        return np.nan, np.nan
    return bsm_price_vega(S, K, T, r, q, sigma, call)


@_jit
def solve_iv(target: np.ndarray, S: np.ndarray, K: np.ndarray, T: np.ndarray, r: np.ndarray,
             q: np.ndarray, call: np.ndarray, american: bool, lo_bound: float,
             hi_bound: float, price_tol: float, relative_price_tol: float, step_tol: float,
             sigma_tol: float, max_iter: int) -> np.ndarray:
    """``implied._solve`` per contract: the same bracket, start, Newton (European) or secant
    (American) steps, bisection fallback, convergence rules and NaN rules."""
    n = target.size
    result = np.full(n, np.nan)
    work = np.empty(WORK_SIZE)
    for i in range(n):
        P, s, k, t, rr, qq, c = target[i], S[i], K[i], T[i], r[i], q[i], call[i]
        p_lo = _model(s, k, t, rr, qq, lo_bound, c, american, work)[0]
        p_hi = _model(s, k, t, rr, qq, hi_bound, c, american, work)[0]
        if p_lo != p_lo:
            p_lo = -np.inf
        tol = min(price_tol, relative_price_tol * P)
        if not ((p_lo < P - tol) and (P <= p_hi + tol)):
            continue
        if abs(p_hi - P) <= tol:
            result[i] = hi_bound
            continue
        lo = lo_bound
        hi = hi_bound
        fwd_moneyness = math.log(s * math.exp((rr - qq) * t) / k)
        x = math.sqrt(2.0 * abs(fwd_moneyness) / t)
        if x == x:
            x = min(max(x, lo_bound), hi_bound)
        if not (math.isfinite(x) and x > lo_bound and x < hi_bound):
            x = 0.3
        x_prev = lo if p_hi - P > P - p_lo else hi
        f_prev = p_lo - P if x_prev == lo else p_hi - P
        for _ in range(max_iter):
            p, vega = _model(s, k, t, rr, qq, x, c, american, work)
            f = p - P
            if american and f != f:
                f = -np.inf
            if math.isfinite(f) and abs(f) <= tol:
                result[i] = x
                break
            if f < 0:
                lo = _maximum(lo, x)
            else:
                hi = _minimum(hi, x)
            if hi - lo <= sigma_tol:
                result[i] = (lo + hi) / 2.0
                break
            if american:
                step = x - f * (x - x_prev) / (f - f_prev)
            else:
                step = x - f / vega if vega > 1e-300 else np.nan
            good = math.isfinite(step) and step > lo and step < hi and math.isfinite(f)
            x_prev = x
            f_prev = f
            new_x = step if good else (lo + hi) / 2.0
            settled = good and abs(new_x - x) <= step_tol * x
            x = new_x
            if settled:
                result[i] = new_x
                break
    return result
