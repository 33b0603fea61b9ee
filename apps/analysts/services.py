"""v2 analyst data: grading actions, price target consensus, price target summary.

Each endpoint is one capability of :mod:`marketdata.providers.sources`: Financial Modeling
Prep when ``FMP_API_KEY`` is set (its refusal of the key, or any upstream failure, falls
back), else Yahoo Finance's quoteSummary modules, which the project already fetches and
caches (``upgradeDowngradeHistory`` and ``financialData``: one cache entry per symbol and
module, shared with ``/v1/analysis`` and ``/v2/analysis``).

Whatever the source, the records have one shape, and "no data" is a 404 like an unknown
symbol (a source's "not found" ends the search: the preferred source is the better one).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from apps.analysts.serializers import GRADING_ACTION_MEMBERS, SUMMARY_PERIODS
from apps.core.symbols import require_symbol
from marketdata.errors import NotFound
from marketdata.formatting import mapping, number, round_half_up, rows, text, utc_datetime
from marketdata.providers import fmp, sources
from marketdata.providers.yahoo import analysis as yahoo_analysis

DAY_SECONDS = 86400
# Price-target summary windows, in days before now (None: every entry).
SUMMARY_WINDOWS: dict[str, int | None] = {"lastMonth": 30, "lastQuarter": 90,
                                          "lastYear": 365, "allTime": None}


def now() -> float:
    """The wall clock the summary windows are measured from (tests replace it)."""
    return time.time()


def _no_data(what: str, symbol: str) -> NotFound:
    return NotFound(f"No {what} data found for {symbol}")


def _serve(capability: str, what: str, symbol: str,
           fetchers: dict[str, Callable[[], Any]]) -> Any:
    """The capability's answer; any source's "not found" (unknown symbol, no data) is this
    endpoint's one 404 message."""
    try:
        return sources.serve(capability, fetchers)
    except NotFound:
        raise _no_data(what, symbol) from None


# -- grading actions ----------------------------------------------------------------------
def _grading_action(date: str | None, symbol: str, company: Any, new: Any,
                    previous: Any) -> dict[str, Any]:
    """The spec's member order; blank strings are null (Yahoo's "" fromGrade on an
    initiation means "no grade before")."""
    return dict(zip(GRADING_ACTION_MEMBERS, (date, symbol, text(company), text(new),
                                             text(previous)), strict=True))


def _fmp_grading_actions(symbol: str) -> list[dict[str, Any]]:
    return [_grading_action(row["date"], row["symbol"] or symbol, row["gradingCompany"],
                            row["newGrade"], row["previousGrade"])
            for row in fmp.grades(symbol)]


def _yahoo_grading_actions(symbol: str) -> list[dict[str, Any]]:
    changes = yahoo_analysis.fetch_upgrade_downgrade_history(symbol)
    # Newest first whatever order Yahoo used; undated rows last (sort is stable).
    changes = sorted(changes, key=lambda c: c.date.timestamp() if c.date else float("-inf"),
                     reverse=True)
    out = [_grading_action(c.date.strftime("%Y-%m-%d") if c.date else None, symbol, c.firm,
                           c.to_grade, c.from_grade) for c in changes]
    if not out:
        raise _no_data("grading actions", symbol)
    return out


def grading_actions(symbol_text: str) -> list[dict[str, Any]]:
    """``[{date, symbol, gradingCompany, newGrade, previousGrade}]`` newest first."""
    symbol = require_symbol(symbol_text)
    return _serve("grading_actions", "grading actions", symbol, {
        "fmp": lambda: _fmp_grading_actions(symbol),
        "yahoo": lambda: _yahoo_grading_actions(symbol),
    })


# -- price target consensus ---------------------------------------------------------------
def _yahoo_consensus(symbol: str) -> dict[str, Any]:
    targets = yahoo_analysis.fetch_price_targets(symbol)
    if not targets.has_targets:
        raise _no_data("price target", symbol)
    return {"symbol": symbol, "targetConsensus": targets.mean, "targetHigh": targets.high,
            "targetLow": targets.low, "targetMedian": targets.median}


def price_target_consensus(symbol_text: str) -> dict[str, Any]:
    """``{symbol, targetConsensus, targetHigh, targetLow, targetMedian}``."""
    symbol = require_symbol(symbol_text)
    return _serve("price_target_consensus", "price target", symbol, {
        "fmp": lambda: fmp.price_target_consensus(symbol),
        "yahoo": lambda: _yahoo_consensus(symbol),
    })


# -- price target summary -----------------------------------------------------------------
def dated_targets(module: Any) -> list[tuple[datetime, float]]:
    """(when, target) of every rating change in Yahoo's ``upgradeDowngradeHistory`` that
    carries a price target: ``currentPriceTarget`` > 0 and a readable ``epochGradeDate``
    (rows without a target, with 0, or undated are left out)."""
    out = []
    for row in rows(mapping(module).get("history")):
        target = number(row.get("currentPriceTarget"))
        when = utc_datetime(row.get("epochGradeDate"))
        if target is not None and target > 0 and when is not None:
            out.append((when, target))
    return out


def summarize_targets(symbol: str, targets: list[tuple[datetime, float]],
                      at: float) -> dict[str, Any]:
    """Counts and means of ``targets`` per window, measured back from ``at`` (Unix
    seconds): an entry counts in a window of N days when it is at most N x 86,400 seconds
    older than ``at`` (entries dated after ``at`` count everywhere). Means are rounded half
    up to 2 decimals; a window without entries has count 0 and mean null."""
    out: dict[str, Any] = {"symbol": symbol}
    for period in SUMMARY_PERIODS:
        days = SUMMARY_WINDOWS[period]
        chosen = [value for when, value in targets
                  if days is None or at - when.timestamp() <= days * DAY_SECONDS]
        out[f"{period}Count"] = len(chosen)
        out[f"{period}Avg"] = round_half_up(sum(chosen) / len(chosen), 2) if chosen else None
    return out


def _yahoo_summary(symbol: str) -> dict[str, Any]:
    module = yahoo_analysis.fetch_analysis_module(
        symbol, yahoo_analysis.UPGRADE_DOWNGRADE_HISTORY)
    targets = dated_targets(module)
    if not targets:
        raise _no_data("price target", symbol)
    return summarize_targets(symbol, targets, now())


def price_target_summary(symbol_text: str) -> dict[str, Any]:
    """``{symbol, lastMonthCount, lastMonthAvg, lastQuarterCount, lastQuarterAvg,
    lastYearCount, lastYearAvg, allTimeCount, allTimeAvg}``."""
    symbol = require_symbol(symbol_text)
    return _serve("price_target_summary", "price target", symbol, {
        "fmp": lambda: fmp.price_target_summary(symbol),
        "yahoo": lambda: _yahoo_summary(symbol),
    })

