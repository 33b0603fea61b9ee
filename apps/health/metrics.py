"""``GET /metrics`` and what feeds it from the Django side (see :mod:`marketdata.metrics`).

- ``MetricsMiddleware`` (outermost): every request Django answers, by route, method and
  status, timed from the moment it enters Django; a 429 that never got past the rate-limit
  middleware is also counted as a rate-limit refusal.
- ``RateLimitPassedMiddleware`` (right after the rate-limit middleware): marks the requests
  the limits let through, which is how the 429s of the limits are told apart from an
  upstream's 429 passed on by a view.
- samplers for the numbers only this layer knows: the quote streams and the process's
  circuit breakers.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from apps.core.middleware import arrival_of
from apps.core.routes import UNMATCHED, rate_limit_name
from apps.core.routing import route
from marketdata import metrics

_PASSED = "_md_rate_limit_passed"
STATIC = "<static>"


def route_of(request: HttpRequest) -> str:
    """The URL pattern that answered, as written in the URL configuration
    (``v2/quote/<str:symbol>``; ``/`` for the index); ``<static>`` for static files;
    ``<unmatched>`` when no pattern did (404s, requests answered by a middleware)."""
    match = getattr(request, "resolver_match", None)
    if match is not None:
        return match.route or "/"  # the index's pattern is the empty string
    if request.path.startswith(settings.STATIC_URL):
        return STATIC
    if request.path.startswith(("/v1/", "/v2/")):
        # Answered before URL resolution (a response-cache hit): the route it would have
        # taken, as the fast path labels the same hits.
        return _resolved_route(request)
    return UNMATCHED


def _resolved_route(request: HttpRequest) -> str:
    """The route a request asked for when it never reached URL resolution (refused by a
    rate limit, or answered by the response cache)."""
    try:
        return resolve(request.path_info).route or "/"
    except Resolver404:
        return UNMATCHED


def sample_streams() -> None:
    from apps.stream.hub import stream_stats

    stats = stream_stats()
    metrics.STREAMS.set(stats["connections"])
    metrics.POLLERS.set(stats["pollers"])
    metrics.STREAM_SUBSCRIPTIONS.set(stats["subscriptions"])
    metrics.STREAM_LEADING.set(stats["leading"])


def sample_breakers() -> None:
    from marketdata import http

    # The process's client as it is: a sampler must never build one (it would be built from
    # whatever the settings are at that moment, on the sampler's thread).
    client = http._client
    if client is not None:
        metrics.set_breaker_states([(b.provider, b.endpoint, b.state)
                                    for b in client.breaker_states()])


def sample_lanes() -> None:
    from marketdata import http

    client = http._client  # as sample_breakers: never build one here
    if client is not None:
        metrics.set_lane_states([(s.provider, s.lane, s.occupants, s.in_flight, s.parked)
                                 for s in client.lane_states()])


class MetricsMiddleware:
    """Counts and times every request (first in MIDDLEWARE, so it sees every answer)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        metrics.register_sampler(sample_streams)
        metrics.register_sampler(sample_breakers)
        metrics.register_sampler(sample_lanes)
        metrics.start_sampling()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # From arrival at the serving front: waits for a thread or a lane are latency too.
        started = arrival_of(request, time.monotonic())
        response = self.get_response(request)
        seconds = time.monotonic() - started
        status = response.status_code
        if status == 429 and not getattr(request, _PASSED, False) and \
                request.path.startswith(("/v1/", "/v2/")):
            metrics.record_rate_limited(rate_limit_name(request.path))
            route = _resolved_route(request)
        else:
            route = route_of(request)
        metrics.record_request(request.method or "GET", route, status, seconds)
        return response


class RateLimitPassedMiddleware:
    """Marks a request the rate limits let through (placed right after them)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        setattr(request, _PASSED, True)
        return self.get_response(request)


def _unauthorized() -> HttpResponse:
    response = HttpResponse(b"Unauthorized: send Authorization: Bearer <METRICS_TOKEN>\n",
                            status=401, content_type="text/plain; charset=utf-8")
    response["WWW-Authenticate"] = 'Bearer realm="metrics"'
    return response


@route("metrics", name="metrics")
@never_cache
@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """Prometheus text format. With ``METRICS_TOKEN`` set, only for ``Authorization: Bearer
    <token>`` (401 otherwise); without it, open (keep /metrics off the public proxy)."""
    token = settings.METRICS_TOKEN
    if token and not metrics.token_matches(token, request.META.get("HTTP_AUTHORIZATION", "")):
        return _unauthorized()
    return HttpResponse(metrics.render(), content_type=metrics.CONTENT_TYPE)
