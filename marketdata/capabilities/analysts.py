"""Analyst data of the v2 endpoints: grading actions, price target consensus, price target
summary, earnings surprises.

Sources: Financial Modeling Prep when ``FMP_API_KEY`` is set, else (and when FMP refuses
the key or fails) Yahoo Finance (Alpha Vantage too, with its key, for earnings surprises).
Whatever the source the record is the same, and any source's "not found" (unknown symbol,
no such data) is one message per capability (``not_found``): the preferred source's "not
found" ends the search, so the message must not depend on which source said it. Callers
pass validated symbols.
"""

from __future__ import annotations

from marketdata.capabilities.table import YAHOO, Source, declare, fmp_source
from marketdata.records.analysts import (
    EarningsSurprise,
    GradingAction,
    PriceTargetConsensus,
    PriceTargetSummary,
)

ANALYSIS = "marketdata.providers.yahoo.analysis"


@declare("grading_actions", "Grading actions (/v2/grading-actions/{symbol})",
         fmp_source("grading_actions"),
         Source("yahoo", f"{YAHOO} upgradeDowngradeHistory", fetcher=f"{ANALYSIS}:grading_actions"),
         not_found="No grading actions data found for {symbol}")
def grading_actions(symbol: str) -> list[GradingAction]:
    """The analysts' rating actions on a stock, newest first."""


@declare("price_target_consensus", "Price target consensus (/v2/price-target-consensus/{symbol})",
         fmp_source("target_consensus"),
         Source("yahoo", f"{YAHOO} financialData targets", fetcher=f"{ANALYSIS}:target_consensus"),
         not_found="No price target data found for {symbol}")
def price_target_consensus(symbol: str) -> PriceTargetConsensus:
    """The analysts' price target consensus of a stock."""


@declare("price_target_summary", "Price target summary (/v2/price-target-summary/{symbol})",
         fmp_source("target_summary"),
         Source("yahoo", f"{YAHOO} rating-change price targets",
                fetcher=f"{ANALYSIS}:target_summary"),
         not_found="No price target data found for {symbol}")
def price_target_summary(symbol: str) -> PriceTargetSummary:
    """How many price targets a stock received, and their mean, per window."""


@declare("earnings_surprises", "Earnings surprises (/v2/earnings-surprises/{symbol})",
         fmp_source("earnings_surprises"),
         Source("alphavantage", "Alpha Vantage EARNINGS", "ALPHAVANTAGE_API_KEY",
                fetcher="marketdata.providers.alphavantage:earnings_surprises"),
         Source("yahoo", f"{YAHOO} earningsHistory", fetcher=f"{ANALYSIS}:earnings_surprises"),
         primary_share=0.5, not_found="No earnings surprises data found for {symbol}")
def earnings_surprises(symbol: str) -> list[EarningsSurprise]:
    """Reported quarters of a stock, newest first: the EPS reported, the estimate, and the
    surprise."""
