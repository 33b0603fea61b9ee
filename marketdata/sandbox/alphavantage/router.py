"""Alpha Vantage's route table and its simulated provider (host ``www.alphavantage.co``).

One route, ``GET /query``, as Alpha Vantage has; the ``apikey`` query parameter is checked
by the guard, and every answer is a 200, as Alpha Vantage sends them: a missing key or one
containing ``INVALID`` is its "apikey is invalid or missing" error; one containing
``LIMIT`` its notice that the day's call allowance is spent; one containing ``PREMIUM`` its
premium-function notice.
"""

from __future__ import annotations

import re

from marketdata.sandbox.alphavantage import fundamentals
from marketdata.sandbox.common import Request
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse

HOSTS = ("www.alphavantage.co",)

ROUTES = (
    Route(("GET",), re.compile(r"/query/?"), fundamentals.handle_query, crumb=True),
)

INVALID_KEY = ("the parameter apikey is invalid or missing. Please claim your free API key "
               "on (https://www.alphavantage.co/support/#api-key). It should take less than "
               "20 seconds.")
DAILY_LIMIT = ("We have detected your API key as SANDBOX and our standard API rate limit is "
               "25 requests per day. Please subscribe to any of the premium plans at "
               "https://www.alphavantage.co/premium/ to instantly remove all daily rate "
               "limits.")
PREMIUM = ("Thank you for using Alpha Vantage! This is a premium endpoint. You may subscribe "
           "to any of the premium plans at https://www.alphavantage.co/premium/ to "
           "instantly unlock all premium endpoints")


def _guard(route: Route, req: Request) -> SandboxResponse | None:
    key = (req.arg("apikey") or "").strip().upper()
    if not key or "INVALID" in key:
        return fundamentals.message("Error Message", INVALID_KEY)
    if "LIMIT" in key:
        return fundamentals.message("Information", DAILY_LIMIT)
    if "PREMIUM" in key:
        return fundamentals.message("Information", PREMIUM)
    return None


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    return fundamentals.message("Error Message", description)


def _not_found() -> SandboxResponse:
    return fundamentals.invalid_call("this request")


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """Alpha Vantage: stateless (the ``apikey`` in each request is the whole auth)."""
    return SimulatedProvider(name="alphavantage", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=_not_found, guard=_guard)
