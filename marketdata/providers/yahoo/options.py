"""Yahoo's v7 options: the ``options`` fetcher (one expiry of an underlying's chain).

Query -> ``/v7/finance/options/{symbol}[?date=<expiry, Unix seconds>]`` (crumb-protected)
-> :class:`marketdata.records.options.OptionChain`: every expiry Yahoo lists, the expiry it
served (the nearest without ``date``), its strikes, and its calls and puts with every member
Yahoo sends, values as sent (implied volatility a fraction, as Yahoo has it). An underlying
without options (a currency, crypto, most indices) is a chain with empty lists; an empty
``result`` is an unknown symbol (NotFound).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from marketdata.cache import TTLPolicy
from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import integer, json_number, raw, text
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.records.options import (
    CONTRACT_BOOLEANS,
    CONTRACT_INTEGERS,
    CONTRACT_MEMBERS,
    CONTRACT_NUMBERS,
    CONTRACT_STRINGS,
    OptionChain,
)

# Quotes of options move with the underlying: a minute while markets trade.
OPTIONS_TTL = TTLPolicy("options", open=60, extended=300, closed=600)


def _bad(detail: str) -> UpstreamBadResponse:
    return UpstreamBadResponse("yahoo", f"Yahoo Finance options {detail}")


def _boolean(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


# How each member is read: numbers as sent (110 stays 110), counts and times as ints.
_READERS: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(CONTRACT_NUMBERS, lambda value: json_number(raw(value))),
    **dict.fromkeys(CONTRACT_INTEGERS, integer),
    **dict.fromkeys(CONTRACT_STRINGS, lambda value: text(value, clean=False) or None),
    **dict.fromkeys(CONTRACT_BOOLEANS, _boolean),
}


def parse_contract(item: dict[str, Any]) -> dict[str, Any]:
    """One contract: every member, typed, None where Yahoo sent nothing usable."""
    return {name: _READERS[name](item.get(name)) for name in CONTRACT_MEMBERS}


def _contracts(items: Any) -> list[dict[str, Any]]:
    contracts = [parse_contract(item) for item in (items or []) if isinstance(item, dict)]
    return sorted((c for c in contracts if c["strike"] is not None),
                  key=lambda c: c["strike"])


def _stamps(values: Any) -> list[int]:
    return sorted({int(v) for v in (values or []) if isinstance(v, int | float)
                   and not isinstance(v, bool)})


def parse_options(payload: Any, symbol: str) -> OptionChain:
    """Yahoo's ``optionChain`` body -> OptionChain (see the module doc)."""
    chain = payload.get("optionChain") if isinstance(payload, dict) else None
    if not isinstance(chain, dict):
        raise _bad("answer has no 'optionChain' object")
    results = chain.get("result")
    if not isinstance(results, list):
        raise _bad("answer has no result list")
    if not results or not isinstance(results[0], dict):
        raise NotFound(f"No options data found for symbol {symbol}")
    result = results[0]
    served = (result.get("options") or [None])[0]
    served = served if isinstance(served, dict) else {}
    calls, puts = _contracts(served.get("calls")), _contracts(served.get("puts"))
    strikes = sorted({s for s in (result.get("strikes") or [])
                      if isinstance(s, int | float) and not isinstance(s, bool)})
    if not strikes:  # Yahoo left them out: those of the contracts served
        strikes = sorted({c["strike"] for c in calls + puts})
    expiration = integer(served.get("expirationDate"))
    underlying = result.get("underlyingSymbol")
    return OptionChain(symbol=underlying if isinstance(underlying, str) and underlying
                       else symbol,
                       expiration_dates=_stamps(result.get("expirationDates")),
                       expiration_date=expiration, strikes=strikes, calls=calls, puts=puts)


def option_chain(symbol: str, expiration: int | None = None) -> OptionChain:
    """The ``options`` fetcher: one expiry (the nearest when None) of a validated symbol's
    chain, through the cache (keyed by the expiry asked for)."""

    def fetch() -> OptionChain:
        params = {"formatted": "false"}
        if expiration is not None:
            params["date"] = str(expiration)
        payload = get_json("options", f"{yahoo.QUERY2}/v7/finance/options/"
                                      f"{quote(symbol, safe='')}", params,
                           not_found=f"No options data found for symbol {symbol}")
        return parse_options(payload, symbol)

    return yahoo_provider().cached("options", {"symbol": symbol,
                                               "date": "nearest" if expiration is None
                                               else expiration},
                                   fetch, OPTIONS_TTL, group="options")
