"""The ECB's euro foreign exchange reference rates, through the keyless Frankfurter API.

Why Frankfurter: it republishes the ECB's daily reference rates (one fix per TARGET business
day, around 16:00 CET) for about 30 currencies, rebased to any of them, without a key. The
forex endpoint asks it when Yahoo cannot answer (Yahoo's quote is live, with a bid and an
ask; a reference rate is neither).

One call: the time series ``GET https://api.frankfurter.dev/v1/{start}..?base={FROM}&symbols={TO}``
with ``start`` ten days back, which always spans the last two fixes (holidays included).
The answer is ``{"amount": 1.0, "base": "EUR", "start_date": "...", "end_date": "...",
"rates": {"2025-01-02": {"USD": 1.0321}, ...}}``; a currency Frankfurter does not know, or a
window without a fix, is its 404 ``{"message": "not found"}``. A 422 (``{"message": ...}``)
is its answer to a query it cannot serve; the forex endpoint validates codes before asking,
so it is treated as "no rate" too. ``api.frankfurter.app`` is the API's older host; both are
listed for ``UPSTREAM_HOST_MAP``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from marketdata.cache import TTLPolicy
from marketdata.errors import MarketDataError, NotFound
from marketdata.formatting import number
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.providers.base import Provider
from marketdata.providers.registry import get_provider
from marketdata.records.quotes import ForexQuote

# Yahoo answers first, so fail fast: short timeouts, one retry.
PROVIDER = ProviderConfig(name="frankfurter", display_name="ECB reference rates (Frankfurter)",
                          connect_timeout=2.0, read_timeout=5.0, max_attempts=2,
                          hosts=("api.frankfurter.dev", "api.frankfurter.app"))
BASE_URL = "https://api.frankfurter.dev/v1"
LOOKBACK_DAYS = 10
# One fix a day: half an hour keeps a new fix from waiting long, and the key rolls daily
# with the window's start.
RATES_TTL = TTLPolicy("ecb_rates", open=1800, extended=1800, closed=1800, market_aware=False)


@dataclass(frozen=True)
class ReferenceRate:
    """The last fix of a pair and the one before it (None when the window has one fix)."""

    base: str
    quote: str
    day: date
    rate: float
    previous_day: date | None
    previous_rate: float | None

    @property
    def change(self) -> float | None:
        """Last fix minus the previous one, exact in the fixes' decimals (no float noise)."""
        if self.previous_rate is None:
            return None
        return float(Decimal(repr(self.rate)) - Decimal(repr(self.previous_rate)))

    @property
    def change_percent(self) -> float | None:
        """The change in percent of the previous fix (1.5 is 1.5%), rounded to 6 decimals."""
        change = self.change
        if change is None or not self.previous_rate:
            return None
        return round(change / self.previous_rate * 100, 6)

    @property
    def timestamp(self) -> int:
        """The fix's date at midnight UTC (Unix seconds)."""
        return int(datetime(self.day.year, self.day.month, self.day.day,
                            tzinfo=UTC).timestamp())


def utc_today() -> date:
    """Today in UTC (a function, so tests can freeze it)."""
    return datetime.now(UTC).date()


def timeseries_url(start: date) -> str:
    """The open-ended time series from ``start`` (``{start}..``)."""
    return f"{BASE_URL}/{start.isoformat()}.."


def _day(text: Any) -> date | None:
    try:
        return date.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        return None


def parse_timeseries(payload: Any, base: str, quote: str) -> ReferenceRate:
    """Frankfurter time series -> the pair's last two fixes.

    Dates are read as sent (unordered keys are sorted); a date without a usable positive
    rate for ``quote`` is skipped. No fix at all is NotFound; a body that is not a time
    series is a 502.
    """
    rates = payload.get("rates") if isinstance(payload, dict) else None
    if not isinstance(rates, dict):
        raise PROVIDER.bad_answer("returned a body without a 'rates' object")
    fixes: list[tuple[date, float]] = []
    for key, row in rates.items():
        day = _day(key)
        value = number(row.get(quote)) if isinstance(row, dict) else None
        if day is not None and value is not None and value > 0:
            fixes.append((day, value))
    if not fixes:
        raise NotFound(f"No reference rate for {base}/{quote}")
    fixes.sort()
    day, rate = fixes[-1]
    previous_day, previous_rate = fixes[-2] if len(fixes) > 1 else (None, None)
    return ReferenceRate(base, quote, day, rate, previous_day, previous_rate)


class FrankfurterProvider(Provider):
    """Keyless; a 404 or 422 means "no rate for this pair", any other 4xx is a 502."""

    config = PROVIDER

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        if response.status in (404, 422):
            return NotFound(not_found or "No reference rate")
        return super().error_for(response, endpoint, not_found)

    def reference_rate(self, base: str, quote: str, start: date) -> ReferenceRate:
        payload = self.get_json("timeseries", timeseries_url(start),
                                {"base": base, "symbols": quote},
                                not_found=f"No reference rate for {base}/{quote}")
        return parse_timeseries(payload, base, quote)


def fetch_reference_rate(base: str, quote: str, today: date | None = None) -> ReferenceRate:
    """The last ECB fix of ``base``/``quote`` (upper-case ISO codes, different) and the one
    before it, through the cache. NotFound when Frankfurter has no rate for the pair in the
    last ``LOOKBACK_DAYS`` days; an UpstreamError (provider ``frankfurter``) when it fails."""
    provider: FrankfurterProvider = get_provider(PROVIDER.name)
    start = (today or utc_today()) - timedelta(days=LOOKBACK_DAYS)
    return provider.cached("timeseries", {"base": base, "quote": quote,
                                          "start": start.isoformat()},
                           lambda: provider.reference_rate(base, quote, start), RATES_TTL,
                           group="forex")


def forex_quote(base: str, quote: str) -> ForexQuote:
    """The ``forex`` fetcher: the pair from the ECB's last fix, against the fix before it;
    no bid or ask (a reference rate is no market), the fix date at 00:00 UTC as time."""
    rate = fetch_reference_rate(base, quote)
    return ForexQuote(base=base, quote=quote, price=rate.rate, bid=None, ask=None,
                      change=rate.change, change_percent=rate.change_percent,
                      timestamp=rate.timestamp)
