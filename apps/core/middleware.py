"""Request-path middleware: correlation id, access log, response cache.

Written as plain callables (not ``MiddlewareMixin``): under WSGI that is a function call per
layer, and the response cache can answer before DRF, sessions or auth run at all.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
import uuid
from collections.abc import Callable

import structlog
from django.conf import settings
from django.core.cache import cache as django_cache
from django.http import HttpRequest, HttpResponse

import marketdata
from apps.core.symbols import encoded_slash_in_path
from marketdata import cache as md_cache
from marketdata import deadline
from marketdata.logs import get_logger, redact_query

log = get_logger("apps.core.access")

_INBOUND_ID = re.compile(r"^[A-Za-z0-9._\-]{6,64}$")


def new_correlation_id() -> str:
    return uuid.uuid4().hex[:16]


class RequestContextMiddleware:
    """Correlation id on every log line and response; ``X-Data-Source`` on every response.

    A sane inbound ``X-Correlation-ID`` (6-64 of ``[A-Za-z0-9._-]``) is kept so a caller can
    trace one request across services; anything else is replaced by a fresh id.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.data_source = settings.MARKETDATA_UPSTREAM

    def __call__(self, request: HttpRequest) -> HttpResponse:
        inbound = request.META.get("HTTP_X_CORRELATION_ID", "")
        correlation_id = inbound if _INBOUND_ID.match(inbound) else new_correlation_id()
        request.correlation_id = correlation_id
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(correlation_id=correlation_id)
        try:
            response = self.get_response(request)
        finally:
            structlog.contextvars.clear_contextvars()
        response["X-Correlation-ID"] = correlation_id
        response["X-Data-Source"] = self.data_source
        return response


class RequestDeadlineMiddleware:
    """The request deadline (``REQUEST_DEADLINE_SECONDS``) for everything below it.

    It counts from arrival at the ASGI front (config.asgi stamps it), so a wait for a
    worker thread is part of it; under plain WSGI, from now. Placed after the response
    cache: a hit makes no upstream call, so it never pays for setting one.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.seconds = deadline.default_seconds()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        scope = getattr(request, "scope", None) or request.META.get("asgi.scope") or {}
        arrival = scope.get(deadline.ARRIVAL_KEY) or time.monotonic()
        token = deadline.set_deadline(arrival + self.seconds)
        try:
            return self.get_response(request)
        finally:
            deadline.reset(token)


class AccessLogMiddleware:
    """One line per request with status and duration; slow requests at WARNING."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.threshold_ms = float(settings.PERFORMANCE_THRESHOLD_MS)
        self._stdlib_logger = logging.getLogger("apps.core.access")

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        duration_ms = round((time.perf_counter() - started) * 1000, 3)
        # This line is the request's log record; Django's own 4xx/5xx line would repeat it
        # after the correlation id is unbound.
        response._has_been_logged = True
        status = response.status_code
        slow = duration_ms > self.threshold_ms
        level = (logging.ERROR if status >= 500 else logging.WARNING if status >= 400
                 else logging.INFO)
        if not (slow or self._stdlib_logger.isEnabledFor(level)):
            return response  # nothing to log at this level: build nothing
        operation = f"{request.method} {request.path}"
        if slow:
            log.warning(f"Slow operation detected - {operation} ({duration_ms}ms)",
                        operation=operation, duration_ms=duration_ms,
                        threshold_ms=self.threshold_ms, performance=True)
        elif self._stdlib_logger.isEnabledFor(logging.DEBUG):
            log.debug(f"Operation completed - {operation} ({duration_ms}ms)",
                      operation=operation, duration_ms=duration_ms, performance=True)
        fields = {"method": request.method, "path": request.path, "status_code": status,
                  "duration_ms": duration_ms}
        match = getattr(request, "resolver_match", None)
        if match is not None and match.url_name:
            fields["route"] = match.url_name
        query = request.META.get("QUERY_STRING")
        if query:
            # Raw (parsing it only to log it costs more than the hit), credentials redacted.
            fields["params"] = redact_query(query)
        log.log(level, f"API response sent - {operation} ({status}) [{duration_ms}ms]",
                api_response=True, **fields)
        return response


