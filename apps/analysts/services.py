"""v2 analyst data: grading actions, price target consensus, price target summary, earnings
surprises.

Each endpoint is one capability (:mod:`marketdata.capabilities.analysts`): Financial Modeling
Prep when ``FMP_API_KEY`` is set (its refusal of the key, or any upstream failure, falls
back), else Yahoo Finance's quoteSummary modules (``upgradeDowngradeHistory`` and
``financialData``: one cache entry per symbol and module, shared with ``/v1/analysis`` and
``/v2/analysis``). Whatever the source, the records have one shape, and they declare their
answers' members (:mod:`marketdata.records.analysts`); "no data" is a 404 like an unknown
symbol. The earnings surprises' record is shared with the analysis endpoints, which show it
otherwise: their answer here is :class:`ReportedQuarter`.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from apps.core.symbols import require_symbol
from marketdata.capabilities import analysts
from marketdata.records.analysts import (
    EarningsSurprise,
    GradingAction,
    PriceTargetConsensus,
    PriceTargetSummary,
)
from marketdata.records.members import member


def grading_actions(symbol_text: str) -> list[GradingAction]:
    """The rating actions on a stock, newest first."""
    return analysts.grading_actions(require_symbol(symbol_text))


def price_target_consensus(symbol_text: str) -> PriceTargetConsensus:
    return analysts.price_target_consensus(require_symbol(symbol_text))


def price_target_summary(symbol_text: str) -> PriceTargetSummary:
    return analysts.price_target_summary(require_symbol(symbol_text))


def _percent(fraction: float | None) -> float | None:
    """A fraction as percent units, exact in its decimals (0.0205 -> 2.05)."""
    return None if fraction is None else float(Decimal(repr(fraction)) * 100)


@dataclass(frozen=True)
class ReportedQuarter:
    """One reported quarter of ``/v2/earnings-surprises``: an :class:`EarningsSurprise` with
    its symbol, its day as text and the surprise in percent units."""

    symbol: str = member()
    # Sources list dated quarters only, so the schema says a string.
    date: str | None = member("End of the quarter reported, `YYYY-MM-DD`",
                              schema={"type": "string", "format": "date"})
    actual_eps: float | None = member()
    estimated_eps: float | None = member()
    surprise: float | None = member("actualEps - estimatedEps, as the source rounds it "
                                    "(derived when it sends none)")
    surprise_percent: float | None = member("Percent units: 2.05 is 2.05 %")

    @classmethod
    def of(cls, symbol: str, row: EarningsSurprise) -> ReportedQuarter:
        return cls(symbol, row.date.date().isoformat() if row.date else None, row.eps_actual,
                   row.eps_estimate, row.surprise, _percent(row.surprise_percent))


@dataclass(frozen=True)
class EarningsSurprises:
    """The answer: the reported quarters, newest first (the view orders them)."""

    surprises: list[ReportedQuarter] = member()


def earnings_surprises(symbol_text: str) -> EarningsSurprises:
    symbol = require_symbol(symbol_text)
    return EarningsSurprises([ReportedQuarter.of(symbol, row)
                              for row in analysts.earnings_surprises(symbol)])
