"""What every simulated FMP endpoint shares: the ``apikey`` check, FMP's error bodies, and
the sandbox instrument behind a symbol.

FMP answers errors as ``{"Error Message": "..."}``: 401 for a missing or bad key, 402 for
an endpoint outside the key's plan. A symbol FMP does not know (or has no rows for) is a
200 with ``[]``, never a 404.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.instruments import EQUITY, Instrument, get_instrument
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.market import MarketView, market_view

INVALID_KEY = ("Invalid API KEY. Feel free to create a Free API Key or visit "
               "https://site.financialmodelingprep.com/faqs?search=why-is-my-api-key-invalid "
               "for more information.")
RESTRICTED = ("Restricted Endpoint: This endpoint is not available under your current "
              "subscription please visit our subscription page to upgrade your plan at "
              "https://site.financialmodelingprep.com/pricing-plans")


def error(message: str, status: int) -> SandboxResponse:
    """FMP's error body."""
    return json_response({"Error Message": message}, status)


def refusal(req: Request) -> SandboxResponse | None:
    """FMP's answer to the request's ``apikey``, or None when it is accepted: missing or
    containing INVALID -> 401; containing RESTRICTED -> 402 (a plan without the endpoint)."""
    key = (req.arg("apikey") or "").strip()
    if not key or "INVALID" in key.upper():
        return error(INVALID_KEY, 401)
    if "RESTRICTED" in key.upper():
        return error(RESTRICTED, 402)
    return None


def symbol_arg(req: Request, name: str = "symbol") -> str | None:
    value = (req.arg(name) or "").strip().upper()
    return value or None


def missing(name: str) -> SandboxResponse:
    """The sandbox's answer to a missing required parameter (FMP's wording is not
    recorded; the status and envelope are FMP's)."""
    return error(f"Invalid or missing query parameter - {name}", 400)


def equity(symbol: str) -> Instrument | None:
    """The sandbox equity behind ``symbol``; None for unknown symbols and for funds,
    indices, currencies, crypto and futures (FMP has no analyst data or press releases for
    them, and neither has the sandbox's Yahoo)."""
    inst = get_instrument(symbol)
    return inst if inst is not None and inst.kind == EQUITY else None


def view_of(inst: Instrument, req: Request) -> MarketView:
    """The Yahoo sandbox's market view of the instrument at the request's clock, so FMP
    and Yahoo agree on prices and analyst data."""
    return market_view(get_series(inst), req.now())


def today(req: Request) -> datetime:
    return datetime.fromtimestamp(req.now(), UTC)


def whole(value: float) -> int | float:
    """A price as FMP's JSON writes it: 310 rather than 310.0 when whole."""
    return int(value) if float(value).is_integer() else value


def empty() -> SandboxResponse:
    return json_response([])


def rows(payload: list[dict[str, Any]]) -> SandboxResponse:
    return json_response(payload)


def headquarters(inst: Instrument) -> tuple[str, str | None]:
    """(city, state) of the company as the Yahoo sandbox's assetProfile places it, so the
    constituents' ``headQuarter`` and the press releases' datelines agree with it."""
    from marketdata.sandbox.yahoo.quote_summary import _company_header

    header = _company_header(inst)
    return header["city"], header.get("state")
