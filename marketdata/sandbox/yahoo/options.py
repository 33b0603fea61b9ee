"""GET /v7/finance/options/{symbol}[?date=]: Yahoo's option chain of one expiry.

Why these chains: US stocks and ETFs list options; the sandbox prices them with
Black-Scholes on the symbol's own price and volatility (a mild smile around the money), so
the chain moves with the simulated quote and stays internally consistent (calls fall and
puts rise with the strike, in-the-money flags follow the price). Everything else (indices,
currencies, crypto, funds, foreign listings) answers as Yahoo does for BTC-USD: a result
with the quote and empty lists.

Yahoo's shape and rules that the service can meet: ``optionChain.result[0]`` has
``underlyingSymbol``, ``expirationDates`` (Unix seconds at 00:00 UTC of each expiry day:
the next eight Fridays, the third Friday of the six months after, the January expiries of
the next two years), ``strikes`` (those of the served expiry), ``hasMiniOptions``,
``quote`` (the v7 quote) and ``options`` (one expiry: ``expirationDate``, ``calls``,
``puts``). Without ``date`` the nearest expiry is served; a ``date`` not listed gives that
date with empty sides (as an expired date does on Yahoo). An unknown symbol is
``{"optionChain": {"result": [], "error": null}}``.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from typing import Any

from marketdata.sandbox.common import json_response
from marketdata.sandbox.instruments import EQUITY, ETF, Instrument, get_instrument, stable_hash
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.common import Request, finance_error
from marketdata.sandbox.yahoo.market import market_view
from marketdata.sandbox.yahoo.quote import quote_object

RATE = 0.04  # the risk-free rate of the pricing
STRIKES_EACH_SIDE = 12


def lists_options(inst: Instrument) -> bool:
    return inst.kind in (EQUITY, ETF) and inst.currency == "USD" \
        and inst.venue.calendar == "XNYS"


def _third_friday(year: int, month: int) -> date:
    first = date(year, month, 1)
    return first + timedelta(days=(4 - first.weekday()) % 7 + 14)


def expiry_days(today: date) -> list[date]:
    """The listed expiries after ``today``: weeklies, monthlies, January LEAPS."""
    friday = today + timedelta(days=(4 - today.weekday()) % 7 or 7)
    days = {friday + timedelta(weeks=k) for k in range(8)}
    for k in range(1, 7):
        month = (today.month - 1 + k) % 12 + 1
        days.add(_third_friday(today.year + (today.month - 1 + k) // 12, month))
    days.update(_third_friday(today.year + k, 1) for k in (1, 2))
    return sorted(d for d in days if d > today)


def _midnight(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


def _step(price: float) -> float:
    return 0.5 if price < 25 else 1.0 if price < 60 else 2.5 if price < 200 else 5.0


def strikes_around(price: float) -> list[float | int]:
    step = _step(price)
    center = round(price / step) * step
    strikes = [round(center + k * step, 2)
               for k in range(-STRIKES_EACH_SIDE, STRIKES_EACH_SIDE + 1) if center + k * step > 0]
    return [int(k) if float(k).is_integer() else k for k in strikes]  # Yahoo: 110, 112.5


def _cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def black_scholes(spot: float, strike: float, years: float, vol: float,
                  call: bool) -> float:
    if years <= 0 or vol <= 0:
        return max(0.0, spot - strike) if call else max(0.0, strike - spot)
    d1 = (math.log(spot / strike) + (RATE + vol * vol / 2) * years) / (vol * math.sqrt(years))
    d2 = d1 - vol * math.sqrt(years)
    if call:
        return spot * _cdf(d1) - strike * math.exp(-RATE * years) * _cdf(d2)
    return strike * math.exp(-RATE * years) * _cdf(-d2) - spot * _cdf(-d1)


def contract(inst: Instrument, expiry: date, strike: float | int, call: bool, spot: float,
             now: int, last_trade: int) -> dict[str, Any]:
    """One contract in Yahoo's member order."""
    years = max((_midnight(expiry) + 20 * 3600 - now) / (365.25 * 86400), 1 / 365.25)
    base_vol = inst.daily_vol * math.sqrt(252)
    vol = base_vol * (1 + 0.6 * math.log(strike / spot) ** 2 + 0.05 * (1 if call else -1))
    price = black_scholes(spot, strike, years, vol, call)
    seed = stable_hash("option", inst.symbol, expiry.isoformat(), f"{strike}", str(call))
    mid = max(round(price, 2), 0.01)
    spread = max(0.01, round(mid * 0.03, 2))
    change = round(mid * ((seed % 2001) - 1000) / 20000, 2)
    moneyness = abs(math.log(strike / spot))
    interest = int(5000 * math.exp(-8 * moneyness) * (1 + seed % 7)) + seed % 50
    kind = "C" if call else "P"
    return {
        "contractSymbol": f"{inst.symbol.replace('-', '')}{expiry:%y%m%d}{kind}"
                          f"{round(strike * 1000):08d}",
        "strike": strike, "currency": "USD", "lastPrice": mid, "change": change,
        "percentChange": round(change / (mid - change) * 100, 4) if mid != change else 0.0,
        "volume": interest // 4 + seed % 30, "openInterest": interest,
        "bid": max(round(mid - spread / 2, 2), 0.0), "ask": round(mid + spread / 2, 2),
        "contractSize": "REGULAR", "expiration": _midnight(expiry),
        "lastTradeDate": last_trade - seed % 3600, "impliedVolatility": round(vol, 6),
        "inTheMoney": strike < spot if call else strike > spot,
    }


def handle_options(req: Request) -> SandboxResponse:
    symbol = req.params["symbol"].upper()
    inst = get_instrument(symbol)
    if inst is None:
        return json_response({"optionChain": {"result": [], "error": None}})
    date_arg = req.int_arg("date")
    if date_arg is None and req.arg("date") not in (None, ""):
        return finance_error("Bad Request", "Invalid date", 400)
    now = req.now()
    view = market_view(get_series(inst), now)
    result: dict[str, Any] = {"underlyingSymbol": inst.symbol, "expirationDates": [],
                              "strikes": [], "hasMiniOptions": False,
                              "quote": quote_object(view), "options": []}
    if not lists_options(inst):
        return json_response({"optionChain": {"result": [result], "error": None}})
    today = datetime.fromtimestamp(now, UTC).date()
    days = expiry_days(today)
    stamps = [_midnight(d) for d in days]
    result["expirationDates"] = stamps
    chosen = stamps[0] if date_arg is None else date_arg
    if chosen not in stamps:
        result["options"] = [{"expirationDate": chosen, "hasMiniOptions": False,
                              "calls": [], "puts": []}]
        return json_response({"optionChain": {"result": [result], "error": None}})
    expiry = days[stamps.index(chosen)]
    spot = view.snap.price
    strikes = strikes_around(spot)
    last_trade = min(now, view.snap.market_time)
    result["strikes"] = strikes
    result["options"] = [{
        "expirationDate": chosen, "hasMiniOptions": False,
        "calls": [contract(inst, expiry, k, True, spot, now, last_trade) for k in strikes],
        "puts": [contract(inst, expiry, k, False, spot, now, last_trade) for k in strikes],
    }]
    return json_response({"optionChain": {"result": [result], "error": None}})
