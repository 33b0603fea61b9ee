from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.errors import ERRORS
from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.shapes import record_output, v1_component
from apps.core.tabular import Table
from apps.core.v2 import V2ApiView
from apps.core.views import ApiView
from apps.financials.serializers import (
    FINANCIALS_EXAMPLE,
    V2_STATEMENT_RESPONSE,
    V2_STATEMENTS_BATCH_RESPONSE,
    FinancialsQuery,
    V2FinancialsBatchQuery,
    V2FinancialsQuery,
)
from apps.financials.services import (
    STATEMENT_ALIASES,
    FinancialStatement,
    financial_statement,
    v2_statement,
    v2_statements_batch,
)
from marketdata.records.fundamentals import STATEMENTS, StatementRow
from marketdata.records.members import as_json

V2_TAG = "Financial statements (v2)"

_DESCRIPTION = (
    "Income statement, balance sheet or cash flow for a stock, keyed by period end date "
    "(`YYYY-MM-DD`, newest first); each period maps metric names to numbers in the company's "
    "reporting currency. Metric names are Yahoo Finance's field names split into words "
    "(`TotalRevenue` -> `Total Revenue`, `NormalizedEBITDA` -> `Normalized EBITDA`); a metric "
    "with no value in a period is left out of that period. Yahoo usually has four to five "
    "fiscal years and the last five to six quarters. 404 when there is no data for the "
    "symbol (unknown symbols, funds, indices, crypto). 422 when `statement` is missing or a "
    "value is invalid.")


@route("v1/financials/<str:symbol>", name="financials")
class FinancialsView(ApiView):
    query_serializer = FinancialsQuery
    error_style = ERRORS

    @extend_schema(
        operation_id="get_financials",
        tags=["Financial statements"],
        summary="Financial statement",
        description=_DESCRIPTION,
        parameters=[
            OpenApiParameter("symbol", OpenApiTypes.STR, OpenApiParameter.PATH,
                             description="Stock symbol, e.g. AAPL, 0700.HK, HSBA.L"),
            FinancialsQuery,
        ],
        responses={200: v1_component(FinancialStatement),
                   **error_responses(404, 422, upstream=True, style=ERRORS)},
        examples=[OpenApiExample("AAPL annual income statement (abridged)",
                                 value=FINANCIALS_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, symbol: str) -> Response:
        q = self.query(request)
        return Response(as_json(financial_statement(symbol, q["statement"], q["frequency"])))


@route("v2/financials/<str:symbol>/<str:statement>", name="v2-financials")
class V2FinancialsView(V2ApiView):
    """One financial statement of a stock: `[{metric, values: [{date, value}]}]`.

    From Yahoo's fundamentals time series over the last ten years: `income`, `balance` or
    `cashflow` (aliases `income-statement`, `balance-sheet`, `cash`, `cash-flow`) by
    `frequency` (`annual` fiscal years, `quarterly`, or `trailing`: the last twelve months,
    income and cash flow only). Metrics always come in the statement's order (top line
    first, Yahoo's names: `TotalRevenue`, `NetIncome`, `DilutedEPS`, ...; `metrics` only
    filters), each with its periods oldest first (`date` the period end); a metric without
    any value is left out. Amounts are in the company's reporting currency. 404 when nothing
    is reported (unknown symbols, ETFs and other funds, indices, crypto); 400 for an unknown
    statement, frequency or metric, or `trailing` with the balance sheet, before any upstream
    call. `fields` applies to each row (`metric`, `values`). Not paged."""

    query_serializer = V2FinancialsQuery
    path_choices = {"statement": (*STATEMENTS, *STATEMENT_ALIASES)}
    path_descriptions = {"statement": "Which statement: `income` (also `income-statement`), "
                                      "`balance` (also `balance-sheet`) or `cashflow` (also "
                                      "`cash`, `cash-flow`)"}
    response_schema = V2_STATEMENT_RESPONSE
    csv_table = Table(each="values", carry=("metric",))
    output = record_output(StatementRow)
    operation_id, tag = "get_financials_v2", V2_TAG
    summary = "Financial statement of a stock"

    def get(self, request: Request, symbol: str, statement: str) -> Response:
        q = self.params
        return self.answer(v2_statement(symbol, statement, q["frequency"], q.get("metrics")))


@route("v2/financials", name="v2-financials-batch")
class V2FinancialsBatchView(V2ApiView):
    """One financial statement of many stocks: `{financials: [{symbol, statement}],
    errors}`.

    Each `statement` as `/v2/financials/{symbol}/{statement}` gives it, items in request
    order (duplicates removed). Symbols that cannot be served are listed in `errors`; when
    none can be served because of an upstream failure, that failure's status is returned.
    `fields` applies to each row (`symbol` and `statement` are always present). Not
    paged."""

    query_serializer = V2FinancialsBatchQuery
    response_schema = V2_STATEMENTS_BATCH_RESPONSE
    output = record_output(StatementRow, at=("financials", "statement"))
    operation_id, tag = "get_financials_batch", V2_TAG
    summary = "Financial statement of many stocks"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(v2_statements_batch(q["symbols"], q["statement"], q["frequency"],
                                               q.get("metrics")))
