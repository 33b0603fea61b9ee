"""marketdata.indicators.risk: every metric against an independent implementation on real
daily prices, and properties that hold for any price series.

The oracle is empyrical-reloaded (dev only, never imported by the service) on the real
daily adjusted closes bokeh-sampledata ships (AAPL, GOOG, IBM, MSFT, 2000-2013, with the
2000-2002 and 2008 crashes); where empyrical has no function, plain pandas/scipy written
here from the textbook formula. Where our definition and empyrical's differ in form only,
the test states the mapping (our VaR is a positive loss, empyrical's a negative return).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import empyrical as ep
import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

from marketdata.indicators.risk import (
    common_bars,
    periods_per_year,
    recovery_periods,
    risk_metrics,
)
from tests.price_series import bokeh_bars

REL = 1e-9
P = 252
TICKERS = ("AAPL", "GOOG", "IBM", "MSFT")


def adjusted(ticker: str) -> pd.Series:
    """Every bokeh daily adjusted close of ``ticker``, indexed by session date."""
    bars = bokeh_bars(ticker, 10_000)
    index = pd.to_datetime(bars.timestamps, unit="s")
    assert bars.adjclose is not None
    return pd.Series(bars.adjclose, index=index, name=ticker)


def close(ours: float | None, theirs: float) -> bool:
    return ours is not None and math.isclose(ours, theirs, rel_tol=REL, abs_tol=1e-15)


@pytest.fixture(scope="module", params=TICKERS)
def series(request: pytest.FixtureRequest) -> pd.Series:
    return adjusted(request.param)


def test_every_metric_matches_empyrical_on_real_prices(series):
    returns = series.pct_change().dropna().to_numpy()
    ours = risk_metrics(series.to_numpy(), P)
    assert close(ours.volatility, ep.annual_volatility(returns, annualization=P))
    assert close(ours.sharpe, ep.sharpe_ratio(returns, annualization=P))
    # Both use the target downside deviation over all n returns.
    assert close(ours.sortino, ep.sortino_ratio(returns, annualization=P))
    assert close(ours.maxDrawdown, -ep.max_drawdown(returns))
    assert close(ours.calmar, ep.calmar_ratio(returns, annualization=P))
    assert close(ours.omega, ep.omega_ratio(returns, annualization=P))
    # empyrical's VaR is the (negative) return at the percentile; ours the loss.
    assert close(ours.var95, -ep.value_at_risk(returns, 0.05))
    assert close(ours.var99, -ep.value_at_risk(returns, 0.01))
    assert close(ours.cvar95, -ep.conditional_value_at_risk(returns, 0.05))
    assert close(ours.cvar99, -ep.conditional_value_at_risk(returns, 0.01))
    assert ours.beta is ours.alpha is ours.trackingError is ours.informationRatio is None


def test_metrics_empyrical_lacks_match_the_textbook_formulas(series):
    r = series.pct_change().dropna()
    ours = risk_metrics(series.to_numpy(), P)
    mu, sd = r.mean(), r.std(ddof=1)
    assert close(ours.parametricVar95, -(mu + stats.norm.ppf(0.05) * sd))
    assert close(ours.parametricCvar95, sd * stats.norm.pdf(stats.norm.ppf(0.95)) / 0.05 - mu)
    wins, losses = r[r > 0], r[r < 0]
    w = len(wins) / len(r)
    assert close(ours.kelly, w - (1 - w) / (wins.mean() / -losses.mean()))
    wealth = series / series.iloc[0]
    drawdown_pct = (1 - wealth / wealth.cummax()) * 100
    assert close(ours.ulcerIndex, math.sqrt((drawdown_pct ** 2).mean()))


def _recovery_by_loop(prices: list[float]) -> int | None:
    """Recovery time written as a person would: find the deepest fall from a running peak,
    then walk forward from its trough until the price is back at that peak."""
    peak_price, worst, trough, trough_peak = prices[0], 0.0, None, 0.0
    for i, price in enumerate(prices):
        peak_price = max(peak_price, price)
        fall = 1 - price / peak_price
        if fall > worst:
            worst, trough, trough_peak = fall, i, peak_price
    if trough is None:
        return None
    for j in range(trough + 1, len(prices)):
        if prices[j] >= trough_peak:
            return j - trough
    return None


def test_recovery_periods_on_real_prices(series):
    ours = risk_metrics(series.to_numpy(), P)
    assert ours.maxDrawdownRecoveryPeriods == _recovery_by_loop(series.tolist())


def test_recovery_starts_from_the_peak_before_the_trough():
    # Peak 100, trough 50 (the maximum drawdown), then a new high 120 and a smaller dip:
    # the recovery is back to 100, three bars after the trough, not to the later high.
    prices = np.array([100.0, 80.0, 50.0, 90.0, 100.0, 120.0, 110.0, 115.0])
    ours = risk_metrics(prices, P)
    assert ours.maxDrawdown == 0.5
    assert ours.maxDrawdownRecoveryPeriods == 2
    # Never back to the pre-trough peak within the window: null.
    assert risk_metrics(np.array([100.0, 60.0, 70.0, 99.0]), P).maxDrawdownRecoveryPeriods \
        is None
    # An exact return to the peak's price counts (prices, not compounded returns, compared).
    assert risk_metrics(np.array([3.3, 1.1, 3.3]), P).maxDrawdownRecoveryPeriods == 1


@pytest.mark.parametrize(("symbol", "factor"), [("AAPL", "MSFT"), ("GOOG", "IBM"),
                                                   ("IBM", "AAPL")])
def test_relative_metrics_match_empyrical_on_common_dates(symbol, factor):
    a, b = adjusted(symbol), adjusted(factor)
    # Drop every 7th benchmark session, so common dates differ from the symbol's own.
    b = b.iloc[[i for i in range(len(b)) if i % 7 != 3]]
    joined = pd.concat([a, b], axis=1, join="inner")
    ra = joined[symbol].pct_change().dropna().to_numpy()
    rb = joined[factor].pct_change().dropna().to_numpy()
    paired = common_bars(list(a.index), a.to_numpy(), list(b.index), b.to_numpy())
    assert len(paired[0]) == len(joined)
    ours = risk_metrics(a.to_numpy(), P, paired=paired)
    assert close(ours.beta, ep.beta(ra, rb))
    assert close(ours.alpha, ep.alpha(ra, rb, annualization=P))
    assert close(ours.informationRatio, ep.excess_sharpe(ra, rb) * math.sqrt(P))
    active = pd.Series(ra - rb)
    assert close(ours.trackingError, active.std(ddof=1) * math.sqrt(P))
    # The symbol's own metrics use all its bars, not only the common ones.
    assert close(ours.volatility,
                 ep.annual_volatility(a.pct_change().dropna().to_numpy(), annualization=P))


def test_var_uses_linear_interpolation_and_cvar_the_worst_k_plus_one():
    r = np.array([-0.05, -0.03, -0.01, 0.0, 0.01, 0.02, 0.04, 0.05, 0.06, 0.08, 0.1])
    prices = np.concatenate([[100.0], 100.0 * np.cumprod(1 + r)])
    ours = risk_metrics(prices, P)
    returns = prices[1:] / prices[:-1] - 1
    ordered = np.sort(returns)
    # n = 11: the 5th percentile sits at position 10 * 0.05 = 0.5, halfway between the
    # two worst returns; k = floor(10 * 0.05) = 0, so CVaR95 is the worst return alone.
    assert close(ours.var95, -(ordered[0] + ordered[1]) / 2)
    assert close(ours.cvar95, -ordered[0])
    assert close(ours.var99, -(ordered[0] + 0.1 * (ordered[1] - ordered[0])))


def test_no_loss_gives_nulls_not_infinities():
    ours = risk_metrics(np.array([1.0, 2.0, 3.0, 3.0, 4.0]), P)
    assert ours.omega is None and ours.kelly is None and ours.sortino is None
    assert ours.calmar is None and ours.maxDrawdown == 0.0
    flat = risk_metrics(np.array([5.0, 5.0, 5.0]), P)
    assert flat.sharpe is None and flat.volatility == 0.0 and flat.omega is None


def test_fewer_than_two_returns_and_bad_prices_are_refused():
    with pytest.raises(ValueError, match="at least 3 prices"):
        risk_metrics(np.array([1.0, 2.0]), P)
    with pytest.raises(ValueError, match="finite and positive"):
        risk_metrics(np.array([1.0, 0.0, 2.0]), P)


@pytest.mark.parametrize(("interval", "kwargs", "expected"), [
    ("1d", {}, 252), ("5d", {}, 50.4), ("1wk", {}, 52), ("1mo", {}, 12), ("3mo", {}, 4),
    ("1d", {"sessions": 365}, 365),
    ("1m", {}, 252 * 390), ("2m", {}, 252 * 195), ("5m", {}, 252 * 78), ("15m", {}, 252 * 26),
    ("30m", {}, 252 * 13), ("1h", {}, 252 * 7), ("90m", {}, 252 * 5),
    ("1h", {"session_minutes": 510}, 252 * 9), ("5m", {"session_minutes": 330}, 252 * 66),
    ("1h", {"sessions": 365, "session_minutes": 1440}, 365 * 24),
])
def test_periods_per_year(interval, kwargs, expected):
    assert periods_per_year(interval, **kwargs) == expected


# -- properties -------------------------------------------------------------------------------
price_lists = st.lists(st.floats(min_value=1.0, max_value=1000.0, allow_nan=False,
                                 allow_infinity=False), min_size=3, max_size=60)


def _same(x: object, y: object) -> bool:
    if x is None or y is None:
        return x is y
    assert isinstance(x, float | int) and isinstance(y, float | int)
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)  # 0 vs a rounding residue


@settings(max_examples=150, deadline=None)
@given(prices=price_lists, scale=st.floats(min_value=0.01, max_value=100.0))
@example(prices=[1000.0, 1.0, 999.9999999999999], scale=0.2)  # found by the CI's seed
def test_scaling_prices_changes_no_metric(prices, scale):
    p = np.array(prices)
    base = risk_metrics(p, P, paired=(p, p[::-1].copy())).as_dict()
    scaled = risk_metrics(p * scale, P, paired=(p * scale, p[::-1] * scale)).as_dict()
    for name, value in base.items():
        if name in ("sharpe", "sortino", "informationRatio") and value is not None \
                and abs(value) > 1e6:
            continue  # a near-zero denominator: the ratio is noise either way
        if name in ("omega", "kelly", "calmar") and (value is None) != (scaled[name] is None):
            continue  # a zero return scaled to a ~1e-17 one: the sign flips a definition
        if name == "informationRatio" and abs(base["trackingError"] or 0.0) < 1e-9:
            continue  # a tracking error of rounding residue: the ratio of two residues
        if name == "maxDrawdownRecoveryPeriods" and _regains_within_rounding(p):
            continue  # 999.9999999999999 after a peak of 1000: scaled, it can round onto it
        assert _same(value, scaled[name]), (name, value, scaled[name])


def _regains_within_rounding(prices: np.ndarray) -> bool:
    """Whether a price after the deepest trough comes within a rounding of the peak before
    it without clearly passing it: whether it regains the peak depends on the last bit."""
    equity = prices / prices[0]
    trough = int(np.argmax(1.0 - equity / np.maximum.accumulate(equity)))
    peak = equity[: trough + 1].max()
    return any(math.isclose(e, peak, rel_tol=1e-12) for e in equity[trough + 1:])


@settings(max_examples=100, deadline=None)
@given(steps=st.lists(st.floats(min_value=0.0, max_value=0.2), min_size=2, max_size=60),
       start=st.floats(min_value=1.0, max_value=500.0))
def test_a_rising_series_has_no_drawdown(steps, start):
    prices = start * np.cumprod(np.concatenate([[1.0], 1.0 + np.array(steps)]))
    prices = np.maximum.accumulate(prices)  # rounding never makes it dip
    ours = risk_metrics(prices, P)
    assert ours.maxDrawdown == 0.0 and ours.ulcerIndex == 0.0
    assert ours.maxDrawdownRecoveryPeriods is None and ours.calmar is None


@settings(max_examples=100, deadline=None)
@given(prices=price_lists)
def test_a_series_against_itself(prices):
    p = np.array(prices)
    ours = risk_metrics(p, P, paired=(p, p))
    if ours.volatility > 0:
        assert ours.beta == 1.0
        assert ours.alpha == 0.0
    assert ours.trackingError == 0.0 and ours.informationRatio is None


@settings(max_examples=100, deadline=None)
@given(prices=price_lists)
def test_orderings_that_always_hold(prices):
    ours = risk_metrics(np.array(prices), P)
    assert ours.var99 >= ours.var95 - 1e-15
    assert ours.cvar95 >= ours.var95 - 1e-15 and ours.cvar99 >= ours.var99 - 1e-15
    assert 0.0 <= ours.maxDrawdown < 1.0
    assert ours.ulcerIndex <= 100 * ours.maxDrawdown + 1e-9
    if ours.maxDrawdownRecoveryPeriods is not None:
        assert 1 <= ours.maxDrawdownRecoveryPeriods < len(prices)


def test_recovery_periods_without_a_drawdown():
    equity = np.array([1.0, 1.1, 1.2])
    assert recovery_periods(equity, 1 - equity / np.maximum.accumulate(equity)) is None


def test_common_bars_keeps_the_symbols_order_and_only_shared_keys():
    mine, theirs = common_bars(["d1", "d2", "d3", "d4"], np.array([1.0, 2.0, 3.0, 4.0]),
                               ["d4", "d2", "d9"], np.array([40.0, 20.0, 90.0]))
    assert mine.tolist() == [2.0, 4.0] and theirs.tolist() == [20.0, 40.0]


def test_the_service_never_imports_the_oracle():
    root = Path(__file__).resolve().parents[2]
    imports = re.compile(r"^\s*(from|import)\s+(empyrical|scipy)\b", re.MULTILINE)
    offenders = [str(path.relative_to(root)) for folder in ("apps", "marketdata", "config")
                 for path in (root / folder).rglob("*.py")
                 if imports.search(path.read_text(encoding="utf-8"))]
    assert offenders == []
