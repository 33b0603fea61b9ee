from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.schema import error_responses
from apps.core.views import ApiView
from apps.transcripts.serializers import EarningsTranscript, EarningsTranscriptQuery
from apps.transcripts.services import earnings_transcript

_DESCRIPTION = (
    "Earnings-call transcripts from Yahoo Finance (fiscal quarters and years, as the company "
    "reports them). Without `quarter` and `year`: the latest call that has a transcript. "
    "With both: that call. With `year` only: every call of that fiscal year, newest first. "
    "With `quarter` only: the most recent call of that quarter. `transcripts` is never "
    "empty. 404 when the symbol is unknown or malformed, has no earnings calls (funds, "
    "indices, crypto), or no call matches. 422 when `quarter` is not Q1-Q4 (any case) or "
    "`year` is not an integer from 1990 to the current year + 1."
)


class EarningsTranscriptView(ApiView):
    query_serializer = EarningsTranscriptQuery

    @extend_schema(
        operation_id="get_earnings_transcript",
        tags=["Earnings transcripts"],
        summary="Earnings-call transcript",
        description=_DESCRIPTION,
        parameters=[
            OpenApiParameter("symbol", OpenApiTypes.STR, OpenApiParameter.PATH,
                             description="Stock symbol, e.g. AAPL (case-insensitive)"),
            EarningsTranscriptQuery,
        ],
        responses={200: EarningsTranscript, **error_responses(404, 422, upstream=True)},
    )
    def get(self, request: Request, symbol: str) -> Response:
        q = self.query(request)
        return Response(earnings_transcript(symbol, q.get("quarter"), q.get("year")))
