"""Analysis: one quoteSummary module per analysis type, shaped as the spec's AnalysisData.

Every response carries all seven members with only the requested one filled (the others
null), so clients see one stable shape. A type with no data (Yahoo's 404 for the module, or
a module with nothing in it) is a 404, like an unknown symbol; a missing field inside the
data is null.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.errors import NotFound
from marketdata.formatting import json_ready
from marketdata.providers.yahoo import analysis as yahoo_analysis
from marketdata.providers.yahoo.analysis import Estimate, TrendPeriod

ANALYSIS_TYPES = ("recommendations", "upgrades_downgrades", "price_targets",
                  "earnings_estimate", "revenue_estimate", "earnings_history", "sustainability")
# The reference implementation's sub-route names (/v1/analysis/{symbol}/{name}) -> type.
ALIASES = {"upgrades-downgrades": "upgrades_downgrades", "price-targets": "price_targets",
           "earnings-estimate": "earnings_estimate", "revenue-estimate": "revenue_estimate",
           "earnings-history": "earnings_history"}
_LABELS = {"upgrades_downgrades": "upgrades/downgrades"}



def _no_data(analysis_type: str, symbol: str) -> NotFound:
    label = _LABELS.get(analysis_type, analysis_type.replace("_", " "))
    return NotFound(f"No {label} data found for {symbol}")


def _recommendations(symbol: str) -> list[dict[str, Any]] | None:
    return [json_ready(r) for r in yahoo_analysis.fetch_recommendation_trend(symbol)] or None


def _upgrades_downgrades(symbol: str) -> list[dict[str, Any]] | None:
    return [json_ready(r) for r in yahoo_analysis.fetch_upgrade_downgrade_history(symbol)] or None


def _price_targets(symbol: str) -> dict[str, Any] | None:
    targets = yahoo_analysis.fetch_price_targets(symbol)
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


def _earnings_estimate(symbol: str) -> dict[str, Any] | None:
    found = estimates(yahoo_analysis.fetch_earnings_trend(symbol), "earnings")
    return {"estimates": found} if found else None


def _revenue_estimate(symbol: str) -> dict[str, Any] | None:
    found = estimates(yahoo_analysis.fetch_earnings_trend(symbol), "revenue")
    return {"estimates": found} if found else None


def _earnings_history(symbol: str) -> list[dict[str, Any]] | None:
    return [json_ready(r) for r in yahoo_analysis.fetch_earnings_history(symbol)] or None


def _sustainability(symbol: str) -> dict[str, Any] | None:
    esg = yahoo_analysis.fetch_esg_scores(symbol)
    if not esg.has_scores:
        return None
    return {"scores": {"environmentScore": esg.environment_score,
                       "socialScore": esg.social_score,
                       "governanceScore": esg.governance_score, "totalEsg": esg.total_esg}}


_MEMBERS: dict[str, Callable[[str], Any]] = {
    "recommendations": _recommendations,
    "upgrades_downgrades": _upgrades_downgrades,
    "price_targets": _price_targets,
    "earnings_estimate": _earnings_estimate,
    "revenue_estimate": _revenue_estimate,
    "earnings_history": _earnings_history,
    "sustainability": _sustainability,
}


def analysis_data(symbol_text: str, analysis_type: str) -> dict[str, Any]:
    """AnalysisData for one type: 404 for a malformed or unknown symbol and for no data."""
    symbol = require_symbol(symbol_text)
    try:
        member = _MEMBERS[analysis_type](symbol)
    except NotFound:
        raise _no_data(analysis_type, symbol) from None
    if member is None:
        raise _no_data(analysis_type, symbol)
    body: dict[str, Any] = {"symbol": symbol, "analysis_type": analysis_type}
    body.update((name, None) for name in ANALYSIS_TYPES)
    body[analysis_type] = member
    return body
