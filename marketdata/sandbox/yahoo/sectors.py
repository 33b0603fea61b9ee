"""Sandbox endpoint: sectors (placeholder until its issue-3 helper fills it in)."""

from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.common import Request, not_found_route


def handle_sector(req: Request) -> SandboxResponse:
    return not_found_route()
