"""Request-path middleware: correlation id, access log, response cache.

Written as plain callables (not ``MiddlewareMixin``): under WSGI that is a function call per
layer, and the response cache can answer before DRF, sessions or auth run at all.

Response-cache hits are usually answered before Django by the fast path
(:mod:`apps.core.fastpath`); it shares the correlation ids, the access line and the cache's
keys and entries with the classes here, and its tests check both answer alike.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

import structlog
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_vary_headers

from apps.core import encoding, response_cache
from apps.core.symbols import encoded_slash_in_path
from marketdata import cache as md_cache
from marketdata import deadline, outages
from marketdata.logs import AccessLog, get_logger

log = get_logger("apps.core.access")

_INBOUND_ID = re.compile(r"^[A-Za-z0-9._\-]{6,64}$")


# Random hex digits for correlation ids, per thread, read from the system 4 KB at a time:
# a system call per request cost more than the rest of the id (and, before, a UUID object).
_POOL_BYTES = 4096
_pools = threading.local()
_pool_generation = 0


def _after_fork_in_child() -> None:
    global _pool_generation
    _pool_generation += 1  # a child never hands out the parent's digits


os.register_at_fork(after_in_child=_after_fork_in_child)


def new_correlation_id() -> str:
    """16 random hex digits, the shape of the first 16 of a random UUID's (version 4: the
    13th is always 4), as the ids always were."""
    state = _pools.__dict__
    offset = state.get("offset", _POOL_BYTES * 2)
    if offset >= _POOL_BYTES * 2 or state.get("generation") != _pool_generation:
        state["digits"] = os.urandom(_POOL_BYTES).hex()
        state["generation"] = _pool_generation
        offset = 0
    state["offset"] = offset + 16
    digits = state["digits"]
    return f"{digits[offset:offset + 12]}4{digits[offset + 13:offset + 16]}"


# What the runs of one request share, in its scope (apps.core.bridge): a request parked on a
# full upstream lane runs again, with the same correlation id and counted once by the
# rate limits.
RUNS_KEY = "marketdata.runs"
CORRELATION_KEY = "marketdata.correlation_id"
LIMIT_HEADERS_KEY = "marketdata.rate_limit_headers"
STALE_BUDGET_KEY = "marketdata.stale_budget"


def request_scope(request: HttpRequest) -> dict | None:
    """The ASGI scope a request came in with (None under plain WSGI, and in tests)."""
    return getattr(request, "scope", None) or request.META.get("asgi.scope")


def arrival_of(request: HttpRequest, default: float) -> float:
    """When the request arrived at the serving front (a ``time.monotonic()`` value, stamped
    before it waited for a thread, for its body or for an upstream lane), else ``default``.
    Durations logged and measured count from there: a client that waited 10 s for a
    thread is logged at 10 s, not at the 4 s its thread took."""
    scope = request_scope(request)
    arrival = scope.get(deadline.ARRIVAL_KEY) if scope else None
    return arrival if arrival is not None else default


def correlation_id_for(inbound: str | None) -> str:
    """The request's correlation id: a sane inbound one (6-64 of ``[A-Za-z0-9._-]``) is
    kept, anything else is replaced by a fresh one (both request paths use this)."""
    return inbound if inbound and _INBOUND_ID.match(inbound) else new_correlation_id()


class RequestContextMiddleware:
    """Correlation id on every log line and response; ``X-Data-Source`` on every response.

    A sane inbound ``X-Correlation-ID`` (6-64 of ``[A-Za-z0-9._-]``) is kept so a caller can
    trace one request across services; anything else is replaced by a fresh id.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.data_source = settings.MARKETDATA_UPSTREAM

    def __call__(self, request: HttpRequest) -> HttpResponse:
        scope = request_scope(request)
        correlation_id = scope.get(CORRELATION_KEY) if scope else None
        if correlation_id is None:
            correlation_id = correlation_id_for(request.META.get("HTTP_X_CORRELATION_ID"))
            if scope is not None:
                scope[CORRELATION_KEY] = correlation_id
        request.correlation_id = correlation_id  # type: ignore[attr-defined]  # read by views
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
    """The request deadline (``REQUEST_DEADLINE_SECONDS``) for everything below it, and its
    stale budget (``STALE_GRACE_SECONDS`` of waiting in all while it holds stale copies,
    however many upstream calls its answer needs: :class:`marketdata.deadline.StaleBudget`).

    It counts from arrival at the ASGI front (config.asgi stamps it), so a wait for a
    worker thread is part of it; under plain WSGI, from now. Placed after the response
    cache: a hit makes no upstream call, so it never pays for setting one.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.seconds = deadline.default_seconds()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = deadline.set_deadline(arrival_of(request, time.monotonic()) + self.seconds)
        # One budget for every run of the request (a parked request runs again).
        scope = request_scope(request)
        budget = scope.get(STALE_BUDGET_KEY) if scope is not None else None
        if budget is None:
            budget = deadline.StaleBudget(deadline.stale_grace_seconds())
            if scope is not None:
                scope[STALE_BUDGET_KEY] = budget
        try:
            with deadline.stale_budget(budget):
                return self.get_response(request)
        finally:
            deadline.reset(token)


class AccessLogMiddleware:
    """One line per request with status and duration; slow requests at WARNING
    (:class:`marketdata.logs.AccessLog`, shared with the fast path)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.access_log = AccessLog(__file__, settings.PERFORMANCE_THRESHOLD_MS)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = arrival_of(request, time.monotonic())
        response = self.get_response(request)
        duration_ms = round((time.monotonic() - started) * 1000, 3)
        # This line is the request's log record; Django's own 4xx/5xx line would repeat it
        # after the correlation id is unbound.
        response._has_been_logged = True  # type: ignore[attr-defined]  # Django's own flag
        correlation_id = getattr(request, "correlation_id", None) or \
            structlog.contextvars.get_contextvars().get("correlation_id")
        match = getattr(request, "resolver_match", None)
        self.access_log(request.method or "", request.path, response.status_code, duration_ms,
                        correlation_id, request.META.get("QUERY_STRING", ""),
                        match.url_name if match is not None else None)
        return response


