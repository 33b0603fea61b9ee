"""GET /v1/{start}..{end}?base=&symbols=: Frankfurter's time series of ECB reference rates.

Why these rates: the ECB fix of a pair on a day is the close of the sandbox's Yahoo series
of ``{BASE}{QUOTE}=X`` on that day's session, so the forex endpoint's two sources agree
(Yahoo's live price moves on from the last fix as the day goes). Rounded as the ECB and
Frankfurter publish: euro-based rates to five significant digits (1.0389, 162.88), rebased
ones with Frankfurter's thresholds (above 5000 no decimals, above 80 two, above 20 three,
above 1 four, above 0.0001 five, else six).

Frankfurter's v1 rules that the service can meet: ``base`` (or ``from``) defaults to EUR;
``symbols`` (or ``to``) is a comma list, all other ECB currencies when absent; ``..`` with
no end date runs to today; the series starts at the last fix on or before ``start`` and
ends at the last published fix; ``start_date``/``end_date`` are the first and last dates
returned. Unknown currencies (the ECB publishes 29 against the euro; BGN stopped in 2026)
or a window without fixes: 404 ``{"message": "not found"}``; a base equal to its only
symbol, or a date that is not one: 422 ``{"message": ...}``. ``amount`` is not simulated.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import numpy as np

from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.frankfurter.ecb_calendar import fix_days, last_published, previous_fix_day
from marketdata.sandbox.prices import series_for
from marketdata.sandbox.response import SandboxResponse

ECB_CURRENCIES = frozenset((
    "AUD", "BRL", "CAD", "CHF", "CNY", "CZK", "DKK", "EUR", "GBP", "HKD", "HUF", "IDR", "ILS",
    "INR", "ISK", "JPY", "KRW", "MXN", "MYR", "NOK", "NZD", "PHP", "PLN", "RON", "SEK", "SGD",
    "THB", "TRY", "USD", "ZAR",
))


def message(text: str, status: int) -> SandboxResponse:
    """Frankfurter's error body."""
    return json_response({"message": text}, status)


def not_found() -> SandboxResponse:
    return message("not found", 404)


def publish_round(value: float, base: str) -> float:
    """A rate as the ECB (euro base) or Frankfurter (rebased) publishes it."""
    if base == "EUR":
        return float(f"{value:.5g}")
    for floor, decimals in ((5000, 0), (80, 2), (20, 3), (1, 4), (0.0001, 5)):
        if value > floor:
            return float(round(value, decimals))
    return round(value, 6)


def fix(base: str, quote: str, day: date) -> float | None:
    """The pair's fix on ``day``: the sandbox close of ``{base}{quote}=X`` that day (None
    before the pair's history starts)."""
    series = series_for(f"{base}{quote}=X")
    if series is None:
        return None
    i = int(np.searchsorted(series.days, np.datetime64(day, "D")))
    if i >= len(series) or series.days[i] != np.datetime64(day, "D"):
        return None
    return publish_round(float(series.c[i]), base)


def _date(text: str | None) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def _codes(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [code.strip().upper() for code in text.split(",") if code.strip()]


def timeseries(base: str, symbols: list[str] | None, start: date, end: date,
               now: datetime) -> dict[str, Any] | None:
    """The answer's body, or None for Frankfurter's 404."""
    if base not in ECB_CURRENCIES:
        return None
    wanted = sorted(ECB_CURRENCIES - {base} if symbols is None
                    else {s for s in symbols if s in ECB_CURRENCIES and s != base})
    if not wanted or start > now.date():
        return None
    last = min(end, last_published(now))
    rates: dict[str, dict[str, float]] = {}
    for day in fix_days(previous_fix_day(start), last):
        row = {q: rate for q in wanted if (rate := fix(base, q, day)) is not None}
        if row:
            rates[day.isoformat()] = row
    if not rates:
        return None
    days = list(rates)
    return {"amount": 1.0, "base": base, "start_date": days[0], "end_date": days[-1],
            "rates": rates}


def handle_timeseries(req: Request) -> SandboxResponse:
    now = req.clock()
    start = _date(req.params.get("start"))
    end = _date(req.params.get("end")) if req.params.get("end") else now.date()
    if start is None or end is None:
        return message("invalid date", 422)
    base = (req.arg("base") or req.arg("from") or "EUR").strip().upper()
    symbols = _codes(req.arg("symbols") or req.arg("to"))
    if symbols == [base]:
        return message("bad currency pair", 422)
    body = timeseries(base, symbols, start, end, now)
    return json_response(body) if body is not None else not_found()
