"""CoinGecko's route table and its simulated provider (host ``api.coingecko.com``).

Keyless, as CoinGecko's public API: an ``x-cg-demo-api-key`` header is accepted and not
checked.
"""

from __future__ import annotations

import re

from marketdata.sandbox.coingecko import markets
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse

HOSTS = ("api.coingecko.com",)

ROUTES = (
    Route(("GET",), re.compile(r"/api/v3/coins/markets/?"), markets.handle_markets),
    Route(("GET",), re.compile(r"/api/v3/global/?"), markets.handle_global),
    Route(("GET",), re.compile(r"/api/v3/search/trending/?"), markets.handle_trending),
    Route(("GET",), re.compile(r"/api/v3/search/?"), markets.handle_search),
)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    return markets.error(description, status)


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """CoinGecko: keyless and stateless."""
    return SimulatedProvider(name="coingecko", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=markets.not_found)
