"""Tiingo's end-of-day prices: a keyed second source of daily, weekly, monthly and quarterly
bars (the ``bars`` capability's fallback when Yahoo's chart fails).

Why Tiingo: its free key serves the whole daily history of US stocks, ETFs and mutual funds
(about 30 years), split- and dividend-adjusted as well as raw, with each day's dividend and
split; its terms allow programmatic use with a key. Nothing intraday: a query for minutes or
hours is :class:`~marketdata.errors.NotServed`, and so is a symbol outside its US ticker
shape (an index ``^GSPC``, a future ``ES=F``, a pair ``EURUSD=X``, a foreign listing
``7203.T``, crypto ``BTC-USD``), so the capability passes over it without a call.

One call: ``GET https://api.tiingo.com/tiingo/daily/{ticker}/prices?startDate=YYYY-MM-DD
&resampleFreq=daily`` (never an ``endDate``: see below) with the key in the ``Authorization: Token
<key>`` header (never in a URL, so never in an access log). The answer is a JSON array, oldest
first, of ``{"date": "2025-01-02T00:00:00.000Z", "open", "high", "low", "close", "volume",
"adjOpen", "adjHigh", "adjLow", "adjClose", "adjVolume", "divCash", "splitFactor"}``; an
empty array is a known ticker without bars in the window. Weekly, monthly and quarterly bars
are built here from the daily ones (Tiingo's own resampling ends a week on Friday and a month
on its last business day; Yahoo's bars, which clients already have, start the period), so
every interval is one cached daily call.

Troubles: 401 ``{"detail": "Invalid token."}`` (or a 200 body naming the token) is a refused
key (:class:`~marketdata.providers.base.KeyedProvider` remembers it); 404 ``{"detail":
"Error: Ticker 'X' not found"}`` is NotServed here, not NotFound: Tiingo is asked only after
Yahoo failed, and a ticker Tiingo lacks says nothing about the symbol; 429 (the hourly or
daily allowance spent) is a 429; other 4xx are 502.

What a bar is: what Yahoo's chart has, so a fallback changes the source, not the numbers:
stamped at the session's open (09:30 New York); prices, dividends and volumes adjusted for
the splits after the day (Tiingo sends them raw, with each day's ``splitFactor``; the window
is therefore always asked up to today, so every later split is known), not for dividends;
``adjclose`` is Tiingo's ``adjClose`` (splits and dividends). The meta says what an
end-of-day source knows (symbol, USD, the exchange's time zone, the last close and its day's
range, the close before it) and leaves the rest None.
"""

from __future__ import annotations

import dataclasses
import re
import time as clock
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from fractions import Fraction
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

from marketdata.errors import CredentialsRejected, MarketDataError, NotServed
from marketdata.formatting import number
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.providers.base import KeyedProvider
from marketdata.providers.registry import get_provider
from marketdata.records.bars import BarEvents, Bars, chart_meta

# Asked only after Yahoo failed, within what is left of the deadline: one retry.
PROVIDER = ProviderConfig(name="tiingo", display_name="Tiingo", connect_timeout=2.0,
                          read_timeout=8.0, max_attempts=2, hosts=("api.tiingo.com",))
DAILY_URL = "https://api.tiingo.com/tiingo/daily"
ENDPOINT = "daily_prices"

