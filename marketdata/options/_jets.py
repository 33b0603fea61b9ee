"""Analytic greeks of the American model: the Bjerksund-Stensland price differentiated in
forward mode (numba), one contract at a time.

Why: finite differences cost 9 prices a contract (36 ms for a 2,000-contract chain on one
core); the derivatives carried through one evaluation cost about two prices' worth, and they
are the exact derivatives of the formula (no bump, no truncation error, no cancellation).

**Jets.** Every quantity of the price is a *jet*: a 6-tuple (value, d/dx, d2/dx2, d/dT,
d/dsigma, d/dr) where x is the option's spot and r its risk-free rate. Each operation
computes its value with the price kernel's own expression (so a jet's value is the price
kernel's number: :func:`marketdata.options._kernels.bs2002_price`) and its derivatives by
the chain rule (:func:`_jmul`, :func:`_jdiv`, :func:`_jchain` for exp, log, sqrt, pow and
Phi). The second derivative is carried for x only (gamma).

**Put-call transformation.** A put is the call C(s_c = K, k_c = S, r_c = q, q_c = r): the
seeds say so (x is the call's *strike* for a put, and r moves the call's q, so b_c = r_c -
q_c moves by -1). The early-exercise boundary (beta, B_inf, B_0, h(T), I1, I2, t1) depends
on k_c, T, sigma, r and q, so it is differentiated too: for a put through its strike.

**Normal distributions.** d/dz Phi(z) = phi(z), the density coming out of the same Cody
evaluation (:func:`_kernels._erfc_ems_lane`). The bivariate normal M(a, b; rho) of psi is
differentiated with its closed-form partials rather than its quadrature: dM/da = phi(a)
Phi((b - rho a) / s), dM/db = phi(b) Phi((a - rho b) / s) (s = sqrt(1 - rho^2)),
d2M/da db = phi2(a, b; rho) = phi(a) phi((b - rho a) / s) / s, d2M/da2 = -a dM/da - rho phi2
(and b's likewise): the derivatives of the exact function that the 16-node Gauss-Legendre
sum approximates to 5e-16, so they differ from the derivatives of that sum by less than
1e-14. Every normal tail of a price and the 40 Phi of the partials are evaluated in two
vectorised batches, as in the price kernel.

**Branches.** Where the price selects (S >= I2: exercise now; the floor at the European and
intrinsic values; B_0 = max(K, r K / (r - b)); q_c <= 1e-12 or a boundary out of reach
(``_kernels.boundary_unreachable``): the European price), the greeks are the selected
branch's: one-sided at the kink itself, where the price has no derivative (a central finite
difference averages the two sides there).

:func:`bs1993_greeks` is the same machinery on the 1993 one-step boundary: QuantLib's
``BjerksundStenslandApproximationEngine`` gives analytic greeks of that formula, which the
tests compare with these (the building blocks, the boundary's derivatives, the put-call
transformation and the floors, checked against an independent implementation).
"""

from __future__ import annotations

import math

import numpy as np

from marketdata.options._kernels import (
    _H,
    _INV_SQRT2,
    _INV_SQRT_2PI,
    _K,
    _N_BVN,
    _N_PHI,
    _NZ,
    _RHO,
    _T1_FRACTION,
    _Z,
    WORK_SIZE,
    _bvn_terms,
    _bvn_value,
    _erfc_ems_lane,
    _jit,
    _valid,
    boundary_unreachable,
    ncdf,
)

Jet = tuple[float, float, float, float, float, float]

_S_RHO = math.sqrt(1.0 - _RHO * _RHO)  # sqrt(1 - rho^2) of BS2002's bivariate normals

# Scratch layout after the price kernel's (``_kernels.WORK_SIZE``): the densities of its 44
# normal tails' arguments, then the 40 arguments of the bivariate normals' partials (two per
# bivariate normal), their Phi and their densities.
_PZ = WORK_SIZE
_XZ = _PZ + _N_PHI
_XNZ = _XZ + 2 * _N_BVN
_XPZ = _XNZ + 2 * _N_BVN
JET_WORK_SIZE = _XPZ + 2 * _N_BVN
_N_JETS = _N_PHI  # the jets of the 44 arguments (rows of ``jets``)
_NAN_JET = (np.nan, np.nan, np.nan, np.nan, np.nan, np.nan)


