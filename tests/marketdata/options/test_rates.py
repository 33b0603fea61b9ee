"""marketdata.options.rates: par-yield conversions, interpolation in tenor, dividend yield."""

from __future__ import annotations

import math

import numpy as np
import pytest

from marketdata.options.rates import (
    continuous_from_par,
    curve_points,
    dividend_yield,
    risk_free_rate,
)
from marketdata.records.macro import YieldCurveRow

ROW = YieldCurveRow(date="2025-02-21", y1m=4.36, y2m=4.35, y3m=4.33, y4m=4.31, y6m=4.27,
                    y1=4.18, y2=4.19, y3=4.21, y5=4.27, y7=4.36, y10=4.43, y20=4.74, y30=4.67)


def test_conversions():
    # a bill: simple over its life, then continuous
    assert continuous_from_par(4.36, 1 / 12) == pytest.approx(12 * math.log(1 + 0.0436 / 12))
    # a note: semi-annual compounding
    assert continuous_from_par(4.18, 1.0) == pytest.approx(2 * math.log(1 + 0.0418 / 2))
    # continuous is below the compounded quote
    assert continuous_from_par(5.0, 10.0) < 0.05


def test_interpolation_is_linear_in_tenor_and_flat_at_the_ends():
    tenors, rates = curve_points(ROW)
    assert tenors.size == 13
    r = risk_free_rate(ROW, [0.0, 1 / 365, 1 / 12, 1.5, 30.0, 50.0])
    assert r[0] == r[1] == r[2] == rates[0]
    assert r[3] == pytest.approx((rates[5] + rates[6]) / 2)
    assert r[4] == r[5] == rates[-1]


def test_json_names_nulls_and_an_empty_row():
    answer = {"date": "2025-02-21", "y1M": 4.36, "y2M": None, "y10": 4.43}
    tenors, _ = curve_points(answer)
    assert list(tenors) == [1 / 12, 10.0]
    assert np.isnan(risk_free_rate(YieldCurveRow(date="2025-02-21"), [0.5])).all()


def test_dividend_yield():
    assert dividend_yield(0.0041) == pytest.approx(math.log(1.0041))
    assert dividend_yield(None) == 0.0
    assert dividend_yield(float("nan")) == 0.0
    assert dividend_yield(-0.01) == 0.0
