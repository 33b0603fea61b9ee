from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.errors import ERRORS
from apps.core.schema import error_responses
from apps.core.views import ApiView
from apps.financials.serializers import FINANCIALS_EXAMPLE, FinancialsQuery, FinancialStatement
from apps.financials.services import financial_statement

_DESCRIPTION = (
    "Income statement, balance sheet or cash flow for a stock, keyed by period end date "
    "(`YYYY-MM-DD`, newest first); each period maps metric names to numbers in the company's "
    "reporting currency. Metric names are Yahoo Finance's field names split into words "
    "(`TotalRevenue` -> `Total Revenue`, `NormalizedEBITDA` -> `Normalized EBITDA`); a metric "
    "with no value in a period is left out of that period. Yahoo usually has four to five "
    "fiscal years and the last five to six quarters. 404 when there is no data for the "
    "symbol (unknown symbols, funds, indices, crypto). 422 when `statement` is missing or a "
    "value is invalid.")


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
        responses={200: FinancialStatement,
                   **error_responses(404, 422, upstream=True, style=ERRORS)},
        examples=[OpenApiExample("AAPL annual income statement (abridged)",
                                 value=FINANCIALS_EXAMPLE, response_only=True)],
    )
    def get(self, request: Request, symbol: str) -> Response:
        q = self.query(request)
        return Response(financial_statement(symbol, q["statement"], q["frequency"]))