# -- jet arithmetic: the value as the price kernel computes it, then the chain rule ----------
@_jit
def _jc(c: float) -> Jet:
    return (c, 0.0, 0.0, 0.0, 0.0, 0.0)


@_jit
def _jadd(a: Jet, b: Jet) -> Jet:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5])


@_jit
def _jsub(a: Jet, b: Jet) -> Jet:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3], a[4] - b[4], a[5] - b[5])


@_jit
def _jneg(a: Jet) -> Jet:
    return (-a[0], -a[1], -a[2], -a[3], -a[4], -a[5])


@_jit
def _jaddc(a: Jet, c: float) -> Jet:
    """a + c (c a number)."""
    return (a[0] + c, a[1], a[2], a[3], a[4], a[5])


@_jit
def _jcsub(c: float, a: Jet) -> Jet:
    """c - a (c a number)."""
    return (c - a[0], -a[1], -a[2], -a[3], -a[4], -a[5])


@_jit
def _jscale(a: Jet, c: float) -> Jet:
    """c * a (c a number)."""
    return (c * a[0], c * a[1], c * a[2], c * a[3], c * a[4], c * a[5])


@_jit
def _jmul(a: Jet, b: Jet) -> Jet:
    return (a[0] * b[0], a[1] * b[0] + a[0] * b[1],
            a[2] * b[0] + 2.0 * a[1] * b[1] + a[0] * b[2],
            a[3] * b[0] + a[0] * b[3], a[4] * b[0] + a[0] * b[4], a[5] * b[0] + a[0] * b[5])


@_jit
def _jdiv(a: Jet, b: Jet) -> Jet:
    q = a[0] / b[0]
    inv = 1.0 / b[0]
    q1 = (a[1] - q * b[1]) * inv
    return (q, q1, (a[2] - 2.0 * q1 * b[1] - q * b[2]) * inv, (a[3] - q * b[3]) * inv,
            (a[4] - q * b[4]) * inv, (a[5] - q * b[5]) * inv)


@_jit
def _jchain(a: Jet, f: float, f1: float, f2: float) -> Jet:
    """f(a) from f(a0) = f, f'(a0) = f1, f''(a0) = f2."""
    return (f, f1 * a[1], f1 * a[2] + f2 * a[1] * a[1], f1 * a[3], f1 * a[4], f1 * a[5])


@_jit
def _jexp(a: Jet) -> Jet:
    e = math.exp(a[0])
    return _jchain(a, e, e, e)


@_jit
def _jlog(a: Jet) -> Jet:
    inv = 1.0 / a[0]
    return _jchain(a, math.log(a[0]), inv, -inv * inv)


@_jit
def _jsqrt(a: Jet) -> Jet:
    s = math.sqrt(a[0])
    return _jchain(a, s, 0.5 / s, -0.25 / (s * a[0]))


@_jit
def _jpow(a: Jet, b: Jet) -> Jet:
    """a ** b (a > 0): the value by ``**``, the derivatives as exp(b log a)'s."""
    p = a[0] ** b[0]
    return _jchain(_jmul(b, _jlog(a)), p, p, p)


@_jit
def _jphi(z: Jet, cdf: float, pdf: float) -> Jet:
    """Phi(z) from Phi(z0) and the density at z0."""
    return _jchain(z, cdf, pdf, -z[0] * pdf)


@_jit
def _jmax(a: Jet, b: Jet) -> Jet:
    """``_kernels._maximum`` of the values (NaN if either is NaN), with its derivatives."""
    if a[0] != a[0] or b[0] != b[0]:
        return _NAN_JET
    return a if a[0] >= b[0] else b


@_jit
def _jrow(jets: np.ndarray, i: int) -> Jet:
    return (jets[i, 0], jets[i, 1], jets[i, 2], jets[i, 3], jets[i, 4], jets[i, 5])


