"""Ping, /readyz (database and cache round trips), /v1/health (28 service checks, the cache
round trip, the cache counters, the process's circuit breakers), /v2/health (cheap: version
and data-source notices, no upstream call) and the ``/`` index.

The v2 answers are records that describe themselves (:class:`ServiceHealth`, :class:`Pong`);
the v1 shapes stay serializers: their components are named in the v1 document, and the
probes' ``error`` members are absent, not null, when a probe or check succeeds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from django.conf import settings
from django.http import HttpResponse
from django.utils.cache import patch_vary_headers
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

import marketdata
from apps.core.schema import SERVER_ERROR, ErrorDetail
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import FieldsQuery, V2ApiView
from apps.core.views import ApiView
from apps.explorer.views import page_response, prefers_html
from apps.health.checks import CHECKS, HEALTHY, health_report
from apps.health.readiness import readiness
from marketdata import capabilities
from marketdata.records.members import member

_NO_CACHE = {"Cache-Control": "no-cache"}


class PingStatus(serializers.Serializer):
    status = serializers.CharField()
    timestamp = serializers.DateTimeField()


class ProbeStatus(serializers.Serializer):
    status = serializers.ChoiceField(choices=["ok", "failed"])
    latency_ms = serializers.FloatField(help_text="One round trip (or the time to fail)")
    error = serializers.CharField(
        required=False, help_text="Failed probes only: the exception class (details are "
                                  "in the log)")


class ReadinessChecks(serializers.Serializer):
    database = ProbeStatus(help_text="`SELECT 1` on the database")
    cache = ProbeStatus(help_text="Write, read and delete of a probe key in the cache")


class Readiness(serializers.Serializer):
    status = serializers.ChoiceField(choices=["ready", "not_ready"])
    checks = ReadinessChecks()
    failed = serializers.ListField(child=serializers.CharField(),
                                   help_text="Names of the probes that failed ([] when ready)")


class CacheStatus(serializers.Serializer):
    status = serializers.CharField(help_text="healthy | unhealthy")
    latency_ms = serializers.FloatField(help_text="Write, read and delete of a probe key")


class HealthCheck(serializers.Serializer):
    status = serializers.CharField(help_text="succeeded | failed")
    duration_ms = serializers.FloatField()
    error = serializers.CharField(
        required=False, help_text="Failed checks only: a short reason naming the error class "
                                  "('UpstreamTimeout: ... (yahoo)', 'timed out after 8.0 s', "
                                  "'empty answer')")


HealthServices = type("HealthServices", (serializers.Serializer,), {
    "status": serializers.CharField(help_text="'<n>/28 succeeded'"),
    **{check.name: HealthCheck() for check in CHECKS},
})


class StreamStatus(serializers.Serializer):
    connections = serializers.IntegerField(help_text="Open quote streams")
    pollers = serializers.IntegerField(help_text="Active symbols, one poller each")
    leading = serializers.IntegerField(
        help_text="Pollers this process leads (the others' quotes come from another process)")
    subscriptions = serializers.IntegerField(help_text="Symbol subscriptions of open streams")
    interval_seconds = serializers.FloatField()
    pid = serializers.IntegerField(help_text="The process that answered (counts are its own)")


class CircuitStatus(serializers.Serializer):
    provider = serializers.CharField(help_text="Upstream provider (yahoo, algolia)")
    endpoint = serializers.CharField(
        help_text="Upstream endpoint the breaker guards (chart, sector, quoteSummary, search, "
                  "...)")
    state = serializers.ChoiceField(
        choices=["closed", "open", "half_open"],
        help_text="closed: calls go through; open: calls are refused at once (503) after "
                  "consecutive failures, until `retry_in_seconds` runs out; half_open: the "
                  "wait is over and the next call is a trial whose outcome closes or "
                  "re-opens the breaker")
    consecutive_failures = serializers.IntegerField(
        help_text="Failed calls in a row (0 after a success)")
    retry_in_seconds = serializers.FloatField(
        allow_null=True,
        help_text="Open only: seconds until a trial call is let through; null otherwise")


class HealthStatus(serializers.Serializer):
    status = serializers.CharField(help_text="healthy | degraded | unhealthy")
    timestamp = serializers.DateTimeField()
    upstream = serializers.CharField(help_text="live | sandbox")
    cache = CacheStatus()
    services = HealthServices()
    cache_stats = serializers.DictField(
        help_text="{provider: {group: {hit, miss, stale, error}}} counters ({} when the "
                  "cache does not answer)")
    circuits = CircuitStatus(
        many=True,
        help_text="The circuit breakers of the process that answered (each worker process "
                  "has its own), one per provider and upstream endpoint it has called, by "
                  "provider and endpoint; [] before its first upstream call. Informational: "
                  "`status` follows the checks")
    stream = StreamStatus(help_text="The quote stream in the process that answered")


@dataclass(frozen=True)
class ServiceHealth:
    """/v2/health: liveness with the version and the data-source notices."""

    status: str = member("`healthy`: the process answers (no upstream is called)")
    # The moment as /v1/ping writes it (microseconds, `+00:00`), not as_json's datetime form.
    timestamp: str = member("When the answer was made: ISO 8601, UTC",
                            schema={"format": "date-time"})
    version: str = member("The service's version")
    notices: list[str] = member("Data-source attributions and disclaimers")


@dataclass(frozen=True)
class Pong:
    """/v2/ping's answer."""

    message: Literal["pong"] = member("Always `pong`", default="pong")


