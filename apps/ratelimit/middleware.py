"""The rate-limit middleware: the v1 daily quota and health cooldown, the v2 token bucket.

It sits inside the correlation-id, access-log and CORS middleware, so a 429 carries
``X-Correlation-ID`` and the CORS headers and is logged like any other response, and
outside the response cache, so a cached answer still counts. CORS preflights are answered
by the CORS middleware before they get here and are never counted.

When the counters cannot be reached (Redis down), requests are let through without
rate-limit headers and a warning is logged: the data endpoints keep working without the
cache, and a counter outage must not turn into an API outage.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from apps.ratelimit import limits
from marketdata.logs import get_logger

log = get_logger("apps.ratelimit")
T = TypeVar("T")

# Never limited (the spec also lists /docs, /openapi.json and /redoc, which live outside
# /v1/ and so are never seen here).
_V1_OPEN = frozenset({"/v1/ping"})
_HEALTH = "/v1/health"


class _CountersUnavailable(Exception):
    pass


def _decide(decision: Callable[[], T]) -> T:
    """Run one counter decision; a backend failure becomes ``_CountersUnavailable``."""
    try:
        return decision()
    except Exception as exc:  # redis/socket errors of any kind
        raise _CountersUnavailable(f"{type(exc).__name__}: {exc}") from exc


class RateLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path
        try:
            if path.startswith("/v1/"):
                if settings.USE_SECURITY and path not in _V1_OPEN and \
                        not limits.is_admin(request.META):
                    return self._v1(request, path)
            elif path.startswith("/v2/"):
                config = limits.bucket_config()
                if config.enabled and not limits.is_admin(request.META):
                    return self._v2(request, config)
        except _CountersUnavailable as exc:
            log.warning("rate-limit counters unavailable; request allowed", error=str(exc))
        return self.get_response(request)

    def _v1(self, request: HttpRequest, path: str) -> HttpResponse:
        client = limits.client_ip(request.META)
        if path == _HEALTH:
            return self._health(request, client)
        allowed, state = _decide(lambda: limits.take_daily(client))
        if allowed:
            response = self.get_response(request)
        else:
            response = JsonResponse(state.body(), status=429)
            response["Retry-After"] = str(state.reset_in)
        for name, value in state.headers().items():
            response[name] = value
        return response

    def _health(self, request: HttpRequest, client: str) -> HttpResponse:
        wait = _decide(lambda: limits.take_health(client))
        if wait is None:
            response = self.get_response(request)
            reset_in = limits.health_cooldown()
        else:
            response = JsonResponse(limits.health_limited_body(wait), status=429)
            response["Retry-After"] = str(wait)
            reset_in = wait
        # The health check's own limit: one per cooldown.
        response["X-RateLimit-Limit"] = "1"
        response["X-RateLimit-Remaining"] = "0"
        response["X-RateLimit-Reset"] = str(reset_in)
        return response

    def _v2(self, request: HttpRequest, config: limits.BucketConfig) -> HttpResponse:
        client = limits.client_ip(request.META)
        take = _decide(lambda: limits.take_v2(client, config))
        if take.allowed:
            return self.get_response(request)
        response = JsonResponse(limits.v2_rate_limit_body(take), status=429)
        response["Retry-After"] = str(take.retry_after)
        return response
