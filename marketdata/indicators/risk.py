"""Risk metrics of a price series (and against a benchmark): pure numpy, no Django.

Inputs are prices, oldest first, every one finite and positive. From ``n + 1`` prices
``p_0..p_n`` come ``n`` simple returns ``r_t = p_t / p_{t-1} - 1`` and the equity curve
``E_t = p_t / p_0`` (``E_0 = 1``). ``P`` is the number of periods per year
(:func:`periods_per_year`). Notation: ``mean`` the arithmetic mean, ``sd`` the sample
standard deviation (``n - 1``), ``c`` a confidence level, ``a = 1 - c`` its tail.

Every value is a fraction (0.05 is 5 %) unless said otherwise; the ulcer index is in percent,
as Peter Martin defined it. A value that is undefined (a zero denominator) is ``None``, never
an infinity: JSON has none.

- ``volatility = sd(r) * sqrt(P)``.
- Historical ``VaR_c = -quantile(r, a)``, the quantile linearly interpolated between order
  statistics (Hyndman & Fan type 7, numpy's default "linear" method); a loss is positive.
- Historical ``CVaR_c = -mean(r_(1..k+1))``, the mean of the ``k + 1`` smallest returns,
  ``k = floor((n - 1) * a)`` (the worst ``a`` of the returns, the order statistic at the
  cutoff included).
- Parametric (normal) ``VaR_c = z_c * sd - mean`` and ``CVaR_c = sd * phi(z_c) / a - mean``,
  ``z_c`` the standard normal quantile of ``c`` (1.6448536... for 95 %), ``phi`` its density.
- ``omega = sum(max(r, 0)) / sum(max(-r, 0))`` (threshold 0); None without a loss.
- ``kelly = W - (1 - W) / R``: ``W`` the share of returns above 0, ``R`` the mean gain over
  the mean loss (magnitudes); None without a gain or without a loss.
- ``sharpe = mean(r) / sd(r) * sqrt(P)`` (risk-free rate 0); None when ``sd`` is 0.
- ``sortino = mean(r) / DD * sqrt(P)``, ``DD = sqrt(sum(min(r, 0)^2) / n)`` (Sortino &
  Price's target downside deviation, target 0, over all ``n`` returns); None when ``DD`` is 0.
- Drawdown ``D_t = 1 - E_t / max(E_0..E_t)``; ``maxDrawdown = max D_t`` (0 for a series that
  never falls). ``maxDrawdownRecoveryPeriods``: the periods from the trough of the maximum
  drawdown (its first bar) until the equity first regains the peak that preceded that trough;
  None when there is no drawdown or it has not recovered within the window.
- ``calmar = CAGR / maxDrawdown``, ``CAGR = E_n ^ (P / n) - 1``; None when maxDrawdown is 0
  (or when the CAGR overflows a float: a short window's growth compounded to a year).
- ``ulcerIndex = sqrt(mean((100 * D_t)^2))`` over ``t = 0..n`` (percent).

Against a benchmark, on the returns ``a_t`` (the symbol) and ``b_t`` (the benchmark) of the
bars both have (the caller aligns them: :func:`common_bars`), ``m`` of them:

- ``beta = cov(a, b) / var(b)`` (both ``m - 1``); None when ``var(b)`` is 0.
- ``alpha = (1 + mean(a - beta * b)) ^ P - 1``: Jensen's alpha per period (risk-free rate 0),
  compounded to a year as empyrical does; None when beta is None (or it overflows).
- ``trackingError = sd(a - b) * sqrt(P)``.
- ``informationRatio = mean(a - b) / sd(a - b) * sqrt(P)``; None when ``sd(a - b)`` is 0.

All four are None with fewer than 2 common returns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from marketdata.records.members import member

# Trading sessions in a year: the equity-market convention (NYSE has 250-253).
TRADING_SESSIONS = 252
# The US equity regular session, 09:30-16:00 New York.
US_SESSION_MINUTES = 390
INTRADAY_MINUTES = {"1m": 1, "2m": 2, "5m": 5, "15m": 15, "30m": 30, "1h": 60, "90m": 90}
# Bars a year for bar sizes that do not depend on the session: a week, a month, a quarter.
CALENDAR_PERIODS = {"1wk": 52, "1mo": 12, "3mo": 4}
# Sessions a bar of these intervals spans.
SESSION_BARS = {"1d": 1, "5d": 5}

_NORMAL = NormalDist()


def periods_per_year(interval: str, *, sessions: int = TRADING_SESSIONS,
                     session_minutes: int = US_SESSION_MINUTES) -> float:
    """Bars of ``interval`` in a year: ``sessions`` (252 trading days; 365 for a market that
    trades every day) for 1d, a fifth of it for 5d, 52/12/4 for 1wk/1mo/3mo, and for
    intraday bars ``sessions * ceil(session_minutes / bar minutes)``: a session that is not
    a whole number of bars ends with a short bar (the US 390-minute session has 7 bars of
    1h and 5 of 90m)."""
    if interval in INTRADAY_MINUTES:
        return float(sessions * math.ceil(session_minutes / INTRADAY_MINUTES[interval]))
    if interval in SESSION_BARS:
        return sessions / SESSION_BARS[interval]
    if interval in CALENDAR_PERIODS:
        return float(CALENDAR_PERIODS[interval])
    raise ValueError(f"unknown interval {interval!r}")


# What the metrics against a benchmark are without one (their members say it).
_RELATIVE = ("null without `benchmark` or with fewer than 2 returns on bars both series "
             "have")


@dataclass(frozen=True)
class RiskMetrics:
    """The metrics of one series, by the API's member names (see the module docstring),
    declared as members of the risk answer."""

    volatility: float = member("Annualised volatility: sample standard deviation of the "
                               "returns x sqrt(periodsPerYear); a fraction (0.25 = 25 %)")
    var95: float = member("Historical 1-period value at risk at 95 %: minus the 5th "
                          "percentile of the returns (linear interpolation); a fraction, a "
                          "loss is positive")
    var99: float = member("Historical 1-period value at risk at 99 % (1st percentile); a "
                          "fraction")
    parametricVar95: float = member(  # noqa: N815 - the API's member names
        "Normal 1-period VaR at 95 %: 1.6449 x sd - mean; a fraction")
    cvar95: float = member("Historical 1-period expected shortfall at 95 %: minus the mean of "
                           "the floor((n-1) x 0.05) + 1 worst returns; a fraction")
    cvar99: float = member("Historical expected shortfall at 99 % (floor((n-1) x 0.01) + 1 "
                           "worst returns); a fraction")
    parametricCvar95: float = member(  # noqa: N815
        "Normal expected shortfall at 95 %: sd x pdf(1.6449) / 0.05 - mean; a fraction")
    omega: float | None = member("Omega ratio at threshold 0: sum of gains / sum of losses (a "
                                 "ratio); null when no return is negative (JSON has no "
                                 "infinity)")
    kelly: float | None = member("Kelly fraction W - (1 - W) / R (W: share of positive "
                                 "returns; R: mean gain / mean loss); a fraction of capital; "
                                 "null without a gain or without a loss")
    sharpe: float | None = member("Annualised Sharpe ratio, risk-free rate 0: mean / sd x "
                                  "sqrt(periodsPerYear); null when sd is 0")
    sortino: float | None = member("Annualised Sortino ratio, target 0: mean / sqrt(sum(min(r, "
                                   "0)^2) / n) x sqrt(periodsPerYear); null without a negative "
                                   "return")
    calmar: float | None = member("Calmar ratio: compound annual growth rate over the window / "
                                  "maxDrawdown; null when maxDrawdown is 0")
    maxDrawdown: float = member(  # noqa: N815
        "Largest fall from a running peak of the price, as a fraction of that peak (0.3 = "
        "30 %); 0 when the price never fell")
    maxDrawdownRecoveryPeriods: int | None = member(  # noqa: N815
        "Bars from the trough of the maximum drawdown until the price first regained the "
        "peak before it; null without a drawdown or when not recovered within the window")
    ulcerIndex: float = member(  # noqa: N815
        "Ulcer index: root mean square of the drawdowns of every bar, in percent (5 = 5 %)")
    beta: float | None = member("cov(symbol, benchmark) / var(benchmark) of the returns on "
                                f"common bars; {_RELATIVE} (or when the benchmark never moves)",
                                default=None)
    alpha: float | None = member("Annualised Jensen's alpha, risk-free rate 0: (1 + mean(a - "
                                 "beta x b))^periodsPerYear - 1; a fraction; " + _RELATIVE,
                                 default=None)
    trackingError: float | None = member(  # noqa: N815
        "Annualised tracking error: sd(a - b) x sqrt(periodsPerYear); a fraction; " + _RELATIVE,
        default=None)
    informationRatio: float | None = member(  # noqa: N815
        "Annualised information ratio: mean(a - b) / sd(a - b) x sqrt(periodsPerYear); "
        + _RELATIVE, default=None)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def simple_returns(prices: np.ndarray) -> np.ndarray:
    """``p_t / p_{t-1} - 1`` for t = 1..n."""
    return prices[1:] / prices[:-1] - 1.0


def _ratio(numerator: float, denominator: float) -> float | None:
    return None if denominator == 0 else float(numerator / denominator)


def compounded(growth: float, exponent: float) -> float | None:
    """``growth ^ exponent - 1``, None when that is no finite real number (a tiny window
    annualised to a year can overflow a float; a negative growth has no real power)."""
    try:
        value = math.pow(growth, exponent) - 1
    except (OverflowError, ValueError):
        return None
    return value if math.isfinite(value) else None


def historical_var(returns: np.ndarray, tail: float) -> float:
    """``-quantile(r, tail)`` (linear interpolation): the loss not exceeded with
    probability ``1 - tail``."""
    return float(-np.percentile(returns, 100 * tail))


def historical_cvar(returns: np.ndarray, tail_percent: int) -> float:
    """``-mean`` of the ``floor((n - 1) * tail) + 1`` smallest returns; ``tail_percent``
    in whole percent (5 for 95 %), so the count is exact integer arithmetic."""
    count = (len(returns) - 1) * tail_percent // 100 + 1
    return float(-np.mean(np.sort(returns)[:count]))


def parametric_var(mean: float, sd: float, tail: float) -> float:
    """Normal VaR: ``z * sd - mean``, ``z`` the standard normal quantile of ``1 - tail``."""
    return _NORMAL.inv_cdf(1 - tail) * sd - mean


def parametric_cvar(mean: float, sd: float, tail: float) -> float:
    """Normal expected shortfall: ``sd * phi(z) / tail - mean``."""
    return sd * _NORMAL.pdf(_NORMAL.inv_cdf(1 - tail)) / tail - mean


def kelly_fraction(returns: np.ndarray) -> float | None:
    """``W - (1 - W) / R`` (see the module docstring); None without a gain or a loss."""
    gains, losses = returns[returns > 0], returns[returns < 0]
    if not len(gains) or not len(losses):
        return None
    win_share = len(gains) / len(returns)
    payoff = float(gains.mean()) / float(-losses.mean())
    return win_share - (1 - win_share) / payoff


def drawdowns(equity: np.ndarray) -> np.ndarray:
    """``1 - E_t / max(E_0..E_t)`` for every point of the equity curve."""
    return 1.0 - equity / np.maximum.accumulate(equity)


def recovery_periods(equity: np.ndarray, drawdown: np.ndarray) -> int | None:
    """Periods from the maximum drawdown's trough until the equity first regains the peak
    before that trough; None without a drawdown or without a recovery in the window."""
    trough = int(np.argmax(drawdown))
    if drawdown[trough] <= 0:
        return None
    peak_level = equity[: trough + 1].max()
    regained = np.flatnonzero(equity[trough + 1:] >= peak_level)
    return int(regained[0]) + 1 if len(regained) else None


def relative_metrics(symbol_prices: np.ndarray, benchmark_prices: np.ndarray,
                     periods: float) -> dict[str, float | None]:
    """``beta``, ``alpha``, ``trackingError``, ``informationRatio`` of the symbol against
    the benchmark, from their prices on the same bars (None each with fewer than 2
    returns)."""
    none: dict[str, float | None] = {"beta": None, "alpha": None, "trackingError": None,
                                     "informationRatio": None}
    if len(symbol_prices) != len(benchmark_prices):
        raise ValueError("the symbol's and the benchmark's prices must be of the same bars")
    if len(symbol_prices) < 3:
        return none
    a, b = simple_returns(symbol_prices), simple_returns(benchmark_prices)
    m = len(a)
    centred_b = b - b.mean()
    # One expression for both, so a series against itself has a beta of exactly 1.
    variance = float(np.dot(centred_b, centred_b)) / (m - 1)
    covariance = float(np.dot(a - a.mean(), centred_b)) / (m - 1)
    beta = _ratio(covariance, variance)
    active = a - b
    active_sd = float(active.std(ddof=1))
    root = math.sqrt(periods)
    return {
        "beta": beta,
        "alpha": None if beta is None else
        compounded(1 + float(np.mean(a - beta * b)), periods),
        "trackingError": active_sd * root,
        "informationRatio": None if active_sd == 0 else float(active.mean()) / active_sd * root,
    }


def risk_metrics(prices: Sequence[float] | np.ndarray, periods: float, *,
                 paired: tuple[np.ndarray, np.ndarray] | None = None) -> RiskMetrics:
    """Every metric of ``prices`` (at least 3: two returns), annualised with ``periods``
    a year; with ``paired`` (the symbol's and the benchmark's prices on their common bars)
    also the metrics against the benchmark."""
    p = np.asarray(prices, dtype=np.float64)
    if len(p) < 3:
        raise ValueError("risk metrics need at least 3 prices (2 returns)")
    if not np.all(np.isfinite(p)) or np.any(p <= 0):
        raise ValueError("prices must be finite and positive")
    r = simple_returns(p)
    n = len(r)
    mean, sd = float(r.mean()), float(r.std(ddof=1))
    root = math.sqrt(periods)
    equity = p / p[0]
    drawdown = drawdowns(equity)
    max_drawdown = float(drawdown.max())
    gains, losses = float(r[r > 0].sum()), float(-r[r < 0].sum())
    downside = math.sqrt(float(np.sum(np.minimum(r, 0.0) ** 2)) / n)
    cagr = compounded(float(equity[-1]), periods / n)
    sharpe = _ratio(mean, sd)
    sortino = _ratio(mean, downside)
    relative = relative_metrics(*paired, periods) if paired is not None else {}
    return RiskMetrics(
        volatility=sd * root,
        var95=historical_var(r, 0.05),
        var99=historical_var(r, 0.01),
        parametricVar95=parametric_var(mean, sd, 0.05),
        cvar95=historical_cvar(r, 5),
        cvar99=historical_cvar(r, 1),
        parametricCvar95=parametric_cvar(mean, sd, 0.05),
        omega=_ratio(gains, losses),
        kelly=kelly_fraction(r),
        sharpe=None if sharpe is None else sharpe * root,
        sortino=None if sortino is None else sortino * root,
        calmar=None if cagr is None else _ratio(cagr, max_drawdown),
        maxDrawdown=max_drawdown,
        maxDrawdownRecoveryPeriods=recovery_periods(equity, drawdown),
        ulcerIndex=math.sqrt(float(np.mean((100.0 * drawdown) ** 2))),
        **relative,
    )


def common_bars(keys: Sequence[Any], prices: np.ndarray, benchmark_keys: Sequence[Any],
                benchmark_prices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The symbol's and the benchmark's prices on the bars both have (same key: a session
    date, or a timestamp for intraday bars), in the symbol's order. Returns are then taken
    between consecutive common bars, so both cover the same span each period."""
    where = {key: i for i, key in enumerate(benchmark_keys)}
    mine = [i for i, key in enumerate(keys) if key in where]
    theirs = [where[keys[i]] for i in mine]
    return prices[mine], benchmark_prices[theirs]