@_jit
def _jput(jets: np.ndarray, i: int, a: Jet) -> None:
    for c in range(6):
        jets[i, c] = a[c]


# -- the model's pieces, shared by both boundaries --------------------------------------------
@_jit
def _bsm_call_jet(S: Jet, K: Jet, T: Jet, r: Jet, q: Jet, v: Jet) -> Jet:
    """``_kernels.bsm_call`` as a jet."""
    sqrt_t = _jsqrt(T)
    vol = _jmul(v, sqrt_t)
    d1 = _jdiv(_jadd(_jlog(_jdiv(S, K)), _jmul(_jadd(_jsub(r, q), _jmul(_jscale(v, 0.5), v)), T)),
               vol)
    d2 = _jsub(d1, vol)
    n1 = _jphi(d1, ncdf(d1[0]), _INV_SQRT_2PI * math.exp(-0.5 * d1[0] * d1[0]))
    n2 = _jphi(d2, ncdf(d2[0]), _INV_SQRT_2PI * math.exp(-0.5 * d2[0] * d2[0]))
    return _jsub(_jmul(_jmul(S, _jexp(_jmul(_jneg(q), T))), n1),
                 _jmul(_jmul(K, _jexp(_jmul(_jneg(r), T))), n2))


@_jit
def _boundary_jets(K: Jet, r: Jet, b: Jet, v: Jet) -> tuple[Jet, Jet, Jet, Jet]:
    """sigma^2, beta, B_infinity and B_0 (``pricing._boundary_terms``)."""
    v2 = _jmul(v, v)
    bv2 = _jdiv(b, v2)
    centred = _jaddc(bv2, -0.5)
    beta = _jadd(_jcsub(0.5, bv2),
                 _jsqrt(_jadd(_jmul(centred, centred), _jdiv(_jscale(r, 2.0), v2))))
    b_inf = _jmul(_jdiv(beta, _jaddc(beta, -1.0)), K)
    b_zero = _jmax(K, _jmul(_jdiv(r, _jsub(r, b)), K))
    return v2, beta, b_inf, b_zero


@_jit
def _trigger(b_inf: Jet, b_zero: Jet, h: Jet) -> Jet:
    """B_0 + (B_inf - B_0)(1 - e^h): a flat exercise boundary."""
    return _jadd(b_zero, _jmul(_jsub(b_inf, b_zero), _jcsub(1.0, _jexp(h))))


@_jit
def _lam(gamma: Jet, r: Jet, b: Jet, v2: Jet) -> Jet:
    """-r + gamma b + gamma (gamma - 1) sigma^2 / 2 (gamma a jet: beta)."""
    return _jadd(_jadd(_jneg(r), _jmul(gamma, b)),
                 _jmul(_jmul(_jscale(gamma, 0.5), _jaddc(gamma, -1.0)), v2))


@_jit
def _drift(gamma: Jet, b: Jet, v2: Jet, t: Jet) -> Jet:
    """(b + (gamma - 1/2) sigma^2) t."""
    return _jmul(_jadd(b, _jmul(_jaddc(gamma, -0.5), v2)), t)


@_jit
def _phi_jet(exp_lam_t: Jet, scaled: Jet, n1: Jet, ratio_kappa: Jet, n2: Jet) -> Jet:
    """phi = e^(lam t) (S/scale)^gamma (Phi(d) - (I/S)^kappa Phi(d - 2 ln(I/S) / vol))."""
    return _jmul(_jmul(exp_lam_t, scaled), _jsub(n1, _jmul(ratio_kappa, n2)))


