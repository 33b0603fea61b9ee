"""Yahoo's route table and its simulated provider (hosts ``*.yahoo.com``).

The sandbox picks the provider by host (see ``marketdata/sandbox/core.py``); within Yahoo,
routing is by path, since query1, query2, finance, fc, guce and consent hosts share one
table. To add an endpoint, write one module with a ``handle_x(req) -> SandboxResponse``
function and add one ``Route`` to ``build_routes``.
"""

from __future__ import annotations

import re
from functools import partial

from marketdata.sandbox.providers import Handler, Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo import (
    auth,
    calendars,
    chart,
    currencies,
    lookup,
    market_summary,
    options,
    quote,
    quote_summary,
    recommendations,
    screener,
    search,
    sectors,
    spark,
    timeseries,
    transcripts,
    trending,
)
from marketdata.sandbox.yahoo.common import Request, error_response, not_found_route

__all__ = ["HOSTS", "Handler", "Route", "build_provider", "build_routes"]

# query1/query2.finance.yahoo.com, finance.yahoo.com, fc.yahoo.com, guce/consent.yahoo.com
HOSTS = ("*.yahoo.com",)


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
        Route(("GET",), re.compile(r"/v1/finance/currencies/?"), currencies.handle_currencies,
              crumb=True),
        Route(("GET",), re.compile(r"/v1/finance/trending/(?P<region>[^/]+)"),
              trending.handle_trending, crumb=True),
        Route(("GET",), re.compile(r"/v6/finance/quote/marketSummary/?"),
              market_summary.handle_market_summary, crumb=True, wrapper="marketSummaryResponse"),
        Route(("GET",), re.compile(r"/v7/finance/spark/?"), spark.handle_spark, crumb=True,
              wrapper="spark"),
        Route(("GET",), re.compile(r"/v7/finance/options/(?P<symbol>[^/]+)"),
              options.handle_options, crumb=True, wrapper="optionChain"),
        Route(("GET",), re.compile(r"/v10/finance/quoteSummary/(?P<symbol>[^/]+)"),
              quote_summary.handle_quote_summary, crumb=True, wrapper="quoteSummary"),
        Route(("GET",), re.compile(r"/v1/finance/screener/predefined/saved/?"),
              screener.handle_screener, crumb=True),
        Route(("POST",), re.compile(r"/v1/finance/screener/?"),
              screener.handle_custom_screener, crumb=True),
        Route(("POST",), re.compile(r"/v1/finance/visualization/?"),
              calendars.handle_visualization, crumb=True),
        Route(("GET",), re.compile(r"/v1/finance/search/?"), search.handle_search),
        Route(("GET",), re.compile(r"/v1/finance/lookup/?"), lookup.handle_lookup, crumb=True),
        Route(("GET",), re.compile(r"/v6/finance/recommendationsbysymbol/(?P<symbol>[^/]+)"),
              recommendations.handle_recommendations, crumb=True),
        Route(("GET",), re.compile(
            r"/ws/fundamentals-timeseries/v1/finance/timeseries/(?P<symbol>[^/]+)"),
            timeseries.handle_timeseries, crumb=True, wrapper="timeseries"),
        Route(("GET",), re.compile(r"/v1/finance/sectors/(?P<key>[^/]+)"),
              sectors.handle_sector),
        Route(("GET",), re.compile(r"/v1/finance/industries/(?P<slug>[^/]+)"),
              sectors.handle_industry),
        Route(("GET",), re.compile(r"/quote/(?P<symbol>[^/]+)/earnings-calls/?"),
              transcripts.handle_earnings_calls_page),
        Route(("GET",), re.compile(r"/v1/finance/quoteType/(?P<symbol>[^/]+)"),
              transcripts.handle_quote_type, wrapper="quoteType"),
        Route(("GET",), re.compile(r"/xhr/transcript/?"), transcripts.handle_transcript,
              crumb=True),
    ]


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    return error_response(route.wrapper if route else "finance", code, description, status)


def _crumb_guard(route: Route, req: Request, auth_state: auth.AuthState) -> SandboxResponse | None:
    if not auth_state.crumb_is_valid(req.arg("crumb")):
        return auth.invalid_crumb()
    return None


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """Yahoo Finance, with its own cookie/crumb state (seeded by the sandbox's seed)."""
    auth_state = auth.AuthState(options.seed, options.crumb_ttl_seconds)
    return SimulatedProvider(
        name="yahoo", hosts=HOSTS, routes=tuple(build_routes(auth_state)), error=_error,
        not_found=not_found_route, guard=partial(_crumb_guard, auth_state=auth_state),
        state=auth_state)
