from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.schema import error_responses
from apps.core.shapes import record_output, v1_component
from apps.core.v2 import REVERSE, V2ApiView, order_note
from apps.core.views import ApiView
from apps.transcripts.serializers import (
    EARNINGS_TRANSCRIPT_RESPONSE,
    TRANSCRIPT_RESPONSE,
    TRANSCRIPTS_ALL_RESPONSE,
    EarningsTranscriptQuery,
    V2EarningsTranscriptQuery,
    V2TranscriptQuery,
    V2TranscriptsAllQuery,
)
from apps.transcripts.services import (
    CallText,
    EarningsTranscript,
    ListedCall,
    TranscriptDocument,
    earnings_transcript,
    v2_all_transcripts,
    v2_earnings_transcript,
    v2_transcript,
)
from marketdata.records.members import as_json

_DESCRIPTION = (
    "Earnings-call transcripts from Yahoo Finance (fiscal quarters and years, as the company "
    "reports them). Without `quarter` and `year`: the latest call that has a transcript. "
    "With both: that call. With `year` only: every call of that fiscal year, newest first. "
    "With `quarter` only: the most recent call of that quarter. `transcripts` is never "
    "empty. 404 when the symbol is unknown or malformed, has no earnings calls (funds, "
    "indices, crypto), or no call matches. 422 when `quarter` is not Q1-Q4 (any case) or "
    "`year` is not an integer from 1990 to the current year + 1."
)


@route("v1/earnings-transcript/<str:symbol>", name="earnings-transcript")
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
        responses={200: v1_component(EarningsTranscript),
                   **error_responses(404, 422, upstream=True)},
    )
    def get(self, request: Request, symbol: str) -> Response:
        q = self.query(request)
        return Response(as_json(earnings_transcript(symbol, q.get("quarter"), q.get("year"))))


# -- v2 ----------------------------------------------------------------------------------------
TAG = "Earnings transcripts (v2)"
_SELECTION = (
    "`quarter` and `year` are fiscal, as Yahoo labels the calls. Neither: the latest call "
    "that has a transcript (up to two older calls are tried when the newest has none yet); "
    "both: that call; `quarter` only: the most recent call of that quarter; `year` only: "
    "the latest call of that year.")
_ERRORS = (
    "400 when `quarter` is not Q1-Q4 (any case), `year` not an integer from 1990 to the "
    "current year + 1, or a parameter is malformed; 404 when the symbol is malformed or "
    "unknown, has no earnings calls (funds, ETFs, indices, crypto), no listed call matches "
    "`quarter`/`year`, or the call has no transcript; 502/503/504/429 name the provider "
    "that failed.")
_LANG = "`lang` is validated and otherwise ignored: nothing is translated."


@route("v2/earnings-transcript/<str:symbol>", name="v2-earnings-transcript")
class V2EarningsTranscriptView(V2ApiView):
    __doc__ = f"""One earnings call's transcript as plain text: `{{symbol, quarter, year,
    date, text}}`.

    From Yahoo Finance (its earnings-calls page, the company's transcript-supplier id from
    `v1/finance/quoteType`, then `xhr/transcript`). {_SELECTION} `quarter` and `year` are
    the transcript's own labels; `date` is the time of the call (ISO 8601, UTC); `text` is
    the whole transcript as Yahoo sends it, without speaker labels (`/v2/transcripts/{{symbol}}`
    has the speakers). `fields` selects members. {_ERRORS}"""

    query_serializer = V2EarningsTranscriptQuery
    response_schema = EARNINGS_TRANSCRIPT_RESPONSE
    output = record_output(CallText)
    operation_id, tag = "get_v2_earnings_transcript", TAG
    summary = "Earnings-call transcript as text"

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        return self.answer(v2_earnings_transcript(symbol, q.get("quarter"), q.get("year")))


@route("v2/transcripts/<str:symbol>", name="v2-transcript")
class V2TranscriptView(V2ApiView):
    __doc__ = f"""One earnings call's transcript document: `{{transcriptContent,
    transcriptMetadata}}`.

    Yahoo's transcript document with camelCase member names: the content (supplier company
    id, event id, format version, the speaker mapping, and the transcript's speaker count
    and full text; the per-paragraph and per-word timings are left out) and the metadata
    (call time and last revision in Unix seconds, fiscal period and year, title, transcript
    id, type and storage URL, whether it is the company's latest call). {_SELECTION}
    {_LANG} `fields` selects the two members. {_ERRORS}"""

    query_serializer = V2TranscriptQuery
    response_schema = TRANSCRIPT_RESPONSE
    output = record_output(TranscriptDocument)
    operation_id, tag = "get_v2_transcript", TAG
    summary = "Earnings-call transcript document"

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        return self.answer(v2_transcript(symbol, q.get("quarter"), q.get("year")))


@route("v2/transcripts/<str:symbol>/all", name="v2-transcripts-all")
class V2TranscriptsAllView(V2ApiView):
    __doc__ = f"""Every earnings call Yahoo lists for a company, newest first, each with
    its transcript document: `[{{eventId, quarter, year, title, url, transcript}}]`.

    `transcript` is what `/v2/transcripts/{{symbol}}` answers for that call. The
    transcripts are fetched concurrently (through the shared, bounded upstream pool); a
    call whose transcript cannot be had (not out yet, or its fetch failed) is left out.
    With neither `cursor` nor `limit`: the bare array of every listed call. With either: a
    connection `{{edges, nodes, pageInfo}}` of the next `limit` calls, and only those
    calls' transcripts are fetched; cursors are the calls' places in the listing, so a
    page may hold fewer than `limit` items. {_LANG} `fields` applies to each item. 404
    also when no transcript of the page could be had; when that is because of upstream
    failures, the failure's status. 400 for a bad `cursor`, `limit` or `order`, before any
    upstream call. {_ERRORS}

    """ + order_note("desc", "calls (by fiscal year and quarter)")

    query_serializer = V2TranscriptsAllQuery
    response_schema = TRANSCRIPTS_ALL_RESPONSE
    output = record_output(ListedCall)
    operation_id, tag = "get_v2_transcripts_all", TAG
    summary = "Every earnings call with its transcript"

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        answer = v2_all_transcripts(symbol, q.get("cursor"), q.get("limit"), q[REVERSE])
        if isinstance(answer, list):
            return self.answer(answer)
        # A page of the calls: `fields` applies to its nodes (in `edges` and `nodes`).
        nodes = self.output.apply(as_json(answer["nodes"]), q)
        edges = [{**edge, "node": node} for edge, node in zip(answer["edges"], nodes,
                                                              strict=True)]
        return Response({**answer, "edges": edges, "nodes": nodes})