# -- Bjerksund-Stensland 2002 ------------------------------------------------------------------
@_jit
def _bvn_jet(work: np.ndarray, jets: np.ndarray, p: int, ze: int, zf: int,
             rho: float) -> Jet:
    """Bivariate normal p, M(a, b; rho) with a = -e (argument row ``ze``) and b = -f (row
    ``zf``): the value by the price kernel's quadrature, the derivatives by the closed-form
    partials."""
    value = _bvn_value(work, p, work[_NZ + ze], work[_NZ + zf])
    a0 = work[_Z + ze]
    b0 = work[_Z + zf]
    pa = work[_PZ + ze]
    ma = pa * work[_XNZ + 2 * p]
    mb = work[_PZ + zf] * work[_XNZ + 2 * p + 1]
    dens = pa * work[_XPZ + 2 * p] / _S_RHO
    maa = -a0 * ma - rho * dens
    mbb = -b0 * mb - rho * dens
    a = _jrow(jets, ze)
    b = _jrow(jets, zf)
    return (value, ma * a[1] + mb * b[1],
            ma * a[2] + mb * b[2] + maa * a[1] * a[1] + 2.0 * dens * a[1] * b[1]
            + mbb * b[1] * b[1],
            ma * a[3] + mb * b[3], ma * a[4] + mb * b[4], ma * a[5] + mb * b[5])


@_jit
def _ncdf_pdf_batch(work: np.ndarray, z: int, nz: int, pz: int, n: int) -> None:
    """work[nz + j] = Phi(work[z + j]) and work[pz + j] = its density, j < n (vectorised)."""
    for j in range(n):
        cdf, ems = _erfc_ems_lane(-work[z + j] * _INV_SQRT2)
        work[nz + j] = 0.5 * cdf
        work[pz + j] = _INV_SQRT_2PI * ems


