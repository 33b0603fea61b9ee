"""The standard normal distribution, vectorised, with numpy only (no scipy at run time).

- ``ncdf(x)``: Phi(x) = erfc(-x / sqrt 2) / 2 through W. J. Cody's rational Chebyshev
  approximation of erfc ("Rational Chebyshev approximations for the error function", Math.
  Comp. 1969; the coefficients of his CALERF, netlib specfun), accurate to a few ulps in
  relative terms over the whole line, tails included (Phi(-37) = 5.7e-300, not 0 by
  cancellation). The tests compare it with ``math.erfc`` at 10^5 points.
- ``npdf(x)``: the density.
- ``bvn_cdf(a, b, rho)``: P(X <= a, Y <= b) for a standard bivariate normal with correlation
  rho, |rho| < 0.925: Genz's method (Drezner-Wesolowsky's integral over asin(rho), "Numerical
  computation of rectangular bivariate and trivariate normal and t probabilities", Statistics
  and Computing 2004) with 16-point Gauss-Legendre (absolute error <= 5e-16 at |rho| = 0.786 against
  adaptive quadrature; Genz uses 20 points for |rho| >= 0.75). Bjerksund-Stensland
  2002 only needs rho = +-sqrt((sqrt 5 - 1) / 2) = +-0.786; |rho| >= 0.925 returns NaN.
"""

from __future__ import annotations

import numpy as np

_A = (3.1611237438705656, 113.864154151050156, 377.485237685302021, 3209.37758913846947,
      0.185777706184603153)
_B = (23.6012909523441209, 244.024637934444173, 1282.61652607737228, 2844.23683343917062)
_C = (0.564188496988670089, 8.88314979438837594, 66.1191906371416295, 298.635138197400131,
      881.95222124176909, 1712.04761263407058, 2051.07837782607147, 1230.33935479799725,
      2.15311535474403846e-8)
_D = (15.7449261107098347, 117.693950891312499, 537.181101862009858, 1621.38957456669019,
      3290.79923573345963, 4362.61909014324716, 3439.36767414372164, 1230.33935480374942)
_P = (0.305326634961232344, 0.360344899949804439, 0.125781726111229246, 0.0160837851487422766,
      6.58749161529837803e-4, 0.0163153871373020978)
_Q = (2.56852019228982242, 1.87295284992346047, 0.527905102951428412, 0.0605183413124413191,
      0.00233520497626869185)
_SQRPI = 0.56418958354775628695  # 1 / sqrt(pi)
_XBIG = 26.543  # erfc(x) underflows above
_INV_SQRT2 = 0.7071067811865475244008443621048490392848359376887
_INV_SQRT_2PI = 0.3989422804014326779399460599343818684758586311649


def _exp_minus_square(y: np.ndarray) -> np.ndarray:
    """exp(-y*y) without the rounding of y*y: y is split at a multiple of 1/16 (Cody)."""
    head = np.trunc(y * 16.0) / 16.0
    return np.exp(-head * head) * np.exp(-(y - head) * (y + head))


def erfc(x: np.ndarray) -> np.ndarray:
    """The complementary error function, elementwise (float64; NaN stays NaN)."""
    x = np.asarray(x, dtype=float)
    y = np.abs(x)
    out = np.empty_like(y)
    small = y <= 0.46875
    mid = (y > 0.46875) & (y <= 4.0)
    large = y > 4.0
    if small.any():
        ys = y[small]
        ysq = np.where(ys > 1.11e-16, ys * ys, 0.0)
        num = _A[4] * ysq
        den = ysq
        for i in range(3):
            num = (num + _A[i]) * ysq
            den = (den + _B[i]) * ysq
        out[small] = 1.0 - x[small] * (num + _A[3]) / (den + _B[3])
    if mid.any():
        ym = y[mid]
        num = _C[8] * ym
        den = ym
        for i in range(7):
            num = (num + _C[i]) * ym
            den = (den + _D[i]) * ym
        out[mid] = (num + _C[7]) / (den + _D[7]) * _exp_minus_square(ym)
    if large.any():
        yl = np.minimum(y[large], _XBIG)
        ysq = 1.0 / (yl * yl)
        num = _P[5] * ysq
        den = ysq
        for i in range(4):
            num = (num + _P[i]) * ysq
            den = (den + _Q[i]) * ysq
        value = (_SQRPI - ysq * (num + _P[4]) / (den + _Q[4])) / yl * _exp_minus_square(yl)
        out[large] = np.where(y[large] >= _XBIG, 0.0, value)
    negative = (x < 0) & ~small
    out[negative] = 2.0 - out[negative]
    out[np.isnan(x)] = np.nan
    return out


def ncdf(x: np.ndarray) -> np.ndarray:
    """Phi(x), the standard normal distribution function."""
    return 0.5 * erfc(-np.asarray(x, dtype=float) * _INV_SQRT2)


def npdf(x: np.ndarray) -> np.ndarray:
    """phi(x), the standard normal density."""
    x = np.asarray(x, dtype=float)
    return _INV_SQRT_2PI * np.exp(-0.5 * x * x)


_GL_X, _GL_W = np.polynomial.legendre.leggauss(16)
MAX_BVN_RHO = 0.925


def bvn_cdf(a: np.ndarray, b: np.ndarray, rho: float) -> np.ndarray:
    """P(X <= a, Y <= b), standard bivariate normal with correlation ``rho`` (|rho| < 0.925).

    Genz's first case: P(X > h, Y > k) = Phi(-h) Phi(-k) + 1/(2 pi) int_0^asin(rho)
    exp(-(h^2 + k^2 - 2 h k sin t) / (2 cos^2 t)) dt, with h = -a, k = -b."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if not abs(rho) < MAX_BVN_RHO:
        return np.full(np.broadcast(a, b).shape, np.nan)
    h, k = -a, -b
    hk = (h * k)[..., None]
    hs = ((h * h + k * k) / 2.0)[..., None]
    asr = np.arcsin(rho)
    sn = np.sin(asr * (1.0 + _GL_X) / 2.0)
    with np.errstate(over="ignore", invalid="ignore"):
        terms = np.exp((sn * hk - hs) / (1.0 - sn * sn))
    integral = terms @ _GL_W * asr / (4.0 * np.pi)
    # An infinite limit makes the integrand 0 (exp(-inf)), or inf*0 = NaN: it is 0 there.
    integral = np.where(np.isfinite(h) & np.isfinite(k), integral, 0.0)
    out = ncdf(-h) * ncdf(-k) + integral
    return np.clip(out, 0.0, 1.0)
