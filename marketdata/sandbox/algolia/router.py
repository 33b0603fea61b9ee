"""Algolia's route table and its simulated provider (hosts ``*.algolia.net``, which
covers ``{APP_ID}-dsn.algolia.net``, and the ``*.algolianet.com`` fallback hosts).

To add an endpoint, write a ``handle_x(req) -> SandboxResponse`` and add one ``Route``.
"""

from __future__ import annotations

import re

from marketdata.sandbox.algolia import search
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse

HOSTS = ("*.algolia.net", "*.algolianet.com")

ROUTES = (
    Route(("GET", "POST"), re.compile(r"/1/indexes/(?P<index>[^/]+)(?:/query)?"),
          search.handle_algolia_query),
)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    return search.error(description, status)


def _not_found() -> SandboxResponse:
    return search.error("Not Found", 404)


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """Algolia: stateless (the API key in each request is the whole auth)."""
    return SimulatedProvider(name="algolia", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=_not_found)
