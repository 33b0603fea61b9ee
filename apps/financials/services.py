"""Financial statements: one statement per request, metric names made readable."""

from __future__ import annotations

from typing import Any

from apps.core.symbols import require_symbol
from marketdata.capabilities import fundamentals
from marketdata.records.fundamentals import display_name


def financial_statement(symbol_text: str, statement: str, frequency: str) -> dict[str, Any]:
    """The v1 FinancialStatement: periods newest first, each {metric name: number}."""
    symbol = require_symbol(symbol_text)
    periods = fundamentals.financial_statement(symbol, statement, frequency)
    return {
        "symbol": symbol,
        "statement_type": statement,
        "frequency": frequency,
        "statement": {end: {display_name(field): value for field, value in metrics.items()}
                      for end, metrics in periods.items()},
    }