@_jit
def _bs2002_call_jet(S: Jet, K: Jet, T: Jet, r: Jet, b: Jet, v: Jet, work: np.ndarray,
                     jets: np.ndarray) -> Jet:
    """``_kernels._bs2002_call`` as a jet: the same expressions in the same order."""
    v2, beta, b_inf, b_zero = _boundary_jets(K, r, b, v)
    if not beta[0] > 1.0:
        return _NAN_JET
    t1 = _jscale(T, _T1_FRACTION)
    span = _jmul(_jsub(b_inf, b_zero), b_zero)
    sqrt_t1 = _jsqrt(t1)
    sqrt_t = _jsqrt(T)
    h1 = _jdiv(_jmul(_jmul(_jneg(_jadd(_jmul(b, t1), _jmul(_jscale(v, 2.0), sqrt_t1))), K), K),
               span)
    h2 = _jdiv(_jmul(_jmul(_jneg(_jadd(_jmul(b, T), _jmul(_jscale(v, 2.0), sqrt_t))), K), K),
               span)
    I1 = _trigger(b_inf, b_zero, h1)
    I2 = _trigger(b_inf, b_zero, h2)
    if S[0] >= I2[0]:
        return _jsub(S, K)
    a1 = _jsub(I1, K)
    a2 = _jsub(I2, K)
    vol1 = _jmul(v, sqrt_t1)
    vol = _jmul(v, sqrt_t)
    one = _jc(1.0)
    zero = _jc(0.0)
    gammas = (beta, one, zero)
    lams = (_lam(beta, r, b, v2), _jsub(b, r), _jneg(r))
    two_b_v2 = _jdiv(_jscale(b, 2.0), v2)
    kappas = (_jadd(two_b_v2, _jaddc(_jscale(beta, 2.0), -1.0)), _jaddc(two_b_v2, 1.0),
              _jaddc(two_b_v2, -1.0))

    # The arguments of the 44 normal tails (the price kernel's layout) and their jets.
    log_s_i2 = _jlog(_jdiv(S, I2))
    log_s_i1 = _jlog(_jdiv(S, I1))
    shift = _jdiv(_jscale(_jlog(_jdiv(I2, S)), 2.0), vol1)
    for j in range(6):
        g = (0, 1, 1, 2, 2, 0)[j]
        log_s_h = log_s_i2 if j in (0, 1, 3) else log_s_i1
        d = _jneg(_jdiv(_jadd(log_s_h, _drift(gammas[g], b, v2, t1)), vol1))
        d_shifted = _jsub(d, shift)
        work[_Z + 2 * j] = d[0]
        work[_Z + 2 * j + 1] = d_shifted[0]
        _jput(jets, 2 * j, d)
        _jput(jets, 2 * j + 1, d_shifted)
    log_e2 = _jlog(_jdiv(_jmul(I2, I2), _jmul(S, I1)))
    for g in range(3):
        drift1 = _drift(gammas[g], b, v2, t1)
        for i in range(4):
            log_first = log_s_i1 if i % 2 == 0 else log_e2
            e = _jdiv(_jadd(log_first, drift1) if i < 2 else _jsub(log_first, drift1), vol1)
            e = _jneg(e)
            work[_Z + 12 + 4 * g + i] = e[0]
            _jput(jets, 12 + 4 * g + i, e)
    for hi in range(2):
        H = I1 if hi == 0 else K
        logs = (_jlog(_jdiv(S, H)), _jlog(_jdiv(_jmul(I2, I2), _jmul(S, H))),
                _jlog(_jdiv(_jmul(I1, I1), _jmul(S, H))),
                _jlog(_jdiv(_jmul(_jmul(S, I1), I1), _jmul(_jmul(H, I2), I2))))
        for m in range(5):
            g = (0, 1, 1, 2, 2)[m]
            if (m in (0, 1, 3)) != (hi == 0):
                continue
            drift = _drift(gammas[g], b, v2, T)
            for i in range(4):
                f = _jneg(_jdiv(_jadd(logs[i], drift), vol))
                work[_Z + 24 + 4 * m + i] = f[0]
                _jput(jets, 24 + 4 * m + i, f)
                pair = (2 * m + i) if i < 2 else (10 + 2 * m + i - 2)
                work[_H + pair] = -work[_Z + 12 + 4 * g + i]
                work[_K + pair] = -f[0]
                # the partials' arguments: (b - rho a) / s and (a - rho b) / s
                rho = _RHO if i < 2 else -_RHO
                a0 = work[_Z + 12 + 4 * g + i]
                b0 = f[0]
                work[_XZ + 2 * pair] = (b0 - rho * a0) / _S_RHO
                work[_XZ + 2 * pair + 1] = (a0 - rho * b0) / _S_RHO
    _ncdf_pdf_batch(work, _Z, _NZ, _PZ, _N_PHI)
    _ncdf_pdf_batch(work, _XZ, _XNZ, _XPZ, 2 * _N_BVN)
    _bvn_terms(work)

    i2s = _jdiv(I2, S)
    c_b = (_jpow(i2s, kappas[0]), _jpow(i2s, kappas[1]), _jpow(i2s, kappas[2]))
    s_i2_beta = _jpow(_jdiv(S, I2), beta)
    s_i1_beta = _jpow(_jdiv(S, I1), beta)
    exp_lam_t1 = (_jexp(_jmul(lams[0], t1)), _jexp(_jmul(lams[1], t1)),
                  _jexp(_jmul(lams[2], t1)))
    scaled_g = (one, S, one)  # S ** gamma for gamma = 1, 0 (beta's are s_i*_beta)
    # value = a2 (S/I2)^beta - a2 phi_0 + phi_1 - phi_2 - K phi_3 + K phi_4 + a1 phi_5
    #         - a1 psi_0 + psi_1 - psi_2 - K psi_3 + K psi_4, summed in this order
    out = _jmul(a2, s_i2_beta)
    phi_coef = (a2, one, one, K, K, a1)
    for j in range(6):
        g = (0, 1, 1, 2, 2, 0)[j]
        scaled = s_i2_beta if j == 0 else (s_i1_beta if j == 5 else scaled_g[g])
        n1 = _jphi(_jrow(jets, 2 * j), work[_NZ + 2 * j], work[_PZ + 2 * j])
        n2 = _jphi(_jrow(jets, 2 * j + 1), work[_NZ + 2 * j + 1], work[_PZ + 2 * j + 1])
        term = _jmul(phi_coef[j], _phi_jet(exp_lam_t1[g], scaled, n1, c_b[g], n2))
        out = _jadd(out, term) if j in (1, 4, 5) else _jsub(out, term)
    i1s = _jdiv(I1, S)
    i1i2 = _jdiv(I1, I2)
    psi_coef = (a1, one, one, K, K)
    for m in range(5):
        g = (0, 1, 1, 2, 2)[m]
        kappa = kappas[g]
        scaled = s_i1_beta if m == 0 else scaled_g[g]
        ze = 12 + 4 * g
        zf = 24 + 4 * m
        m1 = _bvn_jet(work, jets, 2 * m, ze, zf, _RHO)
        m2 = _bvn_jet(work, jets, 2 * m + 1, ze + 1, zf + 1, _RHO)
        m3 = _bvn_jet(work, jets, 10 + 2 * m, ze + 2, zf + 2, -_RHO)
        m4 = _bvn_jet(work, jets, 11 + 2 * m, ze + 3, zf + 3, -_RHO)
        inner = _jadd(_jsub(_jsub(m1, _jmul(c_b[g], m2)), _jmul(_jpow(i1s, kappa), m3)),
                      _jmul(_jpow(i1i2, kappa), m4))
        term = _jmul(psi_coef[m], _jmul(_jmul(_jexp(_jmul(lams[g], T)), scaled), inner))
        out = _jadd(out, term) if m in (1, 4) else _jsub(out, term)
    return out


