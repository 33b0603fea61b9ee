"""Analyst data from v10 quoteSummary modules: recommendation trend, rating changes, price
targets (financialData), earnings and revenue estimates (earningsTrend), earnings history
and ESG scores.

Each analysis type asks for exactly one module: Yahoo answers a module it has no data for
with a 404 ("No fundamentals data found for any of the summaryTypes=..."), so "no data" is
never a guess, and the cache keeps one entry per (symbol, module), so the earnings and
revenue estimates share one upstream call. Parsers take the module body and accept both
bare numbers and ``{raw, fmt}`` objects (Yahoo mixes them even with ``formatted=false``).

v2 serves a module as Yahoo sends it, only with every ``{raw, fmt, longFmt}`` object reduced
to its raw value: :func:`plain` / :func:`raw_module` do that for analysis and holders alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from marketdata.formatting import integer, mapping, number, raw, rows, text, utc_datetime
from marketdata.providers.yahoo.quote_summary import fetch_module

RECOMMENDATION_TREND = "recommendationTrend"
UPGRADE_DOWNGRADE_HISTORY = "upgradeDowngradeHistory"
FINANCIAL_DATA = "financialData"
EARNINGS_TREND = "earningsTrend"
EARNINGS_HISTORY = "earningsHistory"
ESG_SCORES = "esgScores"

# Yahoo's rating-change codes -> the spec's words: `action` is "upgrade or downgrade", so
# only the two moves have one; every other code (main, init, reit, anything new) is None.
ACTIONS = {"up": "upgrade", "down": "downgrade"}

# The members of Yahoo's formatted values ({raw, fmt, longFmt}); an object made only of these
# (or empty: Yahoo's {} for a missing value) is a value, not a structure.
_FORMATTED_KEYS = frozenset({"raw", "fmt", "longFmt"})

# Strings pass through as Yahoo sends them ("" stays "": an empty fromGrade means none).
_as_sent = partial(text, clean=False)


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
        """False for Yahoo's placeholders: zeros with numberOfAnalysts 0, or nothing at all."""
        if self.number_of_analysts == 0:
            return False
        return any(v is not None for v in (self.avg, self.low, self.high))


@dataclass(frozen=True)
class TrendPeriod:
    """One earningsTrend row: "0q"/"+1q" (quarters), "0y"/"+1y" (fiscal years)."""

    period: str | None
    end_date: str | None  # YYYY-MM-DD; Yahoo leaves it null on rows it has no calendar for
    earnings: Estimate
    revenue: Estimate


@dataclass(frozen=True)
class EarningsSurprise:
    date: datetime | None  # end of the fiscal quarter
    eps_actual: float | None
    eps_estimate: float | None
    surprise: float | None
    surprise_percent: float | None  # a fraction, as Yahoo sends it: 0.0205 is 2.05%


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





# -- raw values (v2: the module as Yahoo sends it, numbers unformatted) -----------------------
def plain(value: Any) -> Any:
    """``value`` with every ``{raw, fmt, longFmt}`` object, at any depth, reduced to its raw
    value, so v2 clients get one number per member whichever way Yahoo chose to send it.

    Yahoo's empty object ``{}`` (its "no value") and NaN become None; keys, order, strings
    (``""`` included) and bare numbers are kept exactly as sent.
    """
    if isinstance(value, dict):
        if value.keys() <= _FORMATTED_KEYS:
            return raw(value)
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return raw(value)


def raw_module(module: Any) -> dict[str, Any]:
    """A module body with its values reduced by :func:`plain`; ``{}`` when it is not an
    object (Yahoo left it out)."""
    return {key: plain(value) for key, value in mapping(module).items()}


# -- parsers (module body -> typed values) ----------------------------------------------------
def parse_recommendation_trend(module: Any) -> list[Recommendation]:
    return [Recommendation(period=_as_sent(row.get("period")),
                           strong_buy=integer(row.get("strongBuy")), buy=integer(row.get("buy")),
                           hold=integer(row.get("hold")), sell=integer(row.get("sell")),
                           strong_sell=integer(row.get("strongSell")))
            for row in rows(mapping(module).get("trend"))]


def grade_action(code: Any) -> str | None:
    """Yahoo's ``up``/``down`` as the spec's words (upgrade, downgrade); None otherwise."""
    if not isinstance(code, str):
        return None
    return ACTIONS.get(code.strip().lower())


