"""Yahoo's v7 options: the ``options`` fetcher (one expiry of an underlying's chain).

Query -> ``/v7/finance/options/{symbol}[?date=<expiry, Unix seconds>]`` (crumb-protected)
-> :class:`marketdata.records.options.OptionChain`: every expiry Yahoo lists, the expiry it
served (the nearest without ``date``), its strikes, and its calls and puts with every member
Yahoo sends, values as sent (implied volatility a fraction, as Yahoo has it). An underlying
without options (a currency, crypto, most indices) is a chain with empty lists; an empty
``result`` is an unknown symbol (NotFound).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from marketdata.cache import TTLPolicy
from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import integer, json_number, raw, text
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.records.options import OptionChain, OptionContract

# Quotes of options move with the underlying: a minute while markets trade.
OPTIONS_TTL = TTLPolicy("options", open=60, extended=300, closed=600)


def _bad(detail: str) -> UpstreamBadResponse:
    return UpstreamBadResponse("yahoo", f"Yahoo Finance options {detail}")


def _boolean(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def parse_contract(item: dict[str, Any]) -> OptionContract:
    """One contract: every member, typed, None where Yahoo sent nothing usable; numbers as
    sent (110 stays 110), counts and times as ints."""

    def number(name: str) -> float | None:
        return json_number(raw(item.get(name)))

    def string(name: str) -> str | None:
        return text(item.get(name), clean=False) or None

    def count(name: str) -> int | None:
        return integer(item.get(name))

    return OptionContract(
        contract_symbol=string("contractSymbol"), strike=number("strike"),
        currency=string("currency"), last_price=number("lastPrice"), change=number("change"),
        percent_change=number("percentChange"), volume=count("volume"),
        open_interest=count("openInterest"), bid=number("bid"), ask=number("ask"),
        contract_size=string("contractSize"), expiration=count("expiration"),
        last_trade_date=count("lastTradeDate"),
        implied_volatility=number("impliedVolatility"),
        in_the_money=_boolean(item.get("inTheMoney")))


def _contracts(items: Any) -> list[OptionContract]:
    contracts = [parse_contract(item) for item in (items or []) if isinstance(item, dict)]
    priced = [(c.strike, c) for c in contracts if c.strike is not None]
    return [c for _, c in sorted(priced, key=lambda pair: pair[0])]


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
        strikes = sorted({c.strike for c in calls + puts if c.strike is not None})
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
