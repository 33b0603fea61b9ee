"""Financial statements: one statement per request (v1: metric names made readable, periods
newest first; v2: one row per metric in the statement's order, periods oldest first, as
records that declare their members: :mod:`marketdata.records.fundamentals`), and v2's
batch."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from apps.core.symbols import require_symbol
from marketdata.capabilities import fundamentals
from marketdata.concurrency import batch_by_symbol
from marketdata.errors import BadRequest, NotFound
from marketdata.records.batches import Batch
from marketdata.records.fundamentals import (
    FREQUENCIES,
    STATEMENT_FIELDS,
    STATEMENTS,
    TRAILING_STATEMENTS,
    StatementRow,
    SymbolStatement,
    display_name,
    statement_rows,
)
from marketdata.records.members import DOUBLE, member

# v2 spellings a client may use for a statement or a frequency, and what they name.
STATEMENT_ALIASES = {"income-statement": "income", "balance-sheet": "balance",
                     "cash": "cashflow", "cash-flow": "cashflow"}
FREQUENCY_ALIASES = {"yearly": "annual", "year": "annual", "quarter": "quarterly",
                     "q": "quarterly"}


@dataclass(frozen=True)
class StatementsBatch(Batch):
    """The batch's answer, around the records of :mod:`marketdata.records.fundamentals`."""

    items: list[SymbolStatement] = member("One entry per served symbol, in request order",
                                          name="financials")


@dataclass(frozen=True)
class FinancialStatement:
    """The v1 FinancialStatement: one statement, periods newest first, metrics by their
    readable names (:func:`~marketdata.records.fundamentals.display_name`)."""

    symbol: str = member("The symbol, upper-cased")
    statement_type: str = member(name="statement_type", schema={"enum": list(STATEMENTS)})
    frequency: str = member(schema={"enum": list(FREQUENCIES)})
    statement: dict[str, dict[str, float]] = member(
        "Period end date (YYYY-MM-DD, newest first) -> metric name -> number. Amounts are in "
        "the company's reporting currency; integral values are integers, per-share values "
        "(EPS) decimals",
        schema={"additionalProperties": {"type": "object",
                                         "additionalProperties": {"type": "number", **DOUBLE}}})


def financial_statement(symbol_text: str, statement: str,
                        frequency: str) -> FinancialStatement:
    """The v1 FinancialStatement of a symbol."""
    symbol = require_symbol(symbol_text)
    periods = fundamentals.financial_statement(symbol, statement, frequency)
    return FinancialStatement(symbol, statement, frequency, {
        end: {display_name(field): value for field, value in metrics.items()}
        for end, metrics in periods.items()})


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


def v2_statement(symbol_text: str, statement: str, frequency: str,
                 metrics_text: str | None = None) -> list[StatementRow]:
    """One statement of one symbol as v2 rows; 404 for a malformed or unknown symbol and
    when nothing is reported (or none of the asked metrics)."""
    statement, frequency, metrics = statement_query(statement, frequency, metrics_text)
    return _rows(require_symbol(symbol_text), statement, frequency, metrics)


def _rows(symbol: str, statement: str, frequency: str,
          metrics: Collection[str] | None) -> list[StatementRow]:
    rows = statement_rows(fundamentals.financial_statement(symbol, statement, frequency),
                          statement, metrics)
    if not rows:
        raise NotFound(f"No {statement} data found for {symbol}")
    return rows


def v2_statements_batch(symbols: Sequence[str], statement: str, frequency: str,
                        metrics_text: str | None = None,
                        ) -> StatementsBatch:
    """Each served symbol's statement and ``[{symbol, message}]``, both in request order."""
    statement, frequency, metrics = statement_query(statement, frequency, metrics_text)
    served, errors = batch_by_symbol(
        lambda s: SymbolStatement(s, _rows(require_symbol(s), statement, frequency, metrics)),
        symbols, None, what="financial statements")
    return StatementsBatch(served, errors)