class ResponseCacheMiddleware:
    """Serve repeated GETs from pre-rendered bytes, before DRF runs.

    A response is stored only when every provider answer it was built from came from the
    data cache fresh (HIT or MISS), and only for as long as the shortest of those entries
    stays fresh, so the bytes are never older than the data cache would allow. Stale-served
    and error responses are never stored. Keys and entries are
    :mod:`apps.core.response_cache`'s, which the fast path reads too.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.enabled = bool(getattr(settings, "RESPONSE_CACHE_ENABLED", True))

    def _key(self, request: HttpRequest) -> str | None:
        meta = request.META
        return response_cache.cache_key(
            request.method or "", request.path, meta.get("QUERY_STRING", ""),
            meta.get("HTTP_ACCEPT_LANGUAGE", ""),
            encoded_slash=request.path.startswith(("/v1/", "/v2/"))
            and encoded_slash_in_path(meta), accept=meta.get("HTTP_ACCEPT", ""))

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = self._key(request)  # also without the store: it says what is cacheable
        store = response_cache.get_store() if key is not None and self.enabled else None
        if store is not None and key is not None:
            try:
                entry = store.get(key)
            except Exception as exc:  # noqa: BLE001 - a cache outage must not fail the request
                outages.failed(exc, "response cache get")
                entry = None
            else:
                outages.succeeded("response cache get")
            if entry is not None:
                response = HttpResponse(entry.body, content_type=entry.content_type)
                for name, value in entry.headers[1:]:
                    response[name] = value
                response["X-Cache"] = md_cache.HIT
                response["Cache-Control"] = encoding.cache_control(entry.max_age())
                response.representations = entry  # type: ignore[attr-defined]  # for HttpCaching
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
        if response.status_code == 200 and (report.incomplete or header == md_cache.STALE):
            # A partial answer (an item left out after an upstream error) or one served
            # stale must not be kept by any cache, ours or downstream, longer than the
            # failure lasts.
            response["Cache-Control"] = "no-store"
        elif (key is not None and response.status_code == 200
                and header in (md_cache.HIT, md_cache.MISS)
                and report.min_ttl is not None
                and report.min_ttl >= 1):
            ttl = int(report.min_ttl)
            # Downstream caches may keep it as long as we do (also with the store off).
            response["Cache-Control"] = encoding.cache_control(ttl)
            if store is not None and response_cache.storable(
                    request.META.get("HTTP_ACCEPT", ""), response["Content-Type"]):
                # Kept exactly as long as its data stays fresh, not whole seconds: cut to
                # int(min_ttl) it expired up to a second before its data, and in that last
                # fraction every request ran here (one per request, in threads) to build
                # an answer it could not store, its data having less than a second left.
                self._store(store, key, response, report.min_ttl)
        return response

    @staticmethod
    def _store(store: response_cache.EntryStore, key: str, response: HttpResponse,
               ttl: float) -> None:
        try:
            replayed = tuple((name, response[name])
                             for name in response_cache.REPLAYED_HEADERS
                             if response.has_header(name))
            entry = response_cache.new_entry(response.content, response["Content-Type"],
                                             replayed, ttl)
        except Exception:
            log.warning("response cache entry could not be made", exc_info=True)
            return
        try:
            store.set(key, entry, ttl)
        except Exception as exc:  # noqa: BLE001 - a cache outage (logged as one)
            outages.failed(exc, "response cache set")
            return
        outages.succeeded("response cache set")
        response.representations = entry  # type: ignore[attr-defined]  # for HttpCaching


class HttpCachingMiddleware:
    """ETag and ``If-None-Match`` (304), ``Cache-Control``, ``Vary`` and gzip/brotli for the
    API's answers and /openapi.json (the rules: :mod:`apps.core.encoding`).

    It sits outside CORS and the rate limits, so its ``Vary`` merges with theirs and a 429
    leaves no-store, and inside the access log, which logs a 304 as one. A response-cache
    hit or fresh store and the OpenAPI document carry their tag and encodings
    (``response.representations``): only answers that are not cached are tagged and
    compressed here. Errors are no-store; 200s of GET get a strong ETag and, unless the
    response cache gave them a lifetime, ``no-cache`` (revalidate: a 304 costs no body).
    Pages outside the API (the admin's bodies hold CSRF tokens: BREACH), health, ping and
    streams are left alone, but for those whose view made their encodings
    (``representations``: the explorer page and its assets, which hold no secret). The
    fast path answers a hit the same way.
    """

    DOCUMENTS = frozenset({"/openapi.json"})
    _OMITTED_BY_304 = ("Content-Type", "Content-Length", "Content-Encoding")

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        path = request.path
        representations = getattr(response, "representations", None)
        if (not path.startswith(("/v1/", "/v2/")) and path not in self.DOCUMENTS
                and representations is None) or \
                path.startswith(response_cache.UNCACHEABLE) or response.streaming or \
                response.has_header("Content-Encoding"):
            return response
        content_type = response.get("Content-Type", "")
        status = response.status_code
        if content_type.startswith("text/event-stream") or (status != 200 and status < 400):
            return response
        if status >= 400 and not response.has_header("Cache-Control"):
            response["Cache-Control"] = "no-store"
        body = response.content
        if representations is not None:
            available = tuple(coding for coding, _ in representations.encoded)
        else:
            available = encoding.CODINGS if encoding.compressible(content_type, len(body)) \
                else ()
        coding = encoding.choose(request.META.get("HTTP_ACCEPT_ENCODING"), available)
        tagged = status == 200 and request.method in ("GET", "HEAD")
        vary = []
        if tagged and response_cache.language_dependent(path,
                                                        request.META.get("QUERY_STRING", "")):
            vary.append("Accept-Language")
        if available:
            vary.append("Accept-Encoding")
        if vary:
            patch_vary_headers(response, vary)
        if tagged and "no-store" not in response.get("Cache-Control", ""):
            tag = representations.etag if representations is not None else \
                encoding.digest(body)
            current = encoding.etag(tag, coding)
            response["ETag"] = current
            if not response.has_header("Cache-Control"):
                response["Cache-Control"] = "no-cache"
            condition = request.META.get("HTTP_IF_NONE_MATCH")
            if condition is not None and encoding.none_match(condition, current):
                return self._not_modified(response)
        if coding != encoding.IDENTITY:
            data = next((d for c, d in representations.encoded if c == coding), body) \
                if representations is not None else encoding.compress(body, coding)
            response.content = data
            response["Content-Encoding"] = coding
            response["Content-Length"] = str(len(data))
        return response

    def _not_modified(self, response: HttpResponse) -> HttpResponse:
        """The 304 of ``response``: its headers (ETag, Cache-Control, Vary, CORS, limits,
        correlation id) without the body and the headers that describe one."""
        response.status_code = 304
        response.content = b""
        for name in self._OMITTED_BY_304:
            if response.has_header(name):
                del response[name]
        return response


class PageOptionsMiddleware:
    """``OPTIONS`` on a page outside the API (``/``, ``/docs``, ``/redoc``,
    ``/openapi.json``, ``/readyz``, ``/metrics``, the admin, static files): 200 with the
    methods the page allows in ``Allow`` and no body.

    Those pages are served by views that know only GET (the docs views rendered a template
    for OPTIONS and failed with a 500; WhiteNoise answered 405). The API's own OPTIONS stay
    DRF's (its metadata), and CORS preflights are answered before this, by the CORS
    middleware. It adds no header to any other request, so the fast path stands in for it.
    """

    ADMIN_PREFIX = "/admin/"

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.static_prefix = "/" + str(settings.STATIC_URL or "/static/").strip("/") + "/"

    def static_file_exists(self, path: str) -> bool:
        from django.contrib.staticfiles import finders

        relative = path[len(self.static_prefix):]
        if not relative or ".." in relative.split("/"):
            return False
        root = settings.STATIC_ROOT
        return bool(finders.find(relative)) or bool(root and (Path(root) / relative).is_file())

    def allowed(self, request: HttpRequest) -> str | None:
        """The ``Allow`` value of the page, or None when there is no such page."""
        path = request.path
        if path.startswith(self.static_prefix):
            return "GET, HEAD, OPTIONS" if self.static_file_exists(path) else None
        from django.urls import Resolver404, resolve

        try:
            resolve(request.path_info)
        except Resolver404:
            return None
        if path.startswith(self.ADMIN_PREFIX):
            return "GET, HEAD, POST, OPTIONS"
        return "GET, HEAD, OPTIONS"

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method != "OPTIONS" or request.path.startswith(("/v1/", "/v2/")):
            return self.get_response(request)
        allow = self.allowed(request)
        if allow is None:
            return self.get_response(request)  # the JSON 404
        response = HttpResponse(b"", content_type="text/plain; charset=utf-8")
        response["Allow"] = allow
        response["Content-Length"] = "0"
        return response

