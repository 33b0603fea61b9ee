"""The rate-limit middleware: the v1 daily quota and health cooldown, the v2 token bucket.

Every answer a limit decided on carries what is left of it, passed or refused: v1 the
spec's ``X-RateLimit-*`` headers, v1 and v2 the IETF draft's ``RateLimit-Policy`` and
``RateLimit`` (:func:`apps.ratelimit.limits.ietf_headers`); admin-key requests carry none.

It sits inside the correlation-id, access-log and CORS middleware, so a 429 carries
``X-Correlation-ID`` and the CORS headers and is logged like any other response, and
outside the response cache, so a cached answer still counts. CORS preflights are answered
by the CORS middleware before they get here and are never counted.

A request parked by the serving front on a full upstream lane runs again later
(:mod:`apps.core.bridge`): it is counted on its first run only, and its later runs carry
the rate-limit headers the first one got.

When the counters cannot be reached (Redis down), requests are let through without
rate-limit headers and the outage is logged once (:mod:`marketdata.outages`: when it
starts, a summary every 30 s, when it ends): the data endpoints keep working without the
cache, and a counter outage must not turn into an API outage.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from apps.core.inprocess import PREPAID_KEY
from apps.core.middleware import LIMIT_HEADERS_KEY, RUNS_KEY, request_scope
from apps.ratelimit import limits
from marketdata import outages

T = TypeVar("T")

# Never limited (the spec also lists /docs, /openapi.json and /redoc, which live outside
# /v1/ and so are never seen here).
_V1_OPEN = frozenset({"/v1/ping"})
_HEALTH = "/v1/health"


class _CountersUnavailable(Exception):
    pass


def _decide(decision: Callable[[], T]) -> T:
    """Run one counter decision; a backend failure becomes ``_CountersUnavailable`` (and is
    reported to the outage tracker: logged once per outage, not once per request)."""
    try:
        result = decision()
    except Exception as exc:  # redis/socket errors of any kind
        outages.failed(exc, "rate-limit counters")
        raise _CountersUnavailable(f"{type(exc).__name__}: {exc}") from exc
    outages.succeeded("rate-limit counters")
    return result


def _health_headers(reset_in: int) -> dict[str, str]:
    """The health check's own limit: one per cooldown."""
    return {"X-RateLimit-Limit": "1", "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": str(reset_in),
            **limits.ietf_headers(limits.HEALTH_POLICY, 1, limits.health_cooldown(), 0,
                                  reset_in)}


def _remember_headers(request: HttpRequest, headers: Iterable[tuple[str, str]]) -> None:
    """Keep a counted request's headers for its later runs, if it is parked."""
    scope = request_scope(request)
    if scope is not None:
        scope[LIMIT_HEADERS_KEY] = tuple(headers)


class RateLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        scope = request_scope(request)
        if scope is not None and scope.get(PREPAID_KEY):
            return self.get_response(request)  # its outer request paid (apps.core.inprocess)
        if scope is not None and scope.get(RUNS_KEY, 1) > 1:
            response = self.get_response(request)
            for name, value in scope.get(LIMIT_HEADERS_KEY, ()):
                response[name] = value
            return response
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
        except _CountersUnavailable:
            pass  # let through without headers; logged by marketdata.outages
        return self.get_response(request)

    def _v1(self, request: HttpRequest, path: str) -> HttpResponse:
        client = limits.client_ip(request.META)
        if path == _HEALTH:
            return self._health(request, client)
        allowed, state = _decide(lambda: limits.take_daily(client))
        if allowed:
            _remember_headers(request, state.headers().items())
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
            reset_in = limits.health_cooldown()
            _remember_headers(request, _health_headers(reset_in).items())
            response = self.get_response(request)
        else:
            response = JsonResponse(limits.health_limited_body(wait), status=429)
            response["Retry-After"] = str(wait)
            reset_in = wait
        for name, value in _health_headers(reset_in).items():
            response[name] = value
        return response

    def _v2(self, request: HttpRequest, config: limits.BucketConfig) -> HttpResponse:
        client = limits.client_ip(request.META)
        take = _decide(lambda: limits.take_v2(client, config))
        headers = limits.bucket_headers(take, config)
        if take.allowed:
            _remember_headers(request, headers.items())
            response = self.get_response(request)
        else:
            response = JsonResponse(limits.v2_rate_limit_body(take), status=429)
            response["Retry-After"] = str(take.retry_after)
        for name, value in headers.items():
            response[name] = value
        return response
