"""GET /v1/stream/quotes: Server-Sent Events of simple quotes for the requested symbols."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request

from apps.core.params import symbol_list
from apps.core.routing import route
from apps.core.schema import UPSTREAM_503, error_responses
from apps.core.views import ApiView
from apps.quotes.serializers import SymbolsQuery
from apps.quotes.services import no_quotes_found, stream_quotes
from apps.ratelimit import limits
from apps.stream import admission
from apps.stream.services import ReaderWatch, quote_events
from marketdata.errors import MarketDataError

EVENT_STREAM = "text/event-stream"
# The server's view of the stream's connection (config.protocol), when it offers one.
CONNECTION_EXTENSION = "marketdata.connection"
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}

_DESCRIPTION = """\
Server-Sent Events. The first `quote` event is sent at once; after that one event every
`STREAM_INTERVAL_SECONDS` (10 by default) from the connection's own start, with the latest
quotes of the shared pollers.

- `event: quote` / `data:` a JSON array of `{symbol, name, price, change, percentChange}`
  (plus `logo` when known), one item per resolved symbol, in request order. A symbol whose
  update failed keeps its last quote and is named in the `error` event that follows.
- `event: error` / `data:` `{detail, status, symbols, [provider, code]}` when an upstream
  update fails; the stream stays open and the update is retried.
- `: keep-alive` comment lines when nothing else was sent for `STREAM_HEARTBEAT_SECONDS`.

Symbols are upper-cased, deduplicated, order kept; unknown or malformed symbols are left
out. 422 when `symbols` is missing, empty or lists more than 50 symbols; 404 when none
resolve; 429 when the client's address already holds `STREAM_MAX_CONNECTIONS_PER_ADDRESS`
(100) open streams in this server process, WebSockets included. These errors are JSON
whatever the `Accept` header says. A client that stops reading is dropped once its
receive buffer is full and what was written to it has waited `RESPONSE_WRITE_TIMEOUT_SECONDS`
(30) untaken."""


class StreamNeedsAsgi(MarketDataError):
    status_code = 503
    code = "stream_needs_asgi"


class StreamUnavailable(serializers.Serializer):
    """The stream's 503: an upstream failure (with ``provider`` and ``code``, as on every
    v1 endpoint) or a server that cannot stream (``detail`` only)."""

    detail = serializers.CharField()
    provider = serializers.CharField(required=False, help_text="Upstream failures: which "
                                                               "upstream provider failed")
    code = serializers.CharField(required=False, help_text="Upstream failures: "
                                 "upstream_unavailable | upstream_timeout | ...")


class StreamRefused(serializers.Serializer):
    """The stream's own 429s (the daily quota's has ``rate_limit_info`` instead of ``code``)."""

    detail = serializers.CharField()
    code = serializers.CharField(help_text="upstream_rate_limited | too_many_streams")
    provider = serializers.CharField(required=False, help_text="Upstream failures: which "
                                                               "upstream provider failed")


@route("v1/stream/quotes", name="stream-quotes")
class QuoteStreamView(ApiView):
    query_serializer = SymbolsQuery

    def perform_content_negotiation(self, request: Request, force: bool = False):
        # The 200 is a StreamingHttpResponse that DRF passes through untouched, so a renderer
        # only ever writes error bodies, always JSON. Negotiating would refuse browsers'
        # EventSource (Accept: text/event-stream) with a 406.
        renderer = self.get_renderers()[0]
        return renderer, renderer.media_type

    @extend_schema(operation_id="stream_quotes", tags=["Quotes"], summary="Quote stream (SSE)",
                   description=_DESCRIPTION, parameters=[SymbolsQuery],
                   responses={(200, EVENT_STREAM): OpenApiResponse(
                       OpenApiTypes.STR, description="An endless `text/event-stream`"),
                       **error_responses(404, 422, upstream=True),
                       429: OpenApiResponse(StreamRefused, description=(
                           "Upstream rate limited us (`code: upstream_rate_limited`, with "
                           "`provider`); or this address holds "
                           "`STREAM_MAX_CONNECTIONS_PER_ADDRESS` open streams already "
                           "(`code: too_many_streams`)")),
                       503: OpenApiResponse(StreamUnavailable, description=(
                           f"{UPSTREAM_503}; or the service runs under a WSGI server, which "
                           "cannot hold an endless response (`detail` only)"))})
    def get(self, request: Request) -> HttpResponse:
        symbols = symbol_list(request.query_params.get("symbols"),
                              max_items=settings.QUOTES_MAX_SYMBOLS)
        if request.method == "HEAD":
            return self.head_answer(symbols)
        # A place among the address's open streams, before any upstream call (else 429).
        lease = admission.admit(limits.client_ip(request.META))
        try:
            initial = self.initial_quotes(symbols)
            if not isinstance(request._request, ASGIRequest):
                # Under a WSGI server an endless body would hold a worker thread forever.
                raise StreamNeedsAsgi("The quote stream needs the ASGI server; start the "
                                      "service with bin/serve (make run)")
        except BaseException:
            lease.release()
            raise
        connection = request._request.scope.get("extensions", {}).get(CONNECTION_EXTENSION)
        events = quote_events(list(initial), initial,
                              interval=float(settings.STREAM_INTERVAL_SECONDS),
                              heartbeat=float(settings.STREAM_HEARTBEAT_SECONDS),
                              on_close=lease.release,
                              reader=ReaderWatch(connection, float(
                                  settings.RESPONSE_WRITE_TIMEOUT_SECONDS)))
        response = StreamingHttpResponse(events, content_type=EVENT_STREAM,
                                         headers=STREAM_HEADERS)
        # Also when the body is never iterated (the client left before it started).
        response._resource_closers.append(lease.release)
        return response

    def head_answer(self, symbols: list[str]) -> HttpResponse:
        self.initial_quotes(symbols)  # the statuses a GET would answer
        return HttpResponse(content_type=EVENT_STREAM, headers=STREAM_HEADERS)

    @staticmethod
    def initial_quotes(symbols: list[str]) -> dict[str, dict[str, Any]]:
        initial = stream_quotes(symbols)
        if not initial:
            raise no_quotes_found(symbols)
        return initial


def websocket_docs(request: HttpRequest) -> HttpResponse:
    """``GET /docs/websockets``: the WebSocket streams' frame protocol (OpenAPI describes
    HTTP operations only)."""
    return render(request, "stream/websockets.html",
                  {"title": settings.SPECTACULAR_SETTINGS["TITLE"]})
