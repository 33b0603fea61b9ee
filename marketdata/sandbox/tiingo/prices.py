"""GET /tiingo/daily/{ticker}/prices: Tiingo's end-of-day prices of a US ticker.

Why these prices: a day's row is the sandbox's daily bar of the same symbol (the series
behind the simulated Yahoo chart), as traded that day, so the service's two sources of bars
agree once the service adjusts them as Yahoo does. The sandbox's series is split-adjusted
(Yahoo's chart shows it so, with its split events): raw prices and dividends are the series
times the ratios of the splits after the day, raw volumes divided by them, prices rounded
to 4 decimals; ``splitFactor`` is the ratio on a split's ex-day; ``adjClose`` (and the other
``adj*``) is the series times the dividend adjustment factor; ``divCash`` the dividend going
ex that day. Only sessions that have
closed by the sandbox clock are listed (end-of-day data): a session still open is not there.

Tiingo's rules that the service can meet: ``startDate`` and ``endDate`` (``YYYY-MM-DD``,
both included; no ``startDate`` means the latest row only); ``resampleFreq=daily`` (the only
frequency the service asks for; any other is refused with a 400 so a change would be seen);
tickers are case-insensitive. A ticker Tiingo has no end-of-day prices for (indices,
currencies, futures, crypto, listings outside the US) is its 404 ``{"detail": "Error: Ticker
'X' not found"}``; a malformed date is a 400 ``{"detail": ...}``.
"""

from __future__ import annotations

from datetime import date

import numpy as np

from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.instruments import EQUITY, ETF, MUTUALFUND, Instrument, get_instrument
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.chart import split_sessions

US_KINDS = frozenset({EQUITY, ETF, MUTUALFUND})


def detail(text: str, status: int) -> SandboxResponse:
    """Tiingo's error body."""
    return json_response({"detail": text}, status)


def us_listing(ticker: str) -> Instrument | None:
    """The sandbox instrument behind a Tiingo ticker: a US stock, ETF or fund (Tiingo spells
    share classes with a hyphen, as Yahoo does)."""
    inst = get_instrument(ticker.upper())
    if inst is None or inst.kind not in US_KINDS or inst.currency != "USD" \
            or inst.venue.calendar != "XNYS":
        return None
    return inst


def _date_arg(req: Request, name: str) -> tuple[date | None, SandboxResponse | None]:
    text = (req.arg(name) or "").strip()
    if not text:
        return None, None
    try:
        year, month, day = (int(part) for part in text.split("-"))
        return date(year, month, day), None
    except ValueError:
        return None, detail(f"Error: {name} is not a valid date (YYYY-MM-DD)", 400)


def handle_prices(req: Request) -> SandboxResponse:
    ticker = req.params["ticker"]
    inst = us_listing(ticker)
    if inst is None:
        return detail(f"Error: Ticker '{ticker}' not found", 404)
    frequency = (req.arg("resampleFreq") or "daily").lower()
    if frequency != "daily":
        return detail(f"Error: resampleFreq {frequency} is not simulated", 400)
    start, refused = _date_arg(req, "startDate")
    if refused is not None:
        return refused
    end, refused = _date_arg(req, "endDate")
    if refused is not None:
        return refused
    series = get_series(inst)
    closed = int(np.searchsorted(series.closes, req.now(), side="right"))  # sessions done
    if closed == 0:
        return json_response([])
    days = series.days[:closed]
    if start is None:
        first, last = closed - 1, closed  # the latest row only
    else:
        first = int(np.searchsorted(days, np.datetime64(start, "D"), side="left"))
        last = closed if end is None else int(
            np.searchsorted(days, np.datetime64(end, "D"), side="right"))
    if first >= last:
        return json_response([])
    factors = series.adj_factors(closed - 1)
    splits = {i: num / den for i, num, den in split_sessions(inst.symbol) if i < closed}
    later = 1.0  # the product of the ratios of the splits after session i
    for i in splits:
        if i >= last:
            later *= splits[i]
    rows = []
    for i in range(last - 1, first - 1, -1):
        factor = float(factors[i])
        adj_volume = int(series.v[i])
        rows.append({
            "date": f"{days[i]}T00:00:00.000Z",
            "close": round(float(series.c[i]) * later, 4),
            "high": round(float(series.h[i]) * later, 4),
            "low": round(float(series.lo[i]) * later, 4),
            "open": round(float(series.o[i]) * later, 4),
            "volume": round(adj_volume / later),
            "adjClose": round(float(series.c[i]) * factor, 6),
            "adjHigh": round(float(series.h[i]) * factor, 6),
            "adjLow": round(float(series.lo[i]) * factor, 6),
            "adjOpen": round(float(series.o[i]) * factor, 6),
            "adjVolume": adj_volume, "divCash": round(float(series.div[i]) * later, 4),
            "splitFactor": float(splits.get(i, 1)),
        })
        later *= splits.get(i, 1)
    return json_response(rows[::-1])
