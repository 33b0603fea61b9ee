"""Alpha Vantage: company overviews and quarterly earnings, a keyed source preferred to
Yahoo's quoteSummary modules when ``settings.ALPHAVANTAGE_API_KEY`` is set.

Calls: ``GET https://www.alphavantage.co/query?function=OVERVIEW&symbol={S}&apikey=...``
(the ``company_profile`` capability) and ``function=EARNINGS`` (``earnings_surprises``).
The key travels as the ``apikey`` query parameter, the only way Alpha Vantage takes it; the
upstream client logs only the path, and no message built here carries the key, the URL or
the body.

How Alpha Vantage answers, and what that becomes here. Nearly everything is a 200, so the
body says what happened:

- data: a flat object of strings (``{"Symbol": "IBM", "MarketCapitalization":
  "227000000000", "Sector": "TECHNOLOGY", ...}``) or ``{"symbol", "annualEarnings",
  "quarterlyEarnings": [{"fiscalDateEnding", "reportedDate", "reportedEPS",
  "estimatedEPS", "surprise", "surprisePercentage", "reportTime"}]}``. Numbers are
  strings; ``"None"``, ``"-"`` and ``""`` mean no value (null here).
- a symbol it does not cover: ``{}`` (OVERVIEW, EARNINGS) or ``{"Error Message": "Invalid
  API call. ..."}``: NotFound from the parsers, which the fetchers turn into NotServed, so
  the keyless source (which tells an unknown symbol from one Alpha Vantage lacks: funds and
  most listings outside the US) answers.
- a missing or invalid key (``"Error Message": "the parameter apikey is invalid or
  missing..."``, or the ``demo`` key's ``"Information"``): a refused key
  (:meth:`AlphaVantageProvider.refusal_in_body`), remembered by the keyed base; a premium
  function outside the key's plan: refused for that call only.
- the call allowance spent (free keys: 25 calls a day, and about one a second) or too
  fast: ``{"Note": ...}`` or ``{"Information": ...}`` about the call frequency or the
  daily limit: :class:`~marketdata.errors.UpstreamRateLimited` (429), so the capability
  falls back and, when nothing else answers, the client is told to retry.
- HTTP 401/403: a refused key; other 4xx: 502; 429, 5xx and timeouts: the client's map.

Calls are spaced a second apart per process (what Alpha Vantage asks of free keys); a turn
that would leave less than a second of the request deadline is a 429 without a call. Not
paced when the in-process sandbox answers.
"""

from __future__ import annotations

import time
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from marketdata import deadline, pacing
from marketdata.errors import (
    CredentialsRejected,
    NotFound,
    NotServed,
    UpstreamRateLimited,
)
from marketdata.formatting import rows
from marketdata.http import ProviderConfig
from marketdata.providers.base import KeyedProvider
from marketdata.providers.registry import get_provider
from marketdata.records.analysts import EarningsSurprise, reported_quarter
from marketdata.records.companies import CompanyProfile

# Preferred to a keyless source that answers the same question: fail fast, one retry.
PROVIDER = ProviderConfig(name="alphavantage", display_name="Alpha Vantage",
                          connect_timeout=2.0, read_timeout=6.0, max_attempts=2,
                          hosts=("www.alphavantage.co",))
QUERY_URL = "https://www.alphavantage.co/query"
OVERVIEW = "OVERVIEW"
EARNINGS = "EARNINGS"
# Alpha Vantage asks free keys to spread calls out, one a second at most.
MIN_INTERVAL_SECONDS = 1.0
# Overviews and reported quarters change a few times a quarter: the analysis policy (1 h),
# which the Yahoo sources of both capabilities use too.
POLICY = "analysis"

# Alpha Vantage's words for "no value".
_BLANKS = frozenset({"", "none", "-", "null", "n/a"})
# Words of a message that say the key was refused.
_KEY_REFUSALS = ("apikey is invalid", "api key is invalid", "invalid api key",
                 "apikey is missing", "invalid or missing", "demo** api key", "demo api key",
                 "claim your free api key")
