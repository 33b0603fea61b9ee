"""FMP's route table and its simulated provider (host ``financialmodelingprep.com``).

Every route needs the ``apikey`` query parameter (checked by the guard: FMP's 401/402
bodies); errors and unknown paths are FMP's ``{"Error Message": ...}``.
"""

from __future__ import annotations

import re

from marketdata.sandbox.common import Request
from marketdata.sandbox.fmp import (
    analysts,
    constituents,
    disclosures,
    earnings,
    market_news,
    press,
)
from marketdata.sandbox.fmp.common import error, refusal
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse

HOSTS = ("financialmodelingprep.com",)

ROUTES = (
    Route(("GET",), re.compile(r"/stable/grades"), analysts.handle_grades, crumb=True),
    Route(("GET",), re.compile(r"/stable/price-target-consensus"),
          analysts.handle_price_target_consensus, crumb=True),
    Route(("GET",), re.compile(r"/stable/price-target-summary"),
          analysts.handle_price_target_summary, crumb=True),
    Route(("GET",), re.compile(r"/stable/news/press-releases"), press.handle_press_releases,
          crumb=True),
    Route(("GET",), re.compile(r"/stable/news/(?P<kind>crypto|forex)-latest"),
          market_news.handle_market_news, crumb=True),
    Route(("GET",), re.compile(r"/stable/earnings"), earnings.handle_earnings, crumb=True),
    Route(("GET",), re.compile(r"/stable/(?P<list>sp500|nasdaq|dowjones)-constituent"),
          constituents.handle_constituents, crumb=True),
    Route(("GET",), re.compile(r"/api/v4/fail_to_deliver"), disclosures.handle_fail_to_deliver,
          crumb=True),
    Route(("GET",), re.compile(r"/stable/senate-trades"), disclosures.handle_senate_trades,
          crumb=True),
    Route(("GET",), re.compile(r"/stable/house-trades"), disclosures.handle_house_trades,
          crumb=True),
)


def _guard(route: Route, req: Request) -> SandboxResponse | None:
    return refusal(req)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    return error(description, status)


def _not_found() -> SandboxResponse:
    return error("Not Found", 404)


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """FMP: stateless (the ``apikey`` in each request is the whole auth)."""
    return SimulatedProvider(name="fmp", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=_not_found, guard=_guard)
