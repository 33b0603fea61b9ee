"""Analysis: one data module per analysis type, served as v1's AnalysisData and as v2's module
record (the shared machinery: :mod:`apps.analysis.modules`).

:data:`TYPES` is the one table of analysis types: for each, its module, its v1 name (query
form), its kebab name (v1 sub-route and v2 path), the v1 builder and, for the types v2
serves, the list member v2 pages. v1's query choices, v1's sub-route aliases and v2's path
enum are all derived from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apps.analysis.modules import ModuleEndpoint, ModuleType
from marketdata.capabilities import fundamentals
from marketdata.formatting import json_ready
from marketdata.records.analysts import (
    EarningsEstimateModule,
    EarningsHistoryModule,
    EarningsSurprise,
    EsgScores,
    Estimate,
    GradeChange,
    PriceTargets,
    Recommendation,
    RecommendationsModule,
    TrendPeriod,
    UpgradesDowngradesModule,
)
from marketdata.records.fundamentals import (
    EARNINGS_HISTORY,
    EARNINGS_TREND,
    ESG_SCORES,
    FINANCIAL_DATA,
    RECOMMENDATION_TREND,
    UPGRADE_DOWNGRADE_HISTORY,
)


# -- v1 builders: module record -> the AnalysisData member (None when there is no data) --------
def _recommendations(trend: list[Recommendation]) -> list[dict[str, Any]] | None:
    return [json_ready(r) for r in trend] or None


def _upgrades_downgrades(history: list[GradeChange]) -> list[dict[str, Any]] | None:
    return [json_ready(r) for r in history] or None


def _price_targets(targets: PriceTargets) -> dict[str, Any] | None:
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


def _earnings_estimate(trend: list[TrendPeriod]) -> dict[str, Any] | None:
    found = estimates(trend, "earnings")
    return {"estimates": found} if found else None


def _revenue_estimate(trend: list[TrendPeriod]) -> dict[str, Any] | None:
    found = estimates(trend, "revenue")
    return {"estimates": found} if found else None


def _any_estimate(trend: list[TrendPeriod]) -> dict[str, Any] | None:
    """v2's earnings-estimate serves the whole earningsTrend (EPS and revenue rows), so it
    has data when either kind of estimate has."""
    return _earnings_estimate(trend) or _revenue_estimate(trend)


def _earnings_history(history: list[EarningsSurprise]) -> list[dict[str, Any]] | None:
    return [json_ready(r) for r in history] or None


def _sustainability(esg: EsgScores) -> dict[str, Any] | None:
    if not esg.has_scores:
        return None
    return {"scores": {"environmentScore": esg.environment_score,
                       "socialScore": esg.social_score,
                       "governanceScore": esg.governance_score, "totalEsg": esg.total_esg}}


# -- the table ------------------------------------------------------------------------------
ANALYSIS = ModuleEndpoint("analysis_type", fundamentals.analysis, (
    ModuleType("recommendations", "recommendations", RECOMMENDATION_TREND, _recommendations,
               "recommendations", v2_record=RecommendationsModule, v2_list="trend",
               v2_order="desc"),
    ModuleType("upgrades_downgrades", "upgrades-downgrades", UPGRADE_DOWNGRADE_HISTORY,
               _upgrades_downgrades, "upgrades/downgrades",
               v2_record=UpgradesDowngradesModule, v2_list="history", v2_order="desc"),
    ModuleType("price_targets", "price-targets", FINANCIAL_DATA, _price_targets,
               "price targets"),
    ModuleType("earnings_estimate", "earnings-estimate", EARNINGS_TREND, _earnings_estimate,
               "earnings estimate", v2_record=EarningsEstimateModule, v2_list="trend",
               v2_has_data=_any_estimate),
    ModuleType("revenue_estimate", "revenue-estimate", EARNINGS_TREND, _revenue_estimate,
               "revenue estimate"),
    ModuleType("earnings_history", "earnings-history", EARNINGS_HISTORY, _earnings_history,
               "earnings history", v2_record=EarningsHistoryModule, v2_list="history",
               v2_order="asc"),
    ModuleType("sustainability", "sustainability", ESG_SCORES, _sustainability,
               "sustainability"),
))

# Derived: the table, v1's query choices, v1's sub-route aliases, v2's path enum.
TYPES: dict[str, ModuleType] = ANALYSIS.types
ANALYSIS_TYPES = ANALYSIS.names
ALIASES = ANALYSIS.aliases
V2_TYPES: Mapping[str, ModuleType] = ANALYSIS.v2_types


def analysis_data(symbol_text: str, analysis_type: str) -> dict[str, Any]:
    """AnalysisData for one type: 404 for a malformed or unknown symbol and for no data."""
    return ANALYSIS.body(symbol_text, analysis_type)
