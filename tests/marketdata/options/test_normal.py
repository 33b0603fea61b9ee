"""marketdata.options._normal: Cody's erfc against math.erfc, the bivariate normal against
adaptive quadrature (scipy, dev only)."""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import quad
from scipy.special import ndtr

from marketdata.options._normal import bvn_cdf, erfc, ncdf


def test_erfc_equals_math_erfc_to_a_few_ulps():
    x = np.concatenate([np.linspace(-26.5, 26.5, 100_001), [0.0, 0.46875, -0.46875, 4.0, -4.0]])
    ref = np.array([math.erfc(v) for v in x])
    assert np.max(np.abs(erfc(x) - ref) / ref) < 2e-15
    assert erfc(np.array([30.0]))[0] == 0.0 and erfc(np.array([-30.0]))[0] == 2.0
    assert np.isnan(erfc(np.array([np.nan]))[0])


def test_ncdf_keeps_relative_precision_in_the_tail():
    x = np.linspace(-37, 8, 10_001)
    assert np.max(np.abs(ncdf(x) - ndtr(x)) / ndtr(x)) < 1e-13


def _bvn_quad(a: float, b: float, rho: float) -> float:
    s = math.sqrt(1 - rho * rho)
    return quad(lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi) * ndtr((b - rho * t) / s),
                -40, a, epsabs=0, epsrel=1e-13, limit=500)[0]


def test_bivariate_normal_against_quadrature():
    rng = np.random.default_rng(7)
    rho_2002 = math.sqrt((math.sqrt(5) - 1) / 2)
    for _ in range(150):
        a, b = rng.uniform(-8, 8, 2)
        rho = float(rng.choice([rho_2002, -rho_2002, rng.uniform(-0.92, 0.92)]))
        assert abs(float(bvn_cdf(np.array(a), np.array(b), rho)) - _bvn_quad(a, b, rho)) < 1e-14


def test_bivariate_normal_outside_its_range_is_nan():
    assert np.isnan(bvn_cdf(np.array(0.0), np.array(0.0), 0.95))