NEW_YORK = ZoneInfo("America/New_York")
SESSION_OPEN = time(9, 30)
SESSION_CLOSE = time(16, 0)
# The intervals served, and the calendar period each groups daily bars by.
PERIODS: dict[str, Callable[[date], tuple[int, ...]]] = {
    "1d": lambda day: (day.toordinal(),),
    "1wk": lambda day: ((day - timedelta(days=day.weekday())).toordinal(),),
    "1mo": lambda day: (day.year, day.month),
    "3mo": lambda day: (day.year, (day.month - 1) // 3),
}
# Tiingo's US tickers: a letter, then letters or digits, and a share class after a hyphen
# (BRK-B). Everything else (^GSPC, ES=F, EURUSD=X, 7203.T, BTC-USD) is not Tiingo's.
_TICKER = re.compile(r"[A-Z][A-Z0-9]{0,9}(?:-[A-Z]{1,2})?")
# How far back each range reaches (calendar months); 1d and 5d are the last sessions.
_RANGE_MONTHS = {"1mo": 1, "3mo": 3, "6mo": 6, "1y": 12, "2y": 24, "5y": 60, "10y": 120}
_LAST_SESSIONS = {"1d": 1, "5d": 5}
_FIRST_DAY = date(1900, 1, 1)  # "max": from the first day Tiingo has
# End-of-day prices change once a day (corrections until about 20:00 New York): the daily
# chart's market-aware TTL.
PRICES_POLICY = "chart_daily"


@dataclass(frozen=True)
class DailyRow:
    """One day of Tiingo's answer, as sent."""

    day: date
    open: float
    high: float
    low: float
    close: float
    volume: int | None
    adjclose: float | None
    dividend: float
    split: float


def new_york_today() -> date:
    """Today in New York (a function, so tests can freeze it)."""
    return datetime.now(NEW_YORK).date()


def _at(day: date, moment: time) -> int:
    return int(datetime.combine(day, moment, NEW_YORK).timestamp())


def _day(value: Any) -> date | None:
    if not isinstance(value, str) or len(value) < 10:
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def parse_prices(payload: Any) -> list[DailyRow]:
    """Tiingo's array -> daily rows, oldest first. A row without a date or without a usable
    open, high, low or close is skipped; a repeated day keeps the last row. A body that is not
    an array is a 502 (or a refused key, when it names the token)."""
    if isinstance(payload, dict):
        refusal = TiingoProvider.refusal_in_body(payload)
        if refusal is not None:
            raise refusal
        raise PROVIDER.bad_answer("returned an object instead of a list of prices")
    if not isinstance(payload, list):
        raise PROVIDER.bad_answer("returned a body that is not a list of prices")
    rows: dict[date, DailyRow] = {}
    for item in payload:
        if not isinstance(item, dict):
            continue
        day = _day(item.get("date"))
        prices = [number(item.get(name)) for name in ("open", "high", "low", "close")]
        if day is None or any(value is None for value in prices):
            continue
        volume = number(item.get("volume"))
        dividend = number(item.get("divCash")) or 0.0
        split = number(item.get("splitFactor")) or 1.0
        open_, high, low, close = (float(value) for value in prices if value is not None)
        rows[day] = DailyRow(day, open_, high, low, close,
                             int(volume) if volume is not None and volume >= 0 else None,
                             number(item.get("adjClose")), max(dividend, 0.0),
                             split if split > 0 else 1.0)
    return [rows[day] for day in sorted(rows)]


def _split_ratio(factor: float) -> tuple[float, float, str]:
    """Tiingo's split factor (4.0 for 4-for-1, 0.5 for 1-for-2) -> numerator, denominator
    and Yahoo's ratio text."""
    fraction = Fraction(factor).limit_denominator(1000)
    return float(fraction.numerator), float(fraction.denominator), \
        f"{fraction.numerator}:{fraction.denominator}"


def _events(rows: list[DailyRow]) -> BarEvents:
    return BarEvents(
        dividends=[(_at(row.day, SESSION_OPEN), row.dividend) for row in rows if row.dividend],
        splits=[(_at(row.day, SESSION_OPEN), *_split_ratio(row.split)) for row in rows
                if row.split != 1.0],
        capital_gains=[])


def split_adjusted(rows: list[DailyRow]) -> list[DailyRow]:
    """Tiingo's raw prices -> prices as Yahoo's chart has them: adjusted for the splits after
    each day (prices and dividends divided by the later splits' product, volumes
    multiplied), not for dividends; rounded to 6 decimals where a split changed them, so
    no float noise is shown. Only splits within ``rows`` are known: callers ask up to
    today."""
    out: list[DailyRow] = []
    later = 1.0
    for row in reversed(rows):
        if later != 1.0:
            row = dataclasses.replace(
                row, open=round(row.open / later, 6), high=round(row.high / later, 6),
                low=round(row.low / later, 6), close=round(row.close / later, 6),
                volume=None if row.volume is None else round(row.volume * later),
                dividend=round(row.dividend / later, 6))
        out.append(row)
        later *= row.split
    return out[::-1]


def to_bars(rows: list[DailyRow], symbol: str, interval: str,
            range_: str | None) -> Bars:
    """Daily rows (split-adjusted) -> the capability's record at ``interval`` (a period's
    bar: the first open, the highest high, the lowest low, the last close and adjusted
    close, the volumes summed; stamped at its first session's open)."""
    period = PERIODS[interval]
    groups: dict[tuple[int, ...], list[DailyRow]] = {}
    for row in rows:
        groups.setdefault(period(row.day), []).append(row)
    bars = [group for _, group in sorted(groups.items())]
    last = rows[-1] if rows else None
    previous = rows[-2] if len(rows) > 1 else None
    now = datetime.now(NEW_YORK)
    offset = now.utcoffset()
    meta = chart_meta({
        "symbol": symbol, "currency": "USD", "exchangeTimezoneName": "America/New_York",
        "timezone": now.tzname(), "gmtOffset": int(offset.total_seconds()) if offset else None,
        "priceHint": 2, "dataGranularity": interval, "range": range_,
        "hasPrePostMarketData": False,
        "regularMarketPrice": last.close if last else None,
        "regularMarketTime": _at(last.day, SESSION_CLOSE) if last else None,
        "regularMarketDayHigh": last.high if last else None,
        "regularMarketDayLow": last.low if last else None,
        "regularMarketVolume": last.volume if last else None,
        "previousClose": previous.close if previous else None,
    })
    has_adjclose = any(row.adjclose is not None for row in rows)
    return Bars(
        interval=interval, meta=meta,
        timestamps=[_at(group[0].day, SESSION_OPEN) for group in bars],
        open=[group[0].open for group in bars],
        high=[max(row.high for row in group) for group in bars],
        low=[min(row.low for row in group) for group in bars],
        close=[group[-1].close for group in bars],
        volume=[None if any(row.volume is None for row in group)
                else sum(row.volume or 0 for row in group) for group in bars],
        adjclose=[group[-1].adjclose for group in bars] if has_adjclose else None,
        events=_events(rows), source=PROVIDER.name)


class TiingoProvider(KeyedProvider):
    """The key goes in the ``Authorization`` header; see the module doc for the statuses."""

    config = PROVIDER
    key_setting = "TIINGO_API_KEY"

    def authenticate(self, params: dict[str, Any], headers: dict[str, str]) -> None:
        headers["Authorization"] = f"Token {self.api_key}"

    @classmethod
    def refusal_in_body(cls, payload: Any) -> CredentialsRejected | None:
        """Tiingo's ``{"detail": "Invalid token."}`` (with any status)."""
        detail = payload.get("detail") if isinstance(payload, dict) else None
        if isinstance(detail, str) and "token" in detail.lower():
            return cls.key_rejected(None)
        return None

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        if response.status == 404:
            return NotServed(not_found or "Tiingo has no prices for this ticker")
        return super().error_for(response, endpoint, not_found)

    def daily_prices(self, ticker: str, start: date) -> list[DailyRow]:
        """Every day from ``start`` to the latest (no ``endDate``: the splits after a window
        adjust its prices), split-adjusted."""
        params = {"startDate": start.isoformat(), "resampleFreq": "daily"}
        payload = self.get_json(ENDPOINT, f"{DAILY_URL}/{quote(ticker.lower(), safe='-')}/prices",
                                params, not_found=f"Tiingo has no prices for {ticker}")
        return split_adjusted(parse_prices(payload))


def tiingo_provider() -> TiingoProvider:
    return get_provider(PROVIDER.name)


def _first_day(range_: str | None, start: int | None, today: date) -> date:
    """The first day to ask for: an absolute window's first day in New York, or a range
    back from today (1d and 5d: the last ten days, cut to their sessions later)."""
    if start is not None:
        return datetime.fromtimestamp(start, NEW_YORK).date()
    if range_ == "max":
        return _FIRST_DAY
    if range_ == "ytd":
        return date(today.year, 1, 1)
    if range_ in _LAST_SESSIONS:
        return today - timedelta(days=10)
    return months_before(today, _RANGE_MONTHS[str(range_)])


def months_before(day: date, months: int) -> date:
    """The same day ``months`` calendar months earlier (the month's last day when it is
    shorter: 31 March less one month is 28 or 29 February)."""
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    month += 1
    last = (date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)).day
    return date(year, month, min(day.day, last))


def bars(symbol: str, interval: str, range_: str | None = None, *,
         start: int | None = None, end: int | None = None, now: int | None = None) -> Bars:
    """The ``bars`` fetcher: daily and longer bars of a US ticker, through the cache (one
    daily call per ticker and window serves every interval). NotServed for what Tiingo
    cannot serve (see the module doc)."""
    if interval not in PERIODS:
        raise NotServed(f"Tiingo serves daily and longer bars, not {interval}")
    if not _TICKER.fullmatch(symbol):
        raise NotServed(f"Tiingo serves US tickers, not {symbol}")
    today = (datetime.fromtimestamp(now, NEW_YORK).date() if now is not None
             else new_york_today())
    first = _first_day(range_, start, today)
    provider = tiingo_provider()
    rows = provider.cached(
        "daily_prices", {"symbol": symbol, "start": first.isoformat()},
        lambda: provider.daily_prices(symbol, first), PRICES_POLICY, group="historical")
    if start is not None:
        upper = clock.time() if end is None else end
        rows = [row for row in rows if start <= _at(row.day, SESSION_OPEN) < upper]
    elif range_ in _LAST_SESSIONS:
        rows = rows[-_LAST_SESSIONS[range_]:]
    return to_bars(rows, symbol, interval, range_)
