"""Analysis: one data module per analysis type, served as v1's AnalysisData (a record of v1's
members, its type's member a record too) and as v2's module record (the shared machinery:
:mod:`apps.analysis.modules`).

:data:`TYPES` is the one table of analysis types: for each, its module, its v1 name (query
form), its kebab name (v1 sub-route and v2 path), the v1 builder and, for the types v2
serves, the list member v2 pages. v1's query choices, v1's sub-route aliases and v2's path
enum are all derived from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from apps.analysis.modules import ModuleEndpoint, ModuleType, listed
from marketdata.capabilities import fundamentals
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
from marketdata.records.members import DOUBLE, member


# -- v1: the AnalysisData member of each type, records of v1's members ---------------------
@dataclass(frozen=True)
class RecommendationData:
    period: str | None = member('Month: "0m" current, "-1m" one month ago, ...')
    strong_buy: int | None = member(name="strong_buy")
    buy: int | None = member()
    hold: int | None = member()
    sell: int | None = member()
    strong_sell: int | None = member(name="strong_sell")

    @classmethod
    def of(cls, row: Recommendation) -> RecommendationData:
        return cls(row.period, row.strong_buy, row.buy, row.hold, row.sell, row.strong_sell)


@dataclass(frozen=True)
class UpgradeDowngrade:
    firm: str | None = member()
    to_grade: str | None = member(name="to_grade")
    from_grade: str | None = member('"" on an initiation, as Yahoo sends it', name="from_grade")
    action: str | None = member(
        "upgrade or downgrade (Yahoo's up, down); null for other rating actions (Yahoo's "
        "main, init, reit: maintained, initiated, reiterated)",
        schema={"enum": ["upgrade", "downgrade", None]})
    date: datetime | None = member("ISO 8601, UTC")

    @classmethod
    def of(cls, row: GradeChange) -> UpgradeDowngrade:
        return cls(row.firm, row.to_grade, row.from_grade, row.action, row.date)


@dataclass(frozen=True)
class PriceTarget:
    current: float | None = member("Current price", schema=DOUBLE)
    mean: float | None = member(schema=DOUBLE)
    median: float | None = member(schema=DOUBLE)
    low: float | None = member(schema=DOUBLE)
    high: float | None = member(schema=DOUBLE)

    @classmethod
    def of(cls, targets: PriceTargets) -> PriceTarget | None:
        if not targets.has_targets:
            return None
        return cls(targets.current, targets.mean, targets.median, targets.low, targets.high)


@dataclass(frozen=True)
class _EstimateValue:
    """One period's consensus; ``year_ago`` is named by the kind (yearAgoEps,
    yearAgoRevenue) and listed last in the schema, as the v1 document has it."""

    avg: float | None = member(schema=DOUBLE)
    low: float | None = member(schema=DOUBLE)
    high: float | None = member(schema=DOUBLE)
    number_of_analysts: int | None = member()
    year_ago: float | None
    growth: float | None = member("Expected growth, a fraction (0.051 = 5.1%)", schema=DOUBLE)
    period: str | None = member('"0q", "+1q", "0y" or "+1y"')
    currency: str | None = member()


@dataclass(frozen=True)
class EarningsEstimateValue(_EstimateValue):
    year_ago: float | None = member(name="yearAgoEps", schema=DOUBLE)


@dataclass(frozen=True)
class RevenueEstimateValue(_EstimateValue):
    year_ago: float | None = member(name="yearAgoRevenue", schema=DOUBLE)


def estimates(periods: list[TrendPeriod], which: str) -> dict[str, _EstimateValue]:
    """Estimates keyed by period end date (``YYYY-MM-DD``), dates ascending.

    ``which`` is "earnings" or "revenue". Rows without an end date (Yahoo's -5y/+5y growth
    rows, or periods it has no calendar for) and placeholder rows (no analysts) are left out.
    When a quarter and a fiscal year end on the same day, the quarter is kept (Yahoo lists
    quarters first); ``period`` says which one a value is.
    """
    value = EarningsEstimateValue if which == "earnings" else RevenueEstimateValue
    out: dict[str, _EstimateValue] = {}
    for row in periods:
        estimate: Estimate = getattr(row, which)
        if row.end_date is None or row.end_date in out or not estimate.has_data:
            continue
        out[row.end_date] = value(estimate.avg, estimate.low, estimate.high,
                                  estimate.number_of_analysts, estimate.year_ago,
                                  estimate.growth, row.period, estimate.currency)
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class EarningsEstimate:
    estimates: dict[str, EarningsEstimateValue] = member(
        "Period end date (YYYY-MM-DD) -> EPS estimate")


@dataclass(frozen=True)
class RevenueEstimate:
    estimates: dict[str, RevenueEstimateValue] = member(
        "Period end date (YYYY-MM-DD) -> revenue estimate (same shape as the EPS estimates)")


def _estimated(record: Callable[[Any], Any], which: str) -> Callable[[list[TrendPeriod]], Any]:
    """An estimate type's builder: ``record`` of the periods' ``which`` estimates, None when
    there are none."""
    def build(trend: list[TrendPeriod]) -> Any:
        found = estimates(trend, which)
        return record(found) if found else None
    return build


_earnings_estimate = _estimated(EarningsEstimate, "earnings")
_revenue_estimate = _estimated(RevenueEstimate, "revenue")


def _any_estimate(trend: list[TrendPeriod]) -> Any:
    """v2's earnings-estimate serves the whole earningsTrend (EPS and revenue rows), so it
    has data when either kind of estimate has."""
    return _earnings_estimate(trend) or _revenue_estimate(trend)


@dataclass(frozen=True)
class EarningsHistoryItem:
    date: datetime | None = member("Fiscal quarter end, UTC")
    eps_actual: float | None = member(name="eps_actual", schema=DOUBLE)
    eps_estimate: float | None = member(name="eps_estimate", schema=DOUBLE)
    surprise: float | None = member("Actual minus estimate", schema=DOUBLE)
    surprise_percent: float | None = member("A fraction (0.0205 = 2.05%)",
                                            name="surprise_percent", schema=DOUBLE)

    @classmethod
    def of(cls, row: EarningsSurprise) -> EarningsHistoryItem:
        return cls(row.date, row.eps_actual, row.eps_estimate, row.surprise,
                   row.surprise_percent)


@dataclass(frozen=True)
class Scores:
    V1_NAME: ClassVar[str] = "_Scores"

    environment_score: float | None = member(schema=DOUBLE)
    social_score: float | None = member(schema=DOUBLE)
    governance_score: float | None = member(schema=DOUBLE)
    total_esg: float | None = member(schema=DOUBLE)


@dataclass(frozen=True)
class SustainabilityScores:
    scores: Scores = member()

    @classmethod
    def of(cls, esg: EsgScores) -> SustainabilityScores | None:
        if not esg.has_scores:
            return None
        return cls(Scores(esg.environment_score, esg.social_score, esg.governance_score,
                          esg.total_esg))


# -- the table ------------------------------------------------------------------------------
ANALYSIS = ModuleEndpoint("analysis_type", fundamentals.analysis, (
    ModuleType("recommendations", "recommendations", RECOMMENDATION_TREND,
               listed(RecommendationData.of),
               "recommendations", v2_record=RecommendationsModule, v2_list="trend",
               v2_order="desc"),
    ModuleType("upgrades_downgrades", "upgrades-downgrades", UPGRADE_DOWNGRADE_HISTORY,
               listed(UpgradeDowngrade.of), "upgrades/downgrades",
               v2_record=UpgradesDowngradesModule, v2_list="history", v2_order="desc"),
    ModuleType("price_targets", "price-targets", FINANCIAL_DATA, PriceTarget.of,
               "price targets"),
    ModuleType("earnings_estimate", "earnings-estimate", EARNINGS_TREND, _earnings_estimate,
               "earnings estimate", v2_record=EarningsEstimateModule, v2_list="trend",
               v2_has_data=_any_estimate),
    ModuleType("revenue_estimate", "revenue-estimate", EARNINGS_TREND, _revenue_estimate,
               "revenue estimate"),
    ModuleType("earnings_history", "earnings-history", EARNINGS_HISTORY,
               listed(EarningsHistoryItem.of),
               "earnings history", v2_record=EarningsHistoryModule, v2_list="history",
               v2_order="asc"),
    ModuleType("sustainability", "sustainability", ESG_SCORES, SustainabilityScores.of,
               "sustainability"),
))

# Derived: the table, v1's query choices, v1's sub-route aliases, v2's path enum.
TYPES: dict[str, ModuleType] = ANALYSIS.types
ANALYSIS_TYPES = ANALYSIS.names
ALIASES = ANALYSIS.aliases
V2_TYPES: Mapping[str, ModuleType] = ANALYSIS.v2_types


@dataclass(frozen=True)
class AnalysisData:
    """v1's answer: every type's member present, only the requested one filled."""

    symbol: str = member("The symbol, upper-cased")
    analysis_type: str = member(name="analysis_type", schema={"enum": list(ANALYSIS_TYPES)})
    recommendations: list[RecommendationData] | None = member(default=None)
    upgrades_downgrades: list[UpgradeDowngrade] | None = member(name="upgrades_downgrades",
                                                                default=None)
    price_targets: PriceTarget | None = member(name="price_targets", default=None)
    earnings_estimate: EarningsEstimate | None = member(name="earnings_estimate",
                                                        default=None)
    revenue_estimate: RevenueEstimate | None = member(name="revenue_estimate", default=None)
    earnings_history: list[EarningsHistoryItem] | None = member(name="earnings_history",
                                                                default=None)
    sustainability: SustainabilityScores | None = member(default=None)


def analysis_data(symbol_text: str, analysis_type: str) -> AnalysisData:
    """AnalysisData for one type: 404 for a malformed or unknown symbol and for no data."""
    return ANALYSIS.body(symbol_text, analysis_type, AnalysisData)
