"""Tiingo's route table and its simulated provider (host ``api.tiingo.com``).

Every route needs the token (checked by the guard): ``Authorization: Token <key>`` or the
``token`` query parameter, as Tiingo takes either. Missing, or containing ``INVALID``:
Tiingo's 401 ``{"detail": "Invalid token."}``. Errors and unknown paths are Tiingo's
``{"detail": ...}``.
"""

from __future__ import annotations

import re

from marketdata.sandbox.common import Request
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.tiingo import prices

HOSTS = ("api.tiingo.com",)

ROUTES = (
    Route(("GET",), re.compile(r"/tiingo/daily/(?P<ticker>[^/]+)/prices/?"),
          prices.handle_prices, crumb=True),
)


def token(req: Request) -> str:
    header = req.headers.get("authorization", "").strip()
    if header.lower().startswith("token "):
        return header[6:].strip()
    return (req.arg("token") or "").strip()


def _guard(route: Route, req: Request) -> SandboxResponse | None:
    key = token(req)
    if not key or "INVALID" in key.upper():
        return prices.detail("Invalid token.", 401)
    return None


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    return prices.detail(description, status)


def _not_found() -> SandboxResponse:
    return prices.detail("Not found.", 404)


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """Tiingo: stateless (the token in each request is the whole auth)."""
    return SimulatedProvider(name="tiingo", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=_not_found, guard=_guard)
