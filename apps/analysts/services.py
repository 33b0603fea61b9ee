"""v2 analyst data: grading actions, price target consensus, price target summary.

Each endpoint is one capability (:mod:`marketdata.capabilities.analysts`): Financial Modeling
Prep when ``FMP_API_KEY`` is set (its refusal of the key, or any upstream failure, falls
back), else Yahoo Finance's quoteSummary modules (``upgradeDowngradeHistory`` and
``financialData``: one cache entry per symbol and module, shared with ``/v1/analysis`` and
``/v2/analysis``). Whatever the source, the records have one shape, shaped here into the
spec's members; "no data" is a 404 like an unknown symbol.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from apps.analysts.serializers import GRADING_ACTION_MEMBERS, SUMMARY_PERIODS
from apps.core.symbols import require_symbol
from marketdata.capabilities import analysts


def grading_actions(symbol_text: str) -> list[dict[str, Any]]:
    """``[{date, symbol, gradingCompany, newGrade, previousGrade}]`` newest first."""
    return [dict(zip(GRADING_ACTION_MEMBERS, (a.date, a.symbol, a.grading_company,
                                              a.new_grade, a.previous_grade), strict=True))
            for a in analysts.grading_actions(require_symbol(symbol_text))]


def price_target_consensus(symbol_text: str) -> dict[str, Any]:
    """``{symbol, targetConsensus, targetHigh, targetLow, targetMedian}``."""
    consensus = analysts.price_target_consensus(require_symbol(symbol_text))
    return {"symbol": consensus.symbol, "targetConsensus": consensus.consensus,
            "targetHigh": consensus.high, "targetLow": consensus.low,
            "targetMedian": consensus.median}


def price_target_summary(symbol_text: str) -> dict[str, Any]:
    """``{symbol, lastMonthCount, lastMonthAvg, lastQuarterCount, lastQuarterAvg,
    lastYearCount, lastYearAvg, allTimeCount, allTimeAvg}``."""
    summary = analysts.price_target_summary(require_symbol(symbol_text))
    out: dict[str, Any] = {"symbol": summary.symbol}
    for period in SUMMARY_PERIODS:
        window = summary.windows[period]
        out[f"{period}Count"] = window.count
        out[f"{period}Avg"] = window.average
    return out


def _percent(fraction: float | None) -> float | None:
    """A fraction as percent units, exact in its decimals (0.0205 -> 2.05)."""
    return None if fraction is None else float(Decimal(repr(fraction)) * 100)


def earnings_surprises(symbol_text: str) -> dict[str, Any]:
    """``{surprises: [{symbol, date, actualEps, estimatedEps, surprise, surprisePercent}]}``,
    newest first."""
    symbol = require_symbol(symbol_text)
    return {"surprises": [
        {"symbol": symbol, "date": row.date.date().isoformat() if row.date else None,
         "actualEps": row.eps_actual, "estimatedEps": row.eps_estimate,
         "surprise": row.surprise, "surprisePercent": _percent(row.surprise_percent)}
        for row in analysts.earnings_surprises(symbol)]}
