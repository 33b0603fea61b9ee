"""GDELT's route table and its simulated provider (host ``api.gdeltproject.org``).

GDELT answers errors as plain text, so every error here is plain text too.
"""

from __future__ import annotations

import re

from marketdata.sandbox.gdelt import doc
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse

HOSTS = ("api.gdeltproject.org",)

ROUTES = (
    Route(("GET",), re.compile(r"/api/v2/doc/doc"), doc.handle_doc),
)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    return doc.plain(f"{code}: {description}", status)


def _not_found() -> SandboxResponse:
    return doc.plain("404 Not Found", 404)


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """GDELT: stateless and keyless."""
    return SimulatedProvider(name="gdelt", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=_not_found)
