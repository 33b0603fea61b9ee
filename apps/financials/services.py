"""Financial statements: one statement per request (v1: metric names made readable, periods
newest first; v2: one row per metric in the statement's order, periods oldest first), and
v2's batch."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.capabilities import fundamentals
from marketdata.concurrency import batch_by_symbol
from marketdata.errors import BadRequest, NotFound
from marketdata.records.fundamentals import (
    STATEMENT_FIELDS,
    TRAILING_STATEMENTS,
    Statement,
    display_name,
)

# v2 spellings a client may use for a statement or a frequency, and what they name.
STATEMENT_ALIASES = {"income-statement": "income", "balance-sheet": "balance",
                     "cash": "cashflow", "cash-flow": "cashflow"}
FREQUENCY_ALIASES = {"yearly": "annual", "year": "annual", "quarter": "quarterly",
                     "q": "quarterly"}
V2_MEMBERS = ("metric", "values")


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


def statement_query(statement: str, frequency: str,
                    metrics_text: str | None) -> tuple[str, str, frozenset[str] | None]:
    """``(statement, frequency, metrics)`` with aliases resolved and the metrics checked
    against the statement's list (any case in, Yahoo's spelling out; None: all). A bad
    combination is a 400 naming every unknown metric, before any upstream call."""
    statement = STATEMENT_ALIASES.get(statement, statement)
    frequency = FREQUENCY_ALIASES.get(frequency, frequency)
    if frequency == "trailing" and statement not in TRAILING_STATEMENTS:
        raise BadRequest("frequency: trailing is only for the income and cash flow "
                         "statements: a balance sheet is a point in time")
    if metrics_text is None:
        return statement, frequency, None
    known = {name.lower(): name for name in STATEMENT_FIELDS[statement]}
    wanted = [part.strip() for part in metrics_text.split(",") if part.strip()]
    unknown = [name for name in wanted if name.lower() not in known]
    if unknown or not wanted:
        named = ", ".join(f"'{name}'" for name in unknown) or f"'{metrics_text}'"
        raise BadRequest(f"metrics: unknown metric{'s' if len(unknown) > 1 else ''} for the "
                         f"{statement} statement: {named}. Metrics: "
                         + ", ".join(STATEMENT_FIELDS[statement]))
    return statement, frequency, frozenset(known[name.lower()] for name in wanted)


def statement_rows(periods: Statement, statement: str,
                   metrics: Collection[str] | None) -> list[dict[str, Any]]:
    """``[{metric, values: [{date, value}]}]``: metrics in the statement's order (Yahoo's
    answer has none; ``metrics`` only filters, so one statement always reads the same way),
    each one's periods oldest first; a metric without any value is left out."""
    dates = sorted(periods)
    return [{"metric": field,
             "values": [{"date": day, "value": periods[day][field]} for day in dates
                        if field in periods[day]]}
            for field in STATEMENT_FIELDS[statement]
            if (metrics is None or field in metrics)
            and any(field in values for values in periods.values())]


def v2_statement(symbol_text: str, statement: str, frequency: str,
                 metrics_text: str | None = None) -> list[dict[str, Any]]:
    """One statement of one symbol as v2 rows; 404 for a malformed or unknown symbol and
    when nothing is reported (or none of the asked metrics)."""
    statement, frequency, metrics = statement_query(statement, frequency, metrics_text)
    return _rows(require_symbol(symbol_text), statement, frequency, metrics)


def _rows(symbol: str, statement: str, frequency: str,
          metrics: Collection[str] | None) -> list[dict[str, Any]]:
    rows = statement_rows(fundamentals.financial_statement(symbol, statement, frequency),
                          statement, metrics)
    if not rows:
        raise NotFound(f"No {statement} data found for {symbol}")
    return rows


def v2_statements_batch(symbols: Sequence[str], statement: str, frequency: str,
                        metrics_text: str | None = None,
                        ) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """``[{symbol, statement}]`` and ``[{symbol, message}]``, both in request order."""
    statement, frequency, metrics = statement_query(statement, frequency, metrics_text)
    return batch_by_symbol(
        lambda s: _rows(require_symbol(s), statement, frequency, metrics), symbols,
        "statement", what="financial statements")
