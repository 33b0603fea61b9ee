"""Analyst data, whichever source served it: the records of the analysis types
(recommendations, rating changes, price targets, estimates, earnings surprises, ESG scores)
and of the v2 analyst endpoints (grading actions, price target consensus and summary).

Values are as the source sent them (numbers unrounded, strings as sent unless a record says
otherwise). The v2 analyst endpoints' records declare their answers' members
(:mod:`marketdata.records.members`); the analysis types are shaped into bodies by the apps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from marketdata.formatting import round_half_up
from marketdata.records.fundamentals import MAX_AGE
from marketdata.records.members import member


# -- the analysis types -----------------------------------------------------------------------
@dataclass(frozen=True)
class Recommendation:
    """Analyst counts for one month ("0m" is the current month, "-1m" the one before)."""

    period: str | None
    strong_buy: int | None
    buy: int | None
    hold: int | None
    sell: int | None
    strong_sell: int | None


@dataclass(frozen=True)
class GradeChange:
    firm: str | None
    to_grade: str | None
    from_grade: str | None
    action: str | None
    date: datetime | None


@dataclass(frozen=True)
class PriceTargets:
    current: float | None
    mean: float | None
    median: float | None
    low: float | None
    high: float | None

    @property
    def has_targets(self) -> bool:
        """Whether any analyst target exists (the current price alone is not a target)."""
        return any(v is not None for v in (self.mean, self.median, self.low, self.high))


@dataclass(frozen=True)
class Estimate:
    """One consensus estimate (EPS or revenue) for one period."""

    avg: float | None
    low: float | None
    high: float | None
    number_of_analysts: int | None
    year_ago: float | None
    growth: float | None  # a fraction: 0.051 is +5.1%
    currency: str | None

    @property
    def has_data(self) -> bool:
        """False for placeholders: zeros with numberOfAnalysts 0, or nothing at all."""
        if self.number_of_analysts == 0:
            return False
        return any(v is not None for v in (self.avg, self.low, self.high))


@dataclass(frozen=True)
class TrendPeriod:
    """One estimate period: "0q"/"+1q" (quarters), "0y"/"+1y" (fiscal years)."""

    period: str | None
    end_date: str | None  # YYYY-MM-DD; None on rows the source has no calendar for
    earnings: Estimate
    revenue: Estimate


@dataclass(frozen=True)
class EarningsSurprise:
    date: datetime | None  # end of the fiscal quarter
    eps_actual: float | None
    eps_estimate: float | None
    surprise: float | None
    surprise_percent: float | None  # a fraction, as sent: 0.0205 is 2.05%


@dataclass(frozen=True)
class EsgScores:
    environment_score: float | None
    social_score: float | None
    governance_score: float | None
    total_esg: float | None

    @property
    def has_scores(self) -> bool:
        return any(v is not None for v in (self.environment_score, self.social_score,
                                            self.governance_score, self.total_esg))


# -- the analysis modules as v2 serves them -----------------------------------------------------
# As the holders modules (marketdata.records.fundamentals): the source's members, the known
# ones declared, the others passed through after them; Yahoo's oddly cased names
# (``7daysAgo``, ``upLast7days``) renamed to camel case before.
_ORDER = ", newest first (`order=desc`, the default) or oldest first (`order=asc`)"
_METHODOLOGY = "The EPS basis of the estimates, e.g. `nongaap` (null when the source sends none)"


@dataclass(frozen=True)
class RecommendationRow:
    """Analyst counts of one month of recommendationTrend."""

    period: str | None = member()
    strong_buy: int | None = member()
    buy: int | None = member()
    hold: int | None = member()
    sell: int | None = member()
    strong_sell: int | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class RecommendationsModule:
    """recommendationTrend."""

    trend: list[RecommendationRow] | None = member(
        "Analyst counts per month (`0m` this month, `-1m` the one before)" + _ORDER)
    max_age: int | None = member(MAX_AGE)
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class GradeChangeRow:
    """One rating change of upgradeDowngradeHistory."""

    epoch_grade_date: int | None = member()
    firm: str | None = member()
    to_grade: str | None = member()
    from_grade: str | None = member()
    action: str | None = member()
    price_target_action: str | None = member()
    current_price_target: float | None = member()
    prior_price_target: float | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class UpgradesDowngradesModule:
    """upgradeDowngradeHistory."""

    history: list[GradeChangeRow] | None = member(
        "Rating changes" + _ORDER)
    max_age: int | None = member(MAX_AGE)
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class EarningsEstimateValues:
    """The EPS consensus of one period."""

    avg: float | None = member()
    low: float | None = member()
    high: float | None = member()
    year_ago_eps: float | None = member()
    number_of_analysts: int | None = member()
    growth: float | None = member()
    earnings_currency: str | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class RevenueEstimateValues:
    """The revenue consensus of one period."""

    avg: float | None = member()
    low: float | None = member()
    high: float | None = member()
    number_of_analysts: int | None = member()
    year_ago_revenue: float | None = member()
    growth: float | None = member()
    revenue_currency: str | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class EpsTrendValues:
    """The EPS consensus of one period now and some days ago."""

    current: float | None = member()
    seven_days_ago: float | None = member()
    thirty_days_ago: float | None = member()
    sixty_days_ago: float | None = member()
    ninety_days_ago: float | None = member()
    eps_trend_currency: str | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class EpsRevisionsValues:
    """How many analysts revised one period's EPS estimate up or down lately."""

    up_last7_days: int | None = member()
    up_last30_days: int | None = member()
    down_last7_days: int | None = member()
    down_last30_days: int | None = member()
    down_last90_days: int | None = member()
    eps_revisions_currency: str | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class EstimateRow:
    """One period of earningsTrend."""

    max_age: int | None = member()
    period: str | None = member()
    end_date: str | None = member()
    growth: float | None = member()
    earnings_estimate: EarningsEstimateValues | None = member()
    revenue_estimate: RevenueEstimateValues | None = member()
    eps_trend: EpsTrendValues | None = member()
    eps_revisions: EpsRevisionsValues | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class EarningsEstimateModule:
    """earningsTrend."""

    trend: list[EstimateRow] | None = member(
        "One row per period: its EPS and revenue consensus, the EPS consensus's trend and "
        "its revisions")
    default_methodology: str | None = member(_METHODOLOGY)
    max_age: int | None = member(MAX_AGE)
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class ReportedEarningsRow:
    """One reported quarter of earningsHistory."""

    max_age: int | None = member()
    quarter: int | None = member()
    period: str | None = member()
    currency: str | None = member()
    eps_actual: float | None = member()
    eps_estimate: float | None = member()
    eps_difference: float | None = member()
    surprise_percent: float | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class EarningsHistoryModule:
    """earningsHistory."""

    history: list[ReportedEarningsRow] | None = member(
        "Reported quarters, oldest first (`order=asc`, the default) or newest first "
        "(`order=desc`)")
    default_methodology: str | None = member(_METHODOLOGY)
    max_age: int | None = member(MAX_AGE)
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


