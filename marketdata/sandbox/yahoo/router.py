"""Path-based routing of Yahoo requests to endpoint modules.

Why by path and not host: a host map may send query1/query2/fc/guce/consent hosts to one
sandbox server, so the host is informational only. To add an endpoint (screener, search,
recommendationsbysymbol, fundamentals-timeseries...), write one module with a
``handle_x(req) -> SandboxResponse`` function and add one ``Route`` to ``ROUTES``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo import (
    algolia,
    auth,
    chart,
    quote,
    quote_summary,
    recommendations,
    screener,
    search,
    sectors,
    timeseries,
    transcripts,
)
from marketdata.sandbox.yahoo.common import Request, not_found_route

Handler = Callable[[Request], SandboxResponse]


@dataclass(frozen=True)
class Route:
    """One endpoint: methods, a full-match path regex with named groups, its handler.

    ``crumb``: the endpoint needs a valid crumb query parameter.
    ``handshake``: part of the cookie/crumb/consent flow (spared by fault injection
    unless fail_rate is 1.0). ``wrapper``: the JSON envelope name used for its errors.
    """

    methods: tuple[str, ...]
    pattern: re.Pattern[str]
    handler: Handler
    crumb: bool = False
    handshake: bool = False
    wrapper: str = "finance"


def build_routes(auth_state: auth.AuthState) -> list[Route]:
    """The route table, bound to one sandbox's auth state."""
    a = auth_state
    return [
        Route(("GET", "HEAD"), re.compile(r"/?"), partial(auth.fc_root, auth=a),
              handshake=True),
        Route(("GET",), re.compile(r"/v1/test/getcrumb"), partial(auth.get_crumb, auth=a),
              handshake=True),
        Route(("GET",), re.compile(r"/consent"), partial(auth.consent_form, auth=a),
              handshake=True),
        Route(("POST", "GET"), re.compile(r"/v2/collectConsent"),
              partial(auth.collect_consent, auth=a), handshake=True),
        Route(("GET",), re.compile(r"/copyConsent"), partial(auth.copy_consent, auth=a),
              handshake=True),
        Route(("GET",), re.compile(r"/v8/finance/chart/(?P<symbol>[^/]+)"), chart.handle_chart,
              wrapper="chart"),
        Route(("GET",), re.compile(r"/v7/finance/quote/?"), quote.handle_quote, crumb=True),
        Route(("GET",), re.compile(r"/v10/finance/quoteSummary/(?P<symbol>[^/]+)"),
              quote_summary.handle_quote_summary, crumb=True, wrapper="quoteSummary"),
        Route(("GET",), re.compile(r"/v1/finance/screener/predefined/saved/?"),
              screener.handle_screener, crumb=True),
        Route(("GET",), re.compile(r"/v1/finance/search/?"), search.handle_search),
        Route(("GET",), re.compile(r"/v6/finance/recommendationsbysymbol/(?P<symbol>[^/]+)"),
              recommendations.handle_recommendations, crumb=True),
        Route(("GET",), re.compile(
            r"/ws/fundamentals-timeseries/v1/finance/timeseries/(?P<symbol>[^/]+)"),
            timeseries.handle_timeseries, crumb=True, wrapper="timeseries"),
        Route(("GET",), re.compile(r"/v1/finance/sectors/(?P<key>[^/]+)"),
              sectors.handle_sector),
        Route(("GET",), re.compile(r"/quote/(?P<symbol>[^/]+)/earnings-calls/?"),
              transcripts.handle_earnings_calls_page),
        Route(("GET",), re.compile(r"/v1/finance/quoteType/(?P<symbol>[^/]+)"),
              transcripts.handle_quote_type, wrapper="quoteType"),
        Route(("GET",), re.compile(r"/xhr/transcript/?"), transcripts.handle_transcript,
              crumb=True),
        # Not Yahoo: the primary search provider (an Algolia app) answers on its own host;
        # routing is by path, and Algolia's paths never collide with Yahoo's.
        Route(("GET", "POST"), re.compile(r"/1/indexes/(?P<index>[^/]+)(?:/query)?"),
              algolia.handle_algolia_query),
    ]


def match(routes: list[Route], method: str, path: str) -> tuple[Route | None, dict[str, str]]:
    """The route for a request, with its path parameters (None when nothing matches)."""
    for route in routes:
        m = route.pattern.fullmatch(path)
        if m and method in route.methods:
            return route, m.groupdict()
    return None, {}


def dispatch(routes: list[Route], req: Request, auth_state: auth.AuthState) -> SandboxResponse:
    route, params = match(routes, req.method, req.path)
    if route is None:
        return not_found_route()
    if route.crumb and not auth_state.crumb_is_valid(req.arg("crumb")):
        return auth.invalid_crumb()
    req.params = params
    return route.handler(req)
