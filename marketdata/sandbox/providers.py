"""Simulated providers: host patterns, a route table and the provider's own error shapes.

Why: several upstreams reuse the same paths (``/``, ``/v1/...``), so the sandbox routes by
host first and by path within the provider that owns the host. A provider is built by a
factory listed in ``registry.py`` from the sandbox's options, so per-sandbox state (Yahoo's
cookies and crumbs) is not shared between sandboxes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from marketdata.http import host_matches
from marketdata.sandbox.common import Request
from marketdata.sandbox.response import SandboxResponse

Handler = Callable[[Request], SandboxResponse]
__all__ = ["Handler", "Route", "SandboxOptions", "SimulatedProvider", "host_matches",
           "normalise_host"]


@dataclass(frozen=True)
class Route:
    """One endpoint: methods, a full-match path regex with named groups, its handler.

    ``crumb``: the endpoint needs the provider's per-request credential, which the
    provider's ``guard`` checks (Yahoo: a valid ``crumb`` query parameter).
    ``handshake``: part of an auth flow (Yahoo's cookie/crumb/consent), spared by fault
    injection unless fail_rate is 1.0. ``wrapper``: the error envelope name, for providers
    whose errors have one (Yahoo's ``finance``, ``chart``, ``quoteSummary``...).
    """

    methods: tuple[str, ...]
    pattern: re.Pattern[str]
    handler: Handler
    crumb: bool = False
    handshake: bool = False
    wrapper: str = "finance"


@dataclass(frozen=True)
class SandboxOptions:
    """What a provider factory may use: the sandbox's seed, clock and auth settings."""

    seed: int = 0
    crumb_ttl_seconds: float | None = None
    clock: Callable[[], datetime] | None = None


def normalise_host(value: str | None) -> str:
    """Lower-case host without port or trailing dot (``Host`` header or URL host)."""
    host = (value or "").strip().lower()
    if host.startswith("["):  # [::1]:9000
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


@dataclass(frozen=True)
class SimulatedProvider:
    """One simulated upstream.

    ``hosts``: patterns of the hosts it answers on (``*.yahoo.com``). ``routes``: its route
    table, tried in order. ``error(route, status, code, description)``: an error in the
    provider's own shape (``route`` is None when no route matched). ``not_found()``: the
    answer to a path outside the table. ``guard(route, req)``: an optional check run before
    a route with ``crumb=True`` (an error response, or None to go on). ``state``: anything
    the provider wants to expose (Yahoo: its ``AuthState``).
    """

    name: str
    hosts: tuple[str, ...]
    routes: tuple[Route, ...]
    error: Callable[[Route | None, int, str, str], SandboxResponse]
    not_found: Callable[[], SandboxResponse]
    guard: Callable[[Route, Request], SandboxResponse | None] | None = None
    state: Any = field(default=None, compare=False)

    def serves(self, host: str) -> bool:
        return any(host_matches(host, pattern) for pattern in self.hosts)

    def match(self, method: str, path: str) -> tuple[Route | None, dict[str, str]]:
        """The route for a request, with its path parameters (None when nothing matches)."""
        for route in self.routes:
            m = route.pattern.fullmatch(path)
            if m and method in route.methods:
                return route, m.groupdict()
        return None, {}

    def dispatch(self, route: Route, params: dict[str, str], req: Request) -> SandboxResponse:
        if route.crumb and self.guard is not None:
            refused = self.guard(route, req)
            if refused is not None:
                return refused
        req.params = params
        return route.handler(req)

    def unavailable(self, route: Route | None) -> SandboxResponse:
        """What an injected fault looks like: a 503 in the provider's own shape."""
        return self.error(route, 503, "Service Unavailable",
                          "Service is temporarily unavailable, please try again later")


ProviderFactory = Callable[[SandboxOptions], SimulatedProvider]
