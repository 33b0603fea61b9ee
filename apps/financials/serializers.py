"""Query declarations and response schemas of the financial statement endpoints (v1, v2)."""

from __future__ import annotations

from typing import Any

from apps.core.params import QuerySerializer, TextParam, choice
from apps.core.shapes import record_schema
from apps.core.v2 import FieldsQuery, SymbolsParam
from apps.financials.services import FREQUENCY_ALIASES, STATEMENT_ALIASES, StatementsBatch
from marketdata.records.fundamentals import (
    FREQUENCIES,
    STATEMENT_FIELDS,
    STATEMENTS,
    V2_FREQUENCIES,
    PeriodValue,
    StatementRow,
    SymbolStatement,
)


class FinancialsQuery(QuerySerializer):
    statement = choice(STATEMENTS, help_text="Which statement: income statement, balance sheet "
                       "or cash flow. Required: the three are different resources")
    frequency = choice(FREQUENCIES, required=False, default="annual",
                       help_text="Reporting period: annual (fiscal years) or quarterly")


FINANCIALS_EXAMPLE = {
    "symbol": "AAPL", "statement_type": "income", "frequency": "annual",
    "statement": {
        "2024-09-30": {"Total Revenue": 391035000000, "Cost Of Revenue": 210352000000,
                       "Gross Profit": 180683000000, "Net Income": 93736000000,
                       "Diluted EPS": 6.08, "EBITDA": 134661000000},
        "2023-09-30": {"Total Revenue": 383285000000, "Cost Of Revenue": 214137000000,
                       "Gross Profit": 169148000000, "Net Income": 96995000000,
                       "Diluted EPS": 6.13, "EBITDA": 125820000000},
    },
}


# -- v2 -----------------------------------------------------------------------------------------
class V2FinancialsQuery(FieldsQuery):
    frequency = choice((*V2_FREQUENCIES, *FREQUENCY_ALIASES), required=False,
                       default="annual",
                       help_text="Reporting period: `annual` (fiscal years; also `yearly`, "
                                 "`year`), `quarterly` (also `quarter`, `q`) or `trailing` "
                                 "(the last twelve months; income and cash flow only)")
    metrics = TextParam(
        required=False,
        help_text="Comma-separated metric names to keep (Yahoo's names, e.g. "
                  "`TotalRevenue,NetIncome`; any case); every metric of the statement when "
                  "absent. Only a filter: rows stay in the statement's order. A name the "
                  "statement does not have is a 400 naming it. The metrics, in order: "
                  + "; ".join(f"**{statement}**: " + ", ".join(f"`{name}`" for name in names)
                              for statement, names in STATEMENT_FIELDS.items()))


class V2FinancialsBatchQuery(V2FinancialsQuery):
    symbols = SymbolsParam(help_text="Comma-separated symbols (at most 50)")
    statement = choice((*STATEMENTS, *STATEMENT_ALIASES),
                       help_text="Which statement: `income` (also `income-statement`), "
                                 "`balance` (also `balance-sheet`) or `cashflow` (also "
                                 "`cash`, `cash-flow`)")


# The rows' members are declared on their records (marketdata.records.fundamentals); a member
# holding a list of records is an array there, its items the records' objects here.
_ROW = record_schema(StatementRow)["properties"]
STATEMENT_ROW = record_schema(
    StatementRow, "One metric of the statement and its value per period",
    nested={"values": {**_ROW["values"], "items": record_schema(PeriodValue)}})
V2_STATEMENT_RESPONSE: dict[str, Any] = {
    **record_schema(SymbolStatement)["properties"]["statement"], "items": STATEMENT_ROW}
_BATCH = record_schema(StatementsBatch)["properties"]
V2_STATEMENTS_BATCH_RESPONSE = record_schema(StatementsBatch, nested={
    "financials": {"type": "array", "description": _BATCH["financials"]["description"],
                   "items": record_schema(
                       SymbolStatement, nested={"statement": V2_STATEMENT_RESPONSE})}})