# -- Bjerksund-Stensland 1993 (checks only: QuantLib's engine) ---------------------------------
@_jit
def _phi_1993(S: Jet, T: Jet, gamma: Jet, H: Jet, I: Jet, r: Jet, b: Jet, v2: Jet,
              vol: Jet, kappa: Jet, scaled: Jet) -> Jet:
    """phi(S, T | gamma, H, I) (``pricing._phi``) with scalar normal tails."""
    d = _jneg(_jdiv(_jadd(_jlog(_jdiv(S, H)), _drift(gamma, b, v2, T)), vol))
    d2 = _jsub(d, _jdiv(_jscale(_jlog(_jdiv(I, S)), 2.0), vol))
    n1 = _jphi(d, ncdf(d[0]), _INV_SQRT_2PI * math.exp(-0.5 * d[0] * d[0]))
    n2 = _jphi(d2, ncdf(d2[0]), _INV_SQRT_2PI * math.exp(-0.5 * d2[0] * d2[0]))
    return _phi_jet(_jexp(_jmul(_lam(gamma, r, b, v2), T)), scaled, n1,
                    _jpow(_jdiv(I, S), kappa), n2)


@_jit
def _bs1993_call_jet(S: Jet, K: Jet, T: Jet, r: Jet, b: Jet, v: Jet) -> Jet:
    """``pricing._bs1993_call`` as a jet."""
    v2, beta, b_inf, b_zero = _boundary_jets(K, r, b, v)
    if not beta[0] > 1.0:
        return _NAN_JET
    sqrt_t = _jsqrt(T)
    h = _jdiv(_jmul(_jneg(_jadd(_jmul(b, T), _jmul(_jscale(v, 2.0), sqrt_t))), b_zero),
              _jsub(b_inf, b_zero))
    I = _trigger(b_inf, b_zero, h)
    if S[0] >= I[0]:
        return _jsub(S, K)
    a = _jsub(I, K)
    vol = _jmul(v, sqrt_t)
    one = _jc(1.0)
    zero = _jc(0.0)
    two_b_v2 = _jdiv(_jscale(b, 2.0), v2)
    kap_b = _jadd(two_b_v2, _jaddc(_jscale(beta, 2.0), -1.0))
    kap_1 = _jaddc(two_b_v2, 1.0)
    kap_0 = _jaddc(two_b_v2, -1.0)
    s_i_beta = _jpow(_jdiv(S, I), beta)
    out = _jsub(_jmul(a, s_i_beta),
                _jmul(a, _phi_1993(S, T, beta, I, I, r, b, v2, vol, kap_b, s_i_beta)))
    out = _jadd(out, _phi_1993(S, T, one, I, I, r, b, v2, vol, kap_1, S))
    out = _jsub(out, _phi_1993(S, T, one, K, I, r, b, v2, vol, kap_1, S))
    out = _jsub(out, _jmul(K, _phi_1993(S, T, zero, I, I, r, b, v2, vol, kap_0, one)))
    return _jadd(out, _jmul(K, _phi_1993(S, T, zero, K, I, r, b, v2, vol, kap_0, one)))


