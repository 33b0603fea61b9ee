"""FRED's route table and its simulated provider: the API host ``api.stlouisfed.org``
(series observations, the release calendar) and the site ``fred.stlouisfed.org`` (the
keyless fredgraph.csv download)."""

from __future__ import annotations

import re

from marketdata.sandbox.fred import graph, observations, releases
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse

HOSTS = ("api.stlouisfed.org", "fred.stlouisfed.org")

ROUTES = (
    Route(("GET",), re.compile(r"/fred/series/observations"),
          observations.handle_observations),
    Route(("GET",), re.compile(r"/fred/releases/dates"), releases.handle_release_dates),
    Route(("GET",), re.compile(r"/graph/fredgraph\.csv"), graph.handle_graph_csv),
)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    if route is not None and route.handler is graph.handle_graph_csv:
        return graph.page(code, description, status)
    return observations.error(description, status)


def _not_found() -> SandboxResponse:
    return observations.error("Not Found", 404)


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """FRED: stateless (the API key in each request is the whole auth)."""
    return SimulatedProvider(name="fred", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=_not_found)