def parse_upgrade_downgrade_history(module: Any) -> list[GradeChange]:
    """Rating changes, newest first as Yahoo lists them. Strings pass through as sent
    (``fromGrade`` is "" on an initiation); absent ones are None."""
    return [GradeChange(firm=_as_sent(row.get("firm")), to_grade=_as_sent(row.get("toGrade")),
                        from_grade=_as_sent(row.get("fromGrade")),
                        action=grade_action(row.get("action")),
                        date=utc_datetime(row.get("epochGradeDate")))
            for row in rows(mapping(module).get("history"))]


def parse_price_targets(module: Any) -> PriceTargets:
    data = mapping(module)
    return PriceTargets(current=number(data.get("currentPrice")),
                        mean=number(data.get("targetMeanPrice")),
                        median=number(data.get("targetMedianPrice")),
                        low=number(data.get("targetLowPrice")),
                        high=number(data.get("targetHighPrice")))


def _estimate(block: Any, year_ago_key: str, currency_key: str) -> Estimate:
    data = mapping(block)
    return Estimate(avg=number(data.get("avg")), low=number(data.get("low")),
                    high=number(data.get("high")),
                    number_of_analysts=integer(data.get("numberOfAnalysts")),
                    year_ago=number(data.get(year_ago_key)), growth=number(data.get("growth")),
                    currency=_as_sent(data.get(currency_key)))


def _end_date(value: Any) -> str | None:
    moment = utc_datetime(value)
    return None if moment is None else moment.strftime("%Y-%m-%d")


def parse_earnings_trend(module: Any) -> list[TrendPeriod]:
    """Every row in Yahoo's order (current quarter, next quarter, current year, next year,
    sometimes -5y/+5y growth rows without an end date)."""
    return [TrendPeriod(period=_as_sent(row.get("period")), end_date=_end_date(row.get("endDate")),
                        earnings=_estimate(row.get("earningsEstimate"), "yearAgoEps",
                                           "earningsCurrency"),
                        revenue=_estimate(row.get("revenueEstimate"), "yearAgoRevenue",
                                          "revenueCurrency"))
            for row in rows(mapping(module).get("trend"))]


def parse_earnings_history(module: Any) -> list[EarningsSurprise]:
    """Reported quarters, oldest first as Yahoo lists them."""
    return [EarningsSurprise(date=utc_datetime(row.get("quarter")),
                             eps_actual=number(row.get("epsActual")),
                             eps_estimate=number(row.get("epsEstimate")),
                             surprise=number(row.get("epsDifference")),
                             surprise_percent=number(row.get("surprisePercent")))
            for row in rows(mapping(module).get("history"))]


def parse_esg_scores(module: Any) -> EsgScores:
    data = mapping(module)
    return EsgScores(environment_score=number(data.get("environmentScore")),
                     social_score=number(data.get("socialScore")),
                     governance_score=number(data.get("governanceScore")),
                     total_esg=number(data.get("totalEsg")))


# -- fetch (through the cache) ----------------------------------------------------------------
def fetch_analysis_module(symbol: str, module: str) -> dict[str, Any]:
    """One module for a validated symbol, cached under the analysis policy."""
    return fetch_module(symbol, module, policy="analysis", group="analysis")


def fetch_recommendation_trend(symbol: str) -> list[Recommendation]:
    return parse_recommendation_trend(fetch_analysis_module(symbol, RECOMMENDATION_TREND))


def fetch_upgrade_downgrade_history(symbol: str) -> list[GradeChange]:
    return parse_upgrade_downgrade_history(
        fetch_analysis_module(symbol, UPGRADE_DOWNGRADE_HISTORY))


def fetch_price_targets(symbol: str) -> PriceTargets:
    return parse_price_targets(fetch_analysis_module(symbol, FINANCIAL_DATA))


def fetch_earnings_trend(symbol: str) -> list[TrendPeriod]:
    return parse_earnings_trend(fetch_analysis_module(symbol, EARNINGS_TREND))


def fetch_earnings_history(symbol: str) -> list[EarningsSurprise]:
    return parse_earnings_history(fetch_analysis_module(symbol, EARNINGS_HISTORY))


def fetch_esg_scores(symbol: str) -> EsgScores:
    return parse_esg_scores(fetch_analysis_module(symbol, ESG_SCORES))
