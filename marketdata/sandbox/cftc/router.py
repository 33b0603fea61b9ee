"""CFTC Public Reporting's route table and its simulated provider (host
``publicreporting.cftc.gov``): Socrata's ``/resource/{dataset}.json``."""

from __future__ import annotations

import re

from marketdata.sandbox.cftc.resource import handle_resource, soda_error
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse

HOSTS = ("publicreporting.cftc.gov",)

ROUTES = (
    Route(("GET",), re.compile(r"/resource/(?P<dataset>[a-z0-9]{4}-[a-z0-9]{4})\.json"),
          handle_resource),
)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    return soda_error(status, code.lower().replace(" ", "_"), description)


def _not_found() -> SandboxResponse:
    return soda_error(404, "not_found", "Not found")


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """Socrata is stateless and keyless here (an app token would only raise throttling)."""
    return SimulatedProvider(name="cftc", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=_not_found)
