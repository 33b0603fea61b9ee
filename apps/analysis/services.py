"""Analysis: one quoteSummary module per analysis type, served as v1's AnalysisData and as
v2's raw module.

:data:`TYPES` is the one table of analysis types: for each, its Yahoo module, its v1 name
(query form), its kebab name (v1 sub-route and v2 path), the v1 builder (parsed dataclasses)
and, for the types v2 serves, the list member v2 pages. v1's query choices, v1's sub-route
aliases and v2's path enum are all derived from it.

v1: every response carries all seven members with only the requested one filled (the others
null), so clients see one stable shape. v2: the module's members with Yahoo's names, values
reduced to raw. Either way a type with no data (Yahoo's 404 for the module, or a module with
nothing in it, as the v1 builder decides) is a 404, like an unknown symbol; a missing field
inside the data is null.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.errors import NotFound
from marketdata.formatting import json_ready
from marketdata.providers.yahoo import analysis as yahoo_analysis
from marketdata.providers.yahoo.analysis import (
    EARNINGS_HISTORY,
    EARNINGS_TREND,
    ESG_SCORES,
    FINANCIAL_DATA,
    RECOMMENDATION_TREND,
    UPGRADE_DOWNGRADE_HISTORY,
    Estimate,
    TrendPeriod,
    raw_module,
)

Module = dict[str, Any]


# -- v1 builders: module body -> the AnalysisData member (None when there is no data) ----------
def _recommendations(module: Module) -> list[dict[str, Any]] | None:
    return [json_ready(r) for r in yahoo_analysis.parse_recommendation_trend(module)] or None


def _upgrades_downgrades(module: Module) -> list[dict[str, Any]] | None:
    return [json_ready(r)
            for r in yahoo_analysis.parse_upgrade_downgrade_history(module)] or None


def _price_targets(module: Module) -> dict[str, Any] | None:
    targets = yahoo_analysis.parse_price_targets(module)
    return json_ready(targets) if targets.has_targets else None


def estimates(periods: list[TrendPeriod], which: str) -> dict[str, dict[str, Any]]:
    """Estimates keyed by period end date (``YYYY-MM-DD``), dates ascending.

    ``which`` is "earnings" or "revenue". Rows without an end date (Yahoo's -5y/+5y growth
    rows, or periods it has no calendar for) and placeholder rows (no analysts) are left out.
    When a quarter and a fiscal year end on the same day, the quarter is kept (Yahoo lists
    quarters first); ``period`` says which one a value is.
    """
    year_ago = "yearAgoEps" if which == "earnings" else "yearAgoRevenue"
    out: dict[str, dict[str, Any]] = {}
    for row in periods:
        estimate: Estimate = getattr(row, which)
        if row.end_date is None or row.end_date in out or not estimate.has_data:
            continue
        out[row.end_date] = {
            "avg": estimate.avg, "low": estimate.low, "high": estimate.high,
            "numberOfAnalysts": estimate.number_of_analysts, year_ago: estimate.year_ago,
            "growth": estimate.growth, "period": row.period, "currency": estimate.currency,
        }
    return dict(sorted(out.items()))


def _earnings_estimate(module: Module) -> dict[str, Any] | None:
    found = estimates(yahoo_analysis.parse_earnings_trend(module), "earnings")
    return {"estimates": found} if found else None


def _revenue_estimate(module: Module) -> dict[str, Any] | None:
    found = estimates(yahoo_analysis.parse_earnings_trend(module), "revenue")
    return {"estimates": found} if found else None


def _any_estimate(module: Module) -> dict[str, Any] | None:
    """v2's earnings-estimate serves the whole earningsTrend (EPS and revenue rows), so it
    has data when either kind of estimate has."""
    return _earnings_estimate(module) or _revenue_estimate(module)


def _earnings_history(module: Module) -> list[dict[str, Any]] | None:
    return [json_ready(r) for r in yahoo_analysis.parse_earnings_history(module)] or None


def _sustainability(module: Module) -> dict[str, Any] | None:
    esg = yahoo_analysis.parse_esg_scores(module)
    if not esg.has_scores:
        return None
    return {"scores": {"environmentScore": esg.environment_score,
                       "socialScore": esg.social_score,
                       "governanceScore": esg.governance_score, "totalEsg": esg.total_esg}}


# -- the table ------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnalysisType:
    """One analysis type, everything both interfaces need to know about it."""

    v1_name: str  # v1 query form value and AnalysisData member ("upgrades_downgrades")
    route: str  # kebab name: v1 sub-route alias and v2 {type} ("upgrades-downgrades")
    module: str  # the Yahoo quoteSummary module it is read from
    build: Callable[[Module], Any]  # v1: module body -> member, None when there is no data
    label: str  # "No {label} data found for SYM"
    v2_members: tuple[str, ...] = ()  # v2's known top-level members; () = not served by v2
    v2_list: str | None = None  # the v2 member `cursor`/`limit` page
    # v2: module body -> whether there is data (defaults to the v1 builder finding some).
    v2_has_data: Callable[[Module], Any] | None = None

    @property
    def in_v2(self) -> bool:
        return bool(self.v2_members)

    def has_v2_data(self, module: Module) -> bool:
        return (self.v2_has_data or self.build)(module) is not None


TYPES: dict[str, AnalysisType] = {t.v1_name: t for t in (
    AnalysisType("recommendations", "recommendations", RECOMMENDATION_TREND, _recommendations,
                 "recommendations", v2_members=("trend", "maxAge"), v2_list="trend"),
    AnalysisType("upgrades_downgrades", "upgrades-downgrades", UPGRADE_DOWNGRADE_HISTORY,
                 _upgrades_downgrades, "upgrades/downgrades",
                 v2_members=("history", "maxAge"), v2_list="history"),
    AnalysisType("price_targets", "price-targets", FINANCIAL_DATA, _price_targets,
                 "price targets"),
    AnalysisType("earnings_estimate", "earnings-estimate", EARNINGS_TREND, _earnings_estimate,
                 "earnings estimate", v2_members=("trend", "defaultMethodology", "maxAge"),
                 v2_list="trend", v2_has_data=_any_estimate),
    AnalysisType("revenue_estimate", "revenue-estimate", EARNINGS_TREND, _revenue_estimate,
                 "revenue estimate"),
    AnalysisType("earnings_history", "earnings-history", EARNINGS_HISTORY, _earnings_history,
                 "earnings history", v2_members=("history", "defaultMethodology", "maxAge"),
                 v2_list="history"),
    AnalysisType("sustainability", "sustainability", ESG_SCORES, _sustainability,
                 "sustainability"),
)}

# Derived: v1's query choices, v1's sub-route aliases, v2's path enum.
ANALYSIS_TYPES = tuple(TYPES)
# The reference implementation's sub-route names (/v1/analysis/{symbol}/{name}) -> type.
ALIASES = {t.route: t.v1_name for t in TYPES.values() if t.route != t.v1_name}
V2_TYPES: Mapping[str, AnalysisType] = {t.route: t for t in TYPES.values() if t.in_v2}


def _no_data(kind: AnalysisType, symbol: str) -> NotFound:
    return NotFound(f"No {kind.label} data found for {symbol}")


def _module(symbol: str, kind: AnalysisType) -> Module:
    """The type's module for a validated symbol; Yahoo's 404 (no such symbol, or no data
    for the module) is this type's "no data" 404."""
    try:
        return yahoo_analysis.fetch_analysis_module(symbol, kind.module)
    except NotFound:
        raise _no_data(kind, symbol) from None


def analysis_data(symbol_text: str, analysis_type: str) -> dict[str, Any]:
    """AnalysisData for one type: 404 for a malformed or unknown symbol and for no data."""
    symbol = require_symbol(symbol_text)
    kind = TYPES[analysis_type]
    member = kind.build(_module(symbol, kind))
    if member is None:
        raise _no_data(kind, symbol)
    body: dict[str, Any] = {"symbol": symbol, "analysis_type": analysis_type}
    body.update((name, None) for name in ANALYSIS_TYPES)
    body[analysis_type] = member
    return body


def analysis_module(symbol_text: str, route: str) -> tuple[AnalysisType, dict[str, Any]]:
    """v2: the type named ``route`` (a v2 path name) and its module as Yahoo sends it, every
    ``{raw, fmt}`` value reduced to raw. 404 for a malformed or unknown symbol and when the
    type has no data (the same decision as v1's)."""
    symbol = require_symbol(symbol_text)
    kind = V2_TYPES[route]
    module = _module(symbol, kind)
    body = raw_module(module)
    if not any(name != "maxAge" for name in body) or not kind.has_v2_data(module):
        raise _no_data(kind, symbol)
    return kind, body
