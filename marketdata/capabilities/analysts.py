"""Analyst data of the v2 endpoints: grading actions, price target consensus, price target
summary.

Sources (the rows of the same names in :mod:`marketdata.capabilities.table`): Financial
Modeling Prep when ``FMP_API_KEY`` is set, else (and when FMP refuses the key or fails)
Yahoo Finance. Whatever the source the record is the same, and any source's "not found"
(unknown symbol, no such data) is one message per capability: the preferred source's
"not found" ends the search, so the message must not depend on which source said it.
Callers pass validated symbols.
"""

from __future__ import annotations

from typing import Any

from marketdata.capabilities.table import call
from marketdata.errors import NotFound
from marketdata.records.analysts import (
    EarningsSurprise,
    GradingAction,
    PriceTargetConsensus,
    PriceTargetSummary,
)


def _answer(capability: str, what: str, symbol: str) -> Any:
    try:
        return call(capability, symbol)
    except NotFound:
        raise NotFound(f"No {what} data found for {symbol}") from None


def grading_actions(symbol: str) -> list[GradingAction]:
    """The analysts' rating actions on a stock, newest first."""
    actions: list[GradingAction] = _answer("grading_actions", "grading actions", symbol)
    return actions


def price_target_consensus(symbol: str) -> PriceTargetConsensus:
    """The analysts' price target consensus of a stock."""
    consensus: PriceTargetConsensus = _answer("price_target_consensus", "price target", symbol)
    return consensus


def price_target_summary(symbol: str) -> PriceTargetSummary:
    """How many price targets a stock received, and their mean, per window."""
    summary: PriceTargetSummary = _answer("price_target_summary", "price target", symbol)
    return summary


def earnings_surprises(symbol: str) -> list[EarningsSurprise]:
    """Reported quarters of a stock, newest first: the EPS reported, the estimate, and the
    surprise."""
    surprises: list[EarningsSurprise] = _answer("earnings_surprises", "earnings surprises",
                                                symbol)
    return surprises