# -- the v2 analyst endpoints (their answers' members, declared on the records) -------------
@dataclass(frozen=True)
class GradingAction:
    """One analyst rating action. Blank strings are None: a "" previous grade (an
    initiation) means there was none."""

    date: str | None = member("Day of the action (YYYY-MM-DD, UTC); null when the source "
                              "gives the action no date", schema={"format": "date"})
    symbol: str = member()
    grading_company: str | None = member("The firm that graded")
    new_grade: str | None = member("The grade after the action")
    previous_grade: str | None = member("The grade before it; null when there was none (an "
                                        "initiation)")


@dataclass(frozen=True)
class PriceTargetConsensus:
    """The analysts' price targets of a stock, in its trading currency, as the source sends
    them (an integer stays one); None where the source has no value."""

    symbol: str = member()
    target_consensus: float | None = member("Mean analyst price target")
    target_high: float | None = member("Highest analyst price target")
    target_low: float | None = member("Lowest analyst price target")
    target_median: float | None = member("Median analyst price target")


# The price target summary's windows, in days back from now (None: every target).
SUMMARY_PERIODS = ("lastMonth", "lastQuarter", "lastYear", "allTime")
SUMMARY_WINDOWS: dict[str, int | None] = {"lastMonth": 30, "lastQuarter": 90,
                                          "lastYear": 365, "allTime": None}
