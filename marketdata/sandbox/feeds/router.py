"""The publishers' route table and their simulated provider (every host of the feeds in
:mod:`marketdata.records.feeds` but the SEC's, whose two feeds are routes of the SEC
sandbox: one provider owns a host).

Any GET path: the feed whose URL has that host and path (:mod:`.documents`), else a plain
404 page, as a web server sends it.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from marketdata.records.feeds import PUBLISHERS
from marketdata.sandbox.common import text_response
from marketdata.sandbox.feeds import documents
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse

# The SEC's hosts belong to the SEC sandbox (its router serves the two SEC feeds).
HOSTS = tuple(sorted({urlsplit(p.url).hostname or "" for p in PUBLISHERS} - {"www.sec.gov"}))

ROUTES = (
    Route(("GET",), re.compile(r"/.*"), documents.handle_feed),
)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    return text_response(f"{code}: {description}", status)


def _not_found() -> SandboxResponse:
    return text_response("Not Found", 404)


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """The publishers: stateless and keyless."""
    return SimulatedProvider(name="feeds", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=_not_found)