YAHOO_NOTICE = (
    "Market data (quotes, charts, movers, indices, sectors, news, analysis, holders, "
    "financial statements, earnings-call transcripts) comes from Yahoo Finance "
    "(https://finance.yahoo.com). It may be delayed or inaccurate, is provided for "
    "information only and is not investment advice; its use is subject to Yahoo's terms.")
SANDBOX_NOTICE = (
    "Sandbox mode: every value is synthetic, generated by this service's deterministic "
    "simulator; none of it is real market data.")


def _now() -> str:
    return datetime.now(UTC).isoformat()


def notices() -> list[str]:
    """Attributions for the providers the service uses now, and which source serves each
    v2 capability (keyed or keyless); the sandbox warning first."""
    out = [YAHOO_NOTICE, *capabilities.notices()]
    if settings.MARKETDATA_UPSTREAM == "sandbox":
        out.insert(0, SANDBOX_NOTICE)
    return out


class PingView(ApiView):
    @extend_schema(operation_id="ping", tags=["Health"], summary="Liveness",
                   responses={200: PingStatus})
    def get(self, request: Request) -> Response:
        return Response({"status": "healthy", "timestamp": _now()},
                        headers={"Cache-Control": "no-cache, no-store, must-revalidate"})


_READYZ_DESCRIPTION = (
    "Readiness probe for load balancers and orchestrators: 200 when the database and the "
    "cache backend each answer one round trip, 503 naming the probes that failed "
    "otherwise. No upstream provider is called (milliseconds), it is never rate-limited "
    "and never cached. `/v1/ping` is the liveness probe; `/v1/health` the upstream report.")


class ReadyzView(ApiView):
    @extend_schema(operation_id="readyz", tags=["Health"], summary="Readiness",
                   description=_READYZ_DESCRIPTION, responses={200: Readiness, 503: Readiness})
    def get(self, request: Request) -> Response:
        ready, body = readiness()
        return Response(body, status=200 if ready else 503,
                        headers={"Cache-Control": "no-store"})


_HEALTH_DESCRIPTION = (
    "Runs the 28 service checks concurrently (each the call an endpoint makes, through the "
    "data cache, with fixed symbols: NVDA, QQQ, GTLOX, AAPL), within "
    "`HEALTH_CHECK_TIMEOUT_SECONDS` (default 8) in all, plus a real cache round trip. A "
    "check succeeds when it returns a non-empty answer; otherwise it is `failed` with an "
    "`error` reason (a check still running at the deadline: `timed out after 8.0 s`). Always "
    "200. `status`: `healthy` when the cache answers and all 28 succeeded; `unhealthy` when "
    "no upstream-backed check succeeded (Market Hours is computed locally and does not "
    "count); otherwise `degraded`. `circuits` lists the answering process's circuit breakers "
    "(per worker process; read without any upstream call) and does not change `status`.")


class HealthView(ApiView):
    @extend_schema(operation_id="health", tags=["Health"], summary="Health",
                   description=_HEALTH_DESCRIPTION,
                   responses={200: HealthStatus,
                              500: OpenApiResponse(ErrorDetail, description=SERVER_ERROR)})
    def get(self, request: Request) -> Response:
        return Response(health_report(), headers=_NO_CACHE)