# -- one contract, and a chain -----------------------------------------------------------------
@_jit
def american_jet(S: float, K: float, T: float, r: float, q: float, v: float, call: bool,
                 two_step: bool, work: np.ndarray, jets: np.ndarray) -> Jet:
    """One contract's Bjerksund-Stensland price as a jet in (S, T, sigma, r): the rules of
    ``_kernels.bs2002_price`` (validity, put-call transformation, European price where q_c
    <= 1e-12 or the boundary is out of reach, the floor at the European and intrinsic
    values), 2002 boundary if ``two_step`` else 1993's. NaN in every component where the
    price is undefined; a derivative can be inf or NaN alone where an intermediate overflows
    (a huge (I/S)^kappa times a vanishing normal tail: sigma of a few percent far from the
    money)."""
    if not _valid(S, K, T, r, q, v):
        return _NAN_JET
    if call:
        s_c = (S, 1.0, 0.0, 0.0, 0.0, 0.0)
        k_c = _jc(K)
        r_c = (r, 0.0, 0.0, 0.0, 0.0, 1.0)
        q_c = _jc(q)
    else:
        s_c = _jc(K)
        k_c = (S, 1.0, 0.0, 0.0, 0.0, 0.0)
        r_c = _jc(q)
        q_c = (r, 0.0, 0.0, 0.0, 0.0, 1.0)
    t = (T, 0.0, 0.0, 1.0, 0.0, 0.0)
    vol = (v, 0.0, 0.0, 0.0, 1.0, 0.0)
    european = _bsm_call_jet(s_c, k_c, t, r_c, q_c, vol)
    if q_c[0] <= 1e-12 or boundary_unreachable(s_c[0], k_c[0], T, r_c[0], q_c[0], v):
        out = european
    else:
        b = _jsub(r_c, q_c)
        if two_step:
            out = _bs2002_call_jet(s_c, k_c, t, r_c, b, vol, work, jets)
        else:
            out = _bs1993_call_jet(s_c, k_c, t, r_c, b, vol)
        floor = _jmax(european, _jsub(s_c, k_c))
        out = _jmax(out, floor) if math.isfinite(out[0]) else _NAN_JET
    return out if math.isfinite(out[0]) else _NAN_JET


@_jit
def _greeks(S: np.ndarray, K: np.ndarray, T: np.ndarray, r: np.ndarray, q: np.ndarray,
            v: np.ndarray, call: np.ndarray, days_per_year: float,
            two_step: bool) -> np.ndarray:
    n = S.size
    out = np.empty((6, n))
    work = np.empty(JET_WORK_SIZE)
    jets = np.empty((_N_JETS, 6))
    for i in range(n):
        j = american_jet(S[i], K[i], T[i], r[i], q[i], v[i], call[i], two_step, work, jets)
        out[0, i] = j[0]
        out[1, i] = j[1]
        out[2, i] = j[2]
        out[3, i] = -j[3] / days_per_year
        out[4, i] = j[4] / 100.0
        out[5, i] = j[5] / 100.0
        for row in range(1, 6):
            if not math.isfinite(out[row, i]):
                out[row, i] = np.nan
    return out


@_jit
def bs2002_greeks(S: np.ndarray, K: np.ndarray, T: np.ndarray, r: np.ndarray, q: np.ndarray,
                  v: np.ndarray, call: np.ndarray, days_per_year: float) -> np.ndarray:
    """Price, delta, gamma, theta (per day), vega (per point), rho (per point) of each
    contract (rows), BS2002, analytic; a greek whose computation overflowed is NaN (the
    caller, ``pricing.bs2002``, then differentiates that contract numerically)."""
    return _greeks(S, K, T, r, q, v, call, days_per_year, True)


@_jit
def bs1993_greeks(S: np.ndarray, K: np.ndarray, T: np.ndarray, r: np.ndarray, q: np.ndarray,
                  v: np.ndarray, call: np.ndarray, days_per_year: float) -> np.ndarray:
    """:func:`bs2002_greeks` on the 1993 one-step boundary (checks against QuantLib)."""
    return _greeks(S, K, T, r, q, v, call, days_per_year, False)
