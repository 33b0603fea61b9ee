"""The Treasury's route table and its simulated provider (host ``home.treasury.gov``)."""

from __future__ import annotations

import re

from marketdata.sandbox.common import text_response
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.treasury import rates_csv

HOSTS = ("home.treasury.gov",)

ROUTES = (
    Route(("GET",), re.compile(r"/resource-center/data-chart-center/interest-rates/"
                               r"daily-treasury-rates\.csv/(?P<year>\d{4})/all"),
          rates_csv.handle_rates_csv),
)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    # Treasury's site answers errors with HTML pages.
    return text_response(f"<!DOCTYPE html><html><head><title>{code}</title></head><body>"
                         f"<h1>{code}</h1><p>{description}</p></body></html>", status,
                         "text/html; charset=UTF-8")


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """Treasury: keyless and stateless."""
    return SimulatedProvider(name="treasury", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=rates_csv.not_found_page)
