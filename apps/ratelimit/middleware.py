"""The rate-limit middleware: the v1 daily quota and health cooldown, the v2 token bucket.

It sits inside the correlation-id, access-log and CORS middleware, so a 429 carries
``X-Correlation-ID`` and the CORS headers and is logged like any other response, and
outside the response cache, so a cached answer still counts. CORS preflights are answered
by the CORS middleware before they get here and are never counted.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from apps.ratelimit import limits

# Never limited (the spec also lists /docs, /openapi.json and /redoc, which live outside
# /v1/ and so are never seen here).
_V1_OPEN = frozenset({"/v1/ping"})
_HEALTH = "/v1/health"


class RateLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path
        if path.startswith("/v1/"):
            if settings.USE_SECURITY and path not in _V1_OPEN and \
                    not limits.is_admin(request.META):
                return self._v1(request, path)
        elif path.startswith("/v2/"):
            config = limits.bucket_config()
            if config.enabled and not limits.is_admin(request.META):
                return self._v2(request, config)
        return self.get_response(request)

    def _v1(self, request: HttpRequest, path: str) -> HttpResponse:
        client = limits.client_ip(request.META)
        if path == _HEALTH:
            return self._health(request, client)
        allowed, state = limits.take_daily(client)
        if allowed:
            response = self.get_response(request)
        else:
            response = JsonResponse(state.body(), status=429)
            response["Retry-After"] = str(state.reset_in)
        for name, value in state.headers().items():
            response[name] = value
        return response

    def _health(self, request: HttpRequest, client: str) -> HttpResponse:
        cooldown = limits.health_cooldown()
        wait = limits.take_health(client)
        if wait is None:
            response = self.get_response(request)
            remaining, reset_in = 0, cooldown
        else:
            response = JsonResponse(
                {"detail": "Health check rate limit exceeded. Try again later.",
                 "rate_limit_info": {"count": 1, "remaining": 0, "reset_in": wait,
                                     "limit": 1}}, status=429)
            response["Retry-After"] = str(wait)
            remaining, reset_in = 0, wait
        # The health check's own limit: one per cooldown.
        response["X-RateLimit-Limit"] = "1"
        response["X-RateLimit-Remaining"] = str(remaining)
        response["X-RateLimit-Reset"] = str(reset_in)
        return response

    def _v2(self, request: HttpRequest, config: limits.BucketConfig) -> HttpResponse:
        take = limits.take_v2(limits.client_ip(request.META), config)
        if take.allowed:
            return self.get_response(request)
        response = JsonResponse(limits.v2_rate_limit_body(take), status=429)
        response["Retry-After"] = str(take.retry_after)
        return response
