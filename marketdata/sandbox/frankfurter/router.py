"""Frankfurter's route table and its simulated provider (hosts ``api.frankfurter.dev`` and
the older ``api.frankfurter.app``, which served the same paths without ``/v1``)."""

from __future__ import annotations

import re

from marketdata.sandbox.frankfurter import rates
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse

HOSTS = ("api.frankfurter.dev", "api.frankfurter.app")

ROUTES = (
    Route(("GET",), re.compile(r"(?:/v1)?/(?P<start>\d{4}-\d{2}-\d{2})\.\."
                               r"(?P<end>\d{4}-\d{2}-\d{2})?"), rates.handle_timeseries),
)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    return rates.message(description, status)


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """Frankfurter: keyless and stateless."""
    return SimulatedProvider(name="frankfurter", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=rates.not_found)
