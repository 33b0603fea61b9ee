"""Sandbox endpoint: transcripts (placeholder until its issue-3 helper fills it in)."""

from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.common import Request, not_found_route


def handle_earnings_calls_page(req: Request) -> SandboxResponse:
    return not_found_route()


def handle_quote_type(req: Request) -> SandboxResponse:
    return not_found_route()


def handle_transcript(req: Request) -> SandboxResponse:
    return not_found_route()