# Words of a message that say the key's plan does not include the function.
_PLAN_REFUSALS = ("premium endpoint", "premium function")
# Words of a message that say the call allowance is spent (or calls came too fast).
_RATE_LIMITS = ("call frequency", "rate limit", "requests per day", "requests per minute",
                "spreading out", "calls per minute", "calls per day")


def value(raw: Any) -> str | None:
    """An Alpha Vantage string: trimmed, and None for its words for "no value"."""
    if not isinstance(raw, str):
        return None
    cleaned = " ".join(raw.split())
    return None if cleaned.lower() in _BLANKS else cleaned


def decimal_value(raw: Any) -> Decimal | None:
    """A number sent as a string (``"3.92"``, ``"-0.0417"``), exactly; None for no value."""
    text = value(raw)
    if text is None:
        return None
    try:
        number = Decimal(text)
    except ArithmeticError:
        return None
    return number if number.is_finite() else None


def number_value(raw: Any) -> float | None:
    number = decimal_value(raw)
    return None if number is None else float(number)


def iso_date(raw: Any) -> datetime | None:
    """``YYYY-MM-DD`` as midnight UTC (the record's dates are days)."""
    text = value(raw)
    if text is None:
        return None
    try:
        day = date.fromisoformat(text[:10])
    except ValueError:
        return None
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _message(payload: dict[str, Any]) -> tuple[str, str] | None:
    """(member, text) of Alpha Vantage's message body, if the body is one."""
    for member in ("Error Message", "Information", "Note"):
        text = payload.get(member)
        if isinstance(text, str):
            return member, text
    return None


def check_body(payload: Any, function: str) -> dict[str, Any]:
    """The data object of an answer, or the error its message means (see the module doc):
    a refused key, a spent allowance (429), NotFound for a symbol it does not cover, a 502
    for anything else unusable."""
    if not isinstance(payload, dict):
        raise PROVIDER.bad_answer(f"returned a body that is not an object for {function}")
    message = _message(payload)
    if message is None:
        return payload
    member, text = message
    refusal = AlphaVantageProvider.refusal_in_body(payload)
    if refusal is not None:
        raise refusal
    lowered = text.lower()
    if member in ("Note", "Information") and any(word in lowered for word in _RATE_LIMITS):
        raise UpstreamRateLimited(PROVIDER.name, f"{PROVIDER.display_name} says the API "
                                  "key's call allowance is spent or calls came too fast; "
                                  "retry later", None)
    if member == "Error Message":
        raise NotFound(f"{PROVIDER.display_name} has no {function} data for this symbol")
    raise PROVIDER.bad_answer(f"answered {function} with a notice instead of data")


# -- parsers (the data object -> our records) ----------------------------------------------
def parse_overview(payload: Any, symbol: str) -> CompanyProfile:
    """OVERVIEW -> the profile (``Symbol``, falling back to ``symbol``; ``OfficialSite`` is
    ``website``, ``Address`` ``address``); NotFound for ``{}`` (a symbol it does not
    cover)."""
    data = check_body(payload, OVERVIEW)
    if value(data.get("Symbol")) is None and value(data.get("Name")) is None:
        raise NotFound(f"{PROVIDER.display_name} has no overview of {symbol}")
    return CompanyProfile(
        symbol=value(data.get("Symbol")) or symbol,
        name=value(data.get("Name")),
        description=value(data.get("Description")),
        asset_type=value(data.get("AssetType")),
        exchange=value(data.get("Exchange")),
        currency=value(data.get("Currency")),
        country=value(data.get("Country")),
        sector=value(data.get("Sector")),
        industry=value(data.get("Industry")),
        market_capitalization=number_value(data.get("MarketCapitalization")),
        website=value(data.get("OfficialSite")),
        address=value(data.get("Address")),
    )


