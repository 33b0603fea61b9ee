"""Query declarations and response schemas of the financial statement endpoints (v1, v2)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from apps.core.params import QuerySerializer, TextParam, choice
from apps.core.v2 import ERRORS_SCHEMA, FieldsQuery, SymbolsParam, object_schema
from apps.financials.services import FREQUENCY_ALIASES, STATEMENT_ALIASES
from marketdata.records.fundamentals import (
    FREQUENCIES,
    STATEMENT_FIELDS,
    STATEMENTS,
    V2_FREQUENCIES,
)


class FinancialsQuery(QuerySerializer):
    statement = choice(STATEMENTS, help_text="Which statement: income statement, balance sheet "
                       "or cash flow. Required: the three are different resources")
    frequency = choice(FREQUENCIES, required=False, default="annual",
                       help_text="Reporting period: annual (fiscal years) or quarterly")


class FinancialStatement(serializers.Serializer):
    symbol = serializers.CharField(help_text="The symbol, upper-cased")
    statement_type = serializers.ChoiceField(choices=list(STATEMENTS))
    frequency = serializers.ChoiceField(choices=list(FREQUENCIES))
    statement = serializers.DictField(
        child=serializers.DictField(child=serializers.FloatField()),
        help_text="Period end date (YYYY-MM-DD, newest first) -> metric name -> number. "
                  "Amounts are in the company's reporting currency; integral values are "
                  "integers, per-share values (EPS) decimals")


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


_VALUE = object_schema({"date": {"type": "string", "format": "date",
                                 "description": "Period end, YYYY-MM-DD"},
                        "value": {"type": "number", "description": "In the company's "
                                  "reporting currency; per-share values (EPS) decimals, "
                                  "share counts integers"}},
                       required=("date", "value"))
STATEMENT_ROW = object_schema({
    "metric": {"type": "string", "description": "Yahoo's metric name, e.g. `TotalRevenue`"},
    "values": {"type": "array", "items": _VALUE, "description": "Oldest period first"},
}, "One metric of the statement and its value per period", required=("metric", "values"))
V2_STATEMENT_RESPONSE: dict[str, Any] = {
    "type": "array", "items": STATEMENT_ROW,
    "description": "The statement's metrics in the statement's order (top line first)"}
V2_STATEMENTS_BATCH_RESPONSE = object_schema({
    "financials": {"type": "array", "description": "One entry per served symbol, in request "
                                                   "order",
                   "items": object_schema({"symbol": {"type": "string"},
                                           "statement": V2_STATEMENT_RESPONSE},
                                          required=("symbol", "statement"))},
    "errors": ERRORS_SCHEMA,
}, required=("financials", "errors"))