class V2HealthView(V2ApiView):
    """Liveness with the service version and the data-source notices (no upstream call).
    `fields` selects members (`status`, `timestamp`, `version`, `notices`)."""

    query_serializer = FieldsQuery
    response_schema = record_schema(ServiceHealth)
    output = record_output(ServiceHealth)
    operation_id, tag, summary = "get_health", "Health (v2)", "Health"

    def get(self, request: Request) -> Response:
        return self.answer(ServiceHealth(HEALTHY, _now(), marketdata.__version__, notices()),
                           headers=_NO_CACHE)


class V2PingView(V2ApiView):
    """Liveness in the v2 style: `{"message": "pong"}` (no upstream call, no cache; also
    answered while upstreams are down)."""

    query_serializer = FieldsQuery
    # Not required, as the hand-written schema had it (the document's message admits null).
    response_schema = record_schema(Pong, required=False, example={"message": "pong"})
    output = record_output(Pong)
    operation_id, tag, summary = "get_ping", "Health (v2)", "Ping"

    def get(self, request: Request) -> Response:
        return self.answer(Pong(), headers=_NO_CACHE)


# The service index at ``/``: where the documentation and the probes are.
INDEX_LINKS = {
    "docs": "/docs",
    "redoc": "/redoc",
    "websockets": "/docs/websockets",
    "openapi": "/openapi.json",
    "health": "/v1/health",
    "ping": "/v1/ping",
    "readyz": "/readyz",
    "metrics": "/metrics",
    "explorer": "/explorer",
}


class IndexLinks(serializers.Serializer):
    """The index's links (one declared member per :data:`INDEX_LINKS` entry)."""

    docs = serializers.CharField(help_text="Swagger UI")
    redoc = serializers.CharField(help_text="ReDoc")
    websockets = serializers.CharField(help_text="The WebSocket streams' frame protocol")
    openapi = serializers.CharField(help_text="This OpenAPI document")
    health = serializers.CharField(help_text="The upstream report")
    ping = serializers.CharField(help_text="Liveness")
    readyz = serializers.CharField(help_text="Readiness")
    metrics = serializers.CharField(help_text="Prometheus metrics")
    explorer = serializers.CharField(help_text="The explorer page for people (HTML)")


class ServiceIndex(serializers.Serializer):
    name = serializers.CharField(help_text="The service's title")
    version = serializers.CharField(help_text="The service's version")
    upstream = serializers.ChoiceField(choices=["live", "sandbox"],
                                       help_text="Where the data comes from (`X-Data-Source`)")
    links = IndexLinks()


class IndexView(ApiView):
    """``GET /``: a small JSON index instead of a 404, for whoever opens the root URL. A
    DRF view so that the OpenAPI document describes it like every other answer. A browser
    (``Accept`` ranking HTML above JSON) gets the explorer page instead."""

    # No OPTIONS here: PageOptionsMiddleware answers it for the pages outside the API.
    http_method_names = ["get", "head"]

    def perform_content_negotiation(self, request: Request, force: bool = False) -> Any:
        # Always JSON, whatever a browser's Accept says (a 406 would be no index).
        renderer = self.get_renderers()[0]
        return renderer, renderer.media_type

    @extend_schema(operation_id="index", tags=["Health"], summary="Service index",
                   description="The service's name, version and data source, and where the "
                               "documentation and the probes are. No upstream call; never "
                               "rate-limited. A client whose `Accept` ranks `text/html` "
                               "above `application/json` (a browser) gets the explorer "
                               "page instead (also at `/explorer`); no `Accept`, `*/*` or "
                               "a tie gets this JSON.",
                   responses={(200, "application/json"): ServiceIndex,
                              (200, "text/html"): OpenApiResponse(
                                  response=OpenApiTypes.STR,
                                  description="The explorer page, for browsers")})
    def get(self, request: Request) -> HttpResponse:
        if prefers_html(request.META.get("HTTP_ACCEPT")):
            response: HttpResponse = page_response(request)
        else:
            response = Response({"name": settings.SPECTACULAR_SETTINGS["TITLE"],
                                 "version": marketdata.__version__,
                                 "upstream": settings.MARKETDATA_UPSTREAM,
                                 "links": INDEX_LINKS})
        patch_vary_headers(response, ("Accept",))  # HTML or JSON by Accept: caches key on it
        return response
