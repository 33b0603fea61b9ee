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

Fetchers of the capability table (query -> cached module -> record): :func:`analysis_data`
(``analysis``), :func:`grading_actions`, :func:`target_consensus` and
:func:`target_summary` (the keyless sources of the v2 analyst capabilities).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from marketdata.errors import NotFound
from marketdata.formatting import integer, mapping, number, raw, rows, text, utc_datetime
from marketdata.providers.yahoo.quote_summary import fetch_module
from marketdata.records.analysts import (
    EarningsSurprise,
    EsgScores,
    Estimate,
    GradeChange,
    GradingAction,
    PriceTargetConsensus,
    PriceTargets,
    PriceTargetSummary,
    Recommendation,
    TrendPeriod,
    summarize_targets,
)
from marketdata.records.fundamentals import (
    EARNINGS_HISTORY,
    EARNINGS_TREND,
    ESG_SCORES,
    FINANCIAL_DATA,
    RECOMMENDATION_TREND,
    UPGRADE_DOWNGRADE_HISTORY,
    ModuleData,
)

# Yahoo's rating-change codes -> the spec's words: `action` is "upgrade or downgrade", so
# only the two moves have one; every other code (main, init, reit, anything new) is None.
ACTIONS = {"up": "upgrade", "down": "downgrade"}

# The members of Yahoo's formatted values ({raw, fmt, longFmt}); an object made only of these
# (or empty: Yahoo's {} for a missing value) is a value, not a structure.
_FORMATTED_KEYS = frozenset({"raw", "fmt", "longFmt"})

# Strings pass through as Yahoo sends them ("" stays "": an empty fromGrade means none).
_as_sent = partial(text, clean=False)


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


def fetch_upgrade_downgrade_history(symbol: str) -> list[GradeChange]:
    return parse_upgrade_downgrade_history(
        fetch_analysis_module(symbol, UPGRADE_DOWNGRADE_HISTORY))


def fetch_price_targets(symbol: str) -> PriceTargets:
    return parse_price_targets(fetch_analysis_module(symbol, FINANCIAL_DATA))


# -- fetchers (the capability table's) --------------------------------------------------------
def read_module(body: dict[str, Any], reader: Callable[[Any], Any], members: bool) -> ModuleData:
    """A module body as its record, with its raw members when ``members`` (v2)."""
    return ModuleData(reader(body), raw_module(body) if members else None)


# The record each analysis module is read into.
READERS: dict[str, Callable[[Any], Any]] = {
    RECOMMENDATION_TREND: parse_recommendation_trend,
    UPGRADE_DOWNGRADE_HISTORY: parse_upgrade_downgrade_history,
    FINANCIAL_DATA: parse_price_targets,
    EARNINGS_TREND: parse_earnings_trend,
    EARNINGS_HISTORY: parse_earnings_history,
    ESG_SCORES: parse_esg_scores,
}


def analysis_data(symbol: str, module: str, *, members: bool = False) -> ModuleData:
    """The ``analysis`` fetcher: one module of a validated symbol; NotFound when Yahoo has
    no such symbol or no data for the module."""
    return read_module(fetch_analysis_module(symbol, module), READERS[module], members)


def earnings_surprises(symbol: str) -> list[EarningsSurprise]:
    """The ``earnings_surprises`` fetcher: the reported quarters of earningsHistory, newest
    first (the module's cache entry, shared with the analysis endpoints); NotFound when
    Yahoo has none."""
    history = parse_earnings_history(fetch_analysis_module(symbol, EARNINGS_HISTORY))
    dated = [row for row in history if row.date is not None]
    if not dated:
        raise NotFound(f"No earnings surprises data found for {symbol}")
    return sorted(dated, key=lambda row: row.date or 0, reverse=True)


def grading_actions(symbol: str) -> list[GradingAction]:
    """The ``grading_actions`` fetcher: the rating changes newest first whatever order
    Yahoo used (undated ones last; the sort is stable); NotFound when there are none."""
    changes = sorted(fetch_upgrade_downgrade_history(symbol),
                     key=lambda c: c.date.timestamp() if c.date else float("-inf"),
                     reverse=True)
    if not changes:
        raise NotFound(f"No grading actions for {symbol}")
    return [GradingAction(c.date.strftime("%Y-%m-%d") if c.date else None, symbol,
                          text(c.firm), text(c.to_grade), text(c.from_grade))
            for c in changes]


def target_consensus(symbol: str) -> PriceTargetConsensus:
    """The ``price_target_consensus`` fetcher: financialData's targets; NotFound when it
    has none."""
    targets = fetch_price_targets(symbol)
    if not targets.has_targets:
        raise NotFound(f"No price target consensus for {symbol}")
    return PriceTargetConsensus(symbol, targets.mean, targets.high, targets.low,
                                targets.median)


def now() -> float:
    """The wall clock the summary windows are measured from (tests replace it)."""
    return time.time()


def dated_targets(module: Any) -> list[tuple[datetime, float]]:
    """(when, target) of every rating change in ``upgradeDowngradeHistory`` that carries a
    price target: ``currentPriceTarget`` > 0 and a readable ``epochGradeDate`` (rows
    without a target, with 0, or undated are left out)."""
    out = []
    for row in rows(mapping(module).get("history")):
        target = number(row.get("currentPriceTarget"))
        when = utc_datetime(row.get("epochGradeDate"))
        if target is not None and target > 0 and when is not None:
            out.append((when, target))
    return out


def target_summary(symbol: str) -> PriceTargetSummary:
    """The ``price_target_summary`` fetcher: computed from the rating changes' price
    targets (Yahoo has no summary), windows measured back from :func:`now`; NotFound when
    no change carries a target."""
    targets = dated_targets(fetch_analysis_module(symbol, UPGRADE_DOWNGRADE_HISTORY))
    if not targets:
        raise NotFound(f"No price target summary for {symbol}")
    return summarize_targets(symbol, targets, now())