# Paths whose answers depend only on the URL and are built from cached provider data.
_UNCACHEABLE = ("/v1/health", "/v1/ping", "/v1/stream/")


# Paths whose body depends on the client's language when the query names none (v2 quotes:
# ``lang`` wins, ``Accept-Language`` is the fallback), so the header is part of their key.
_LANGUAGE_DEPENDENT = ("/v2/quote/", "/v2/quotes")
_LANG_PARAM = re.compile(r"(?:^|&)lang=")

# Headers that describe the body (which provider answered) and so travel with it.
_REPLAYED_HEADERS = ("X-Search-Provider",)
_KEY_SAFE = re.compile(r"[\x21-\x7e]*")


class ResponseCacheMiddleware:
    """Serve repeated GETs from pre-rendered bytes, before DRF runs.

    A response is stored only when every provider answer it was built from came from the
    data cache fresh (HIT or MISS), and only for as long as the shortest of those entries
    stays fresh, so the bytes are never older than the data cache would allow. Stale-served
    and error responses are never stored.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.enabled = bool(getattr(settings, "RESPONSE_CACHE_ENABLED", True))
        self.prefix = f"md:{md_cache.KEY_VERSION}:resp:{marketdata.__version__}:"

    def _key(self, request: HttpRequest) -> str | None:
        path = request.path
        if request.method != "GET" or not path.startswith(("/v1/", "/v2/")) or \
                path.startswith(_UNCACHEABLE) or encoded_slash_in_path(request.META):
            # An encoded slash is refused by the views; a key on the decoded path would
            # serve it the answer of the path it decodes to.
            return None
        # The raw query, parameters sorted (no decode/re-encode: two spellings of one
        # query at worst cost one extra miss).
        query = request.META.get("QUERY_STRING", "")
        if "&" in query:
            query = "&".join(sorted(query.split("&")))
        url = f"{path}?{query}"
        if path.startswith(_LANGUAGE_DEPENDENT) and not _LANG_PARAM.search(query):
            url += "#" + request.META.get("HTTP_ACCEPT_LANGUAGE", "").strip().lower()
        # Long symbol lists, and decoded paths with spaces, control or non-ASCII characters
        # (memcached-unsafe keys): a digest keeps every key short and portable.
        if len(url) > 160 or not _KEY_SAFE.fullmatch(url):
            url = hashlib.sha256(url.encode()).hexdigest()
        return self.prefix + url

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = self._key(request) if self.enabled else None
        if key is not None:
            try:
                stored = django_cache.get(key)
            except Exception:  # noqa: BLE001 - a cache outage must not fail the request
                stored = None
            if stored is not None:
                body, content_type, headers = (*stored, ())[:3]
                response = HttpResponse(body, content_type=content_type)
                for name, value in headers:
                    response[name] = value
                response["X-Cache"] = md_cache.HIT
                return response

        report, token = md_cache.start_report()
        try:
            response = self.get_response(request)
        finally:
            md_cache.end_report(token)
        if response.streaming or response.get("Content-Type", "").startswith(
                "text/event-stream"):
            # A stream (or a HEAD of one): X-Cache or no-store would describe only its
            # opening fetch, and nothing of an endless body can be stored.
            return response
        header = report.header
        if header is not None:
            response["X-Cache"] = header
        if report.incomplete and response.status_code == 200:
            # A partial answer (an item left out after an upstream error) must not be kept
            # by any cache, ours or downstream, longer than the failure lasts.
            response["Cache-Control"] = "no-store"
        if (key is not None and response.status_code == 200 and header in (md_cache.HIT,
                                                                           md_cache.MISS)
                and not report.incomplete
                and report.min_ttl is not None
                and report.min_ttl >= 1):
            try:
                replayed = tuple((name, response[name]) for name in _REPLAYED_HEADERS
                                 if response.has_header(name))
                django_cache.set(key, (response.content, response["Content-Type"], replayed),
                                 timeout=int(report.min_ttl))
            except Exception:
                log.warning("response cache write failed", exc_info=True)
        return response