DAY_SECONDS = 86400


@dataclass(frozen=True)
class TargetWindow:
    """How many price targets a window holds and their mean (None when it holds none)."""

    count: int | None
    average: float | None


_MONTH, _QUARTER, _YEAR, _ALL = ("the last 30 days", "the last 90 days", "the last 365 days",
                                 "all time")
_COUNT, _MEAN = "Price targets published in", "Mean of the price targets published in"
_NONE = "null when there are none"


@dataclass(frozen=True)
class PriceTargetSummary:
    """Published price targets per window (:data:`SUMMARY_PERIODS`, in that order): how
    many, and their mean (None when the window holds none)."""

    symbol: str = member()
    last_month_count: int | None = member(f"{_COUNT} {_MONTH}")
    last_month_avg: float | None = member(f"{_MEAN} {_MONTH}; {_NONE}")
    last_quarter_count: int | None = member(f"{_COUNT} {_QUARTER}")
    last_quarter_avg: float | None = member(f"{_MEAN} {_QUARTER}; {_NONE}")
    last_year_count: int | None = member(f"{_COUNT} {_YEAR}")
    last_year_avg: float | None = member(f"{_MEAN} {_YEAR}; {_NONE}")
    all_time_count: int | None = member(f"{_COUNT} {_ALL}")
    all_time_avg: float | None = member(f"{_MEAN} {_ALL}; {_NONE}")

    @classmethod
    def from_windows(cls, symbol: str,
                     windows: Mapping[str, TargetWindow]) -> PriceTargetSummary:
        """The summary of one window per :data:`SUMMARY_PERIODS` entry."""
        values: list[Any] = []
        for period in SUMMARY_PERIODS:
            values += (windows[period].count, windows[period].average)
        return cls(symbol, *values)


def summarize_targets(symbol: str, targets: list[tuple[datetime, float]],
                      at: float) -> PriceTargetSummary:
    """Counts and means of dated ``targets`` per window, measured back from ``at`` (Unix
    seconds), for a source that sends the targets rather than the summary: an entry counts
    in a window of N days when it is at most N x 86,400 seconds older than ``at`` (entries
    dated after ``at`` count everywhere). Means are rounded half up to 2 decimals."""
    windows: dict[str, TargetWindow] = {}
    for period in SUMMARY_PERIODS:
        days = SUMMARY_WINDOWS[period]
        chosen = [value for when, value in targets
                  if days is None or at - when.timestamp() <= days * DAY_SECONDS]
        windows[period] = TargetWindow(
            len(chosen), round_half_up(sum(chosen) / len(chosen), 2) if chosen else None)
    return PriceTargetSummary.from_windows(symbol, windows)


# -- earnings surprises from the keyed sources ----------------------------------------------
def _surprise(actual: Decimal | None, estimate: Decimal | None,
              sent: Decimal | None) -> Decimal | None:
    if sent is not None:
        return sent
    return None if actual is None or estimate is None else actual - estimate


def surprise_fraction(surprise: Decimal | None,
                      estimate: Decimal | None) -> float | None:
    """surprise / |estimate| as a fraction (0.037037 is 3.7037 %), to 6 decimals; None when
    either is missing or the estimate is 0."""
    if surprise is None or estimate is None or estimate == 0:
        return None
    return float(round(surprise / abs(estimate), 6))


def reported_quarter(actual: Decimal | None, estimate: Decimal | None,
                     surprise: Decimal | None, percent: Decimal | None,
                     when: datetime) -> EarningsSurprise:
    """One reported quarter as the record: the surprise as sent, else actual - estimate
    (exact in decimals); the surprise percent (``percent``, in percent units) as a
    fraction, else derived from the surprise."""
    surprise = _surprise(actual, estimate, surprise)
    fraction = (float(percent / 100) if percent is not None
                else surprise_fraction(surprise, estimate))
    return EarningsSurprise(date=when, eps_actual=None if actual is None else float(actual),
                            eps_estimate=None if estimate is None else float(estimate),
                            surprise=None if surprise is None else float(surprise),
                            surprise_percent=fraction)