def parse_earnings(payload: Any, symbol: str) -> list[EarningsSurprise]:
    """EARNINGS' ``quarterlyEarnings`` -> the reported quarters, newest first: ``date`` is
    ``fiscalDateEnding`` (the quarter's end, as Yahoo's earningsHistory dates them); a row
    without a reported EPS (a quarter not reported yet) or without a date is left out.
    NotFound when none is left."""
    data = check_body(payload, EARNINGS)
    out = []
    for row in rows(data.get("quarterlyEarnings")):
        when = iso_date(row.get("fiscalDateEnding"))
        actual = decimal_value(row.get("reportedEPS"))
        if when is None or actual is None:
            continue
        out.append(reported_quarter(actual, decimal_value(row.get("estimatedEPS")),
                                    decimal_value(row.get("surprise")),
                                    decimal_value(row.get("surprisePercentage")), when))
    if not out:
        raise NotFound(f"No earnings surprises data found for {symbol}")
    out.sort(key=lambda row: row.date or datetime.min.replace(tzinfo=UTC), reverse=True)
    return out


# -- the provider ---------------------------------------------------------------------------
class CallPacer(pacing.Pacer):
    """Call starts ``interval`` seconds apart in this process; a turn that would leave less
    than a second of the request deadline (of ``REQUEST_DEADLINE_SECONDS`` outside one) is
    a 429 without a call."""

    def __init__(self, interval: float) -> None:
        super().__init__(interval, self._refused, leave_seconds=1.0,
                         budget_without_deadline=deadline.default_seconds(), clock=time)

    def _refused(self) -> UpstreamRateLimited:
        return UpstreamRateLimited(
            PROVIDER.name, f"{PROVIDER.display_name} allows about one request a second and "
            "its next slot is too far away; retry shortly", None)


class AlphaVantageProvider(KeyedProvider):
    """The key is sent as ``apikey``; refusals are read from the body (see the module
    doc); calls are paced."""

    config = PROVIDER
    key_setting = "ALPHAVANTAGE_API_KEY"

    def __init__(self, client: Any) -> None:
        super().__init__(client)
        self.pacer = CallPacer(MIN_INTERVAL_SECONDS if self.paced else 0.0)

    def authenticate(self, params: dict[str, Any], headers: dict[str, str]) -> None:
        params["apikey"] = self.api_key

    @classmethod
    def refusal_in_body(cls, payload: Any) -> CredentialsRejected | None:
        """A refused key (an invalid or missing one, the ``demo`` key) or a function outside
        the key's plan (refused for that call only), as Alpha Vantage words them in a 200."""
        message = _message(payload) if isinstance(payload, dict) else None
        if message is None:
            return None
        lowered = message[1].lower()
        if any(word in lowered for word in _KEY_REFUSALS):
            return cls.key_rejected(None)
        if any(word in lowered for word in _PLAN_REFUSALS):
            return cls.key_rejected(None, "for this data (its plan does not include it)",
                                    remember=False)
        return None

    def query(self, function: str, symbol: str) -> Any:
        """One call of ``function`` for ``symbol``, decoded (a refusal in the body raised by
        the keyed base), after waiting for this process's next turn."""
        if self.api_key and not self.key_refused_recently():
            self.pacer.wait()  # no turn is taken by a call the base will not send
        return self.get_json(function.lower(), QUERY_URL,
                             {"function": function, "symbol": symbol})


def alphavantage_provider() -> AlphaVantageProvider:
    return get_provider(PROVIDER.name)


# -- fetchers (the capability table's) ------------------------------------------------------
def _cached(function: str, symbol: str, parse: Any) -> Any:
    provider = alphavantage_provider()
    return provider.cached(function.lower(), {"symbol": symbol},
                           lambda: parse(provider.query(function, symbol), symbol),
                           POLICY, group="analysis")


def company_profile(symbol: str) -> CompanyProfile:
    """The ``company_profile`` fetcher: OVERVIEW as the profile. A symbol Alpha Vantage
    does not cover is NotServed, so the next source (which tells an unknown symbol from an
    uncovered one) answers."""
    try:
        profile: CompanyProfile = _cached(OVERVIEW, symbol, parse_overview)
    except NotFound as exc:
        raise NotServed(exc.detail) from exc
    return profile


def earnings_surprises(symbol: str) -> list[EarningsSurprise]:
    """The ``earnings_surprises`` fetcher: EARNINGS' reported quarters, newest first; none
    is NotServed (the next source is asked)."""
    try:
        quarters: list[EarningsSurprise] = _cached(EARNINGS, symbol, parse_earnings)
    except NotFound as exc:
        raise NotServed(exc.detail) from exc
    return quarters
