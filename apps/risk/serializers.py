"""Query declaration and response schema of GET /v2/risk/{symbol}."""

from __future__ import annotations

from typing import Any

from apps.core.params import SymbolParam
from apps.core.v2 import (
    FieldsQuery,
    IntervalRangeRule,
    interval_param,
    nullable,
    object_schema,
    range_param,
)


class V2RiskQuery(IntervalRangeRule, FieldsQuery):
    interval = interval_param("1d")
    range = range_param("1y", "History window the returns are taken over")
    benchmark = SymbolParam(
        required=False,
        help_text="Symbol to measure `beta`, `alpha`, `trackingError` and "
                  "`informationRatio` against (e.g. `^GSPC`, `SPY`); fetched with the same "
                  "interval and range. Omitted: none, and those four are null. Blank is a "
                  "400; an unknown (or malformed) benchmark a 404 naming it")


def _number(text: str) -> dict[str, Any]:
    return {"type": "number", "description": text}


def _nullable_number(text: str) -> dict[str, Any]:
    return nullable("number", description=text)


_RELATIVE = ("null without `benchmark` or with fewer than 2 returns on bars both series "
             "have")
CONTEXT_MEMBERS = ("symbol", "benchmark", "interval", "range", "priceBasis", "observations",
                   "benchmarkObservations", "periodsPerYear", "start", "end")
METRIC_MEMBERS = ("volatility", "var95", "var99", "parametricVar95", "cvar95", "cvar99",
                  "parametricCvar95", "omega", "kelly", "sharpe", "sortino", "calmar", "beta",
                  "alpha", "maxDrawdown", "maxDrawdownRecoveryPeriods", "ulcerIndex",
                  "informationRatio", "trackingError")
RISK_MEMBERS = CONTEXT_MEMBERS + METRIC_MEMBERS

RISK_RESPONSE = object_schema({
    "symbol": {"type": "string", "description": "The symbol, as the chart names it"},
    "benchmark": nullable("string", description="The benchmark, as its chart names it; "
                                                "null without one"),
    "interval": {"type": "string", "description": "Bar interval the returns are taken at"},
    "range": {"type": "string", "description": "History window"},
    "priceBasis": {"type": "string", "enum": ["adjClose", "close"],
                   "description": "Prices the returns come from: `adjClose` (daily and longer "
                                  "bars with an adjusted close on every bar, of the symbol "
                                  "and of the benchmark) or `close`"},
    "observations": {"type": "integer", "description": "Returns of the symbol (bars - 1)"},
    "benchmarkObservations": nullable(
        "integer", description="Returns on the bars both the symbol and the benchmark have "
                               "(same session date; same timestamp for intraday bars); the "
                               "relative metrics use these; null without `benchmark`"),
    "periodsPerYear": _number("Bars per year used to annualise: 252 sessions for 1d (365 for "
                              "crypto), a fifth of it for 5d, 52/12/4 for 1wk/1mo/3mo; "
                              "intraday, sessions x bars per regular session of the "
                              "listing's exchange"),
    "start": {"type": "integer", "description": "Timestamp of the first priced bar (Unix s)"},
    "end": {"type": "integer", "description": "Timestamp of the last priced bar (Unix s)"},
    "volatility": _number("Annualised volatility: sample standard deviation of the returns "
                          "x sqrt(periodsPerYear); a fraction (0.25 = 25 %)"),
    "var95": _number("Historical 1-period value at risk at 95 %: minus the 5th percentile of "
                     "the returns (linear interpolation); a fraction, a loss is positive"),
    "var99": _number("Historical 1-period value at risk at 99 % (1st percentile); a fraction"),
    "parametricVar95": _number("Normal 1-period VaR at 95 %: 1.6449 x sd - mean; a fraction"),
    "cvar95": _number("Historical 1-period expected shortfall at 95 %: minus the mean of the "
                      "floor((n-1) x 0.05) + 1 worst returns; a fraction"),
    "cvar99": _number("Historical expected shortfall at 99 % (floor((n-1) x 0.01) + 1 worst "
                      "returns); a fraction"),
    "parametricCvar95": _number("Normal expected shortfall at 95 %: sd x pdf(1.6449) / 0.05 - "
                                "mean; a fraction"),
    "omega": _nullable_number("Omega ratio at threshold 0: sum of gains / sum of losses (a "
                              "ratio); null when no return is negative (JSON has no "
                              "infinity)"),
    "kelly": _nullable_number("Kelly fraction W - (1 - W) / R (W: share of positive "
                              "returns; R: mean gain / mean loss); a fraction of capital; "
                              "null without a gain or without a loss"),
    "sharpe": _nullable_number("Annualised Sharpe ratio, risk-free rate 0: mean / sd x "
                               "sqrt(periodsPerYear); null when sd is 0"),
    "sortino": _nullable_number("Annualised Sortino ratio, target 0: mean / sqrt(sum(min(r, "
                                "0)^2) / n) x sqrt(periodsPerYear); null without a negative "
                                "return"),
    "calmar": _nullable_number("Calmar ratio: compound annual growth rate over the window / "
                               "maxDrawdown; null when maxDrawdown is 0"),
    "beta": _nullable_number("cov(symbol, benchmark) / var(benchmark) of the returns on "
                             f"common bars; {_RELATIVE} (or when the benchmark never moves)"),
    "alpha": _nullable_number("Annualised Jensen's alpha, risk-free rate 0: (1 + mean(a - "
                              "beta x b))^periodsPerYear - 1; a fraction; " + _RELATIVE),
    "maxDrawdown": _number("Largest fall from a running peak of the price, as a fraction of "
                           "that peak (0.3 = 30 %); 0 when the price never fell"),
    "maxDrawdownRecoveryPeriods": nullable(
        "integer", description="Bars from the trough of the maximum drawdown until the price "
                               "first regained the peak before it; null without a drawdown "
                               "or when not recovered within the window"),
    "ulcerIndex": _number("Ulcer index: root mean square of the drawdowns of every bar, in "
                          "percent (5 = 5 %)"),
    "informationRatio": _nullable_number("Annualised information ratio: mean(a - b) / sd(a - "
                                         "b) x sqrt(periodsPerYear); " + _RELATIVE),
    "trackingError": _nullable_number("Annualised tracking error: sd(a - b) x "
                                      "sqrt(periodsPerYear); a fraction; " + _RELATIVE),
}, "Risk metrics of one symbol over `range` at `interval` (formulas: README, \"Risk "
   "metrics\"); `fields` selects these members", required=RISK_MEMBERS)
