from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.tabular import Table
from apps.core.views import ApiView
from apps.historical.serializers import HISTORICAL_RESPONSE, HistoricalQuery
from apps.historical.services import historical_prices
from marketdata.records.members import as_json


@route("v1/historical", name="historical")
class HistoricalView(ApiView):
    csv_table = Table(key="date")
    query_serializer = HistoricalQuery

    @extend_schema(
        operation_id="get_historical",
        tags=["Historical prices"],
        summary="Historical OHLCV prices",
        description=(
            "Bars keyed by date (`YYYY-MM-DD` for daily and longer intervals, in the "
            "exchange's time zone), by US/Eastern wall time (`YYYY-MM-DD HH:MM:SS`) for "
            "intraday intervals, or by epoch seconds with `epoch=true`; newest first. "
            "Interval/range compatibility: 1m: 1d, 5d; 5m/15m/30m: 1d, 5d, 1mo; 1h: 1d, 5d, "
            "1mo, 3mo, 6mo, ytd, 1y; range max needs interval 1mo. Other combinations: 400."),
        parameters=[HistoricalQuery],
        responses={200: HISTORICAL_RESPONSE,
                   **error_responses(400, 404, 422, upstream=True)},
    )
    def get(self, request: Request) -> Response:
        q = self.query(request)
        return Response(as_json(historical_prices(q["symbol"], q["range"], q["interval"],
                                                  q["epoch"])))
