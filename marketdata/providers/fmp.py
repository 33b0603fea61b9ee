"""Financial Modeling Prep (FMP): analyst grades and price targets, press releases and the
constituents of three US indices, from the ``/stable`` API.

FMP is a keyed source (``settings.FMP_API_KEY``): every capability it serves has a keyless
fallback in :mod:`marketdata.capabilities.table`, but congressional trades (no keyless source
publishes them: without the key, a 501). The key travels as the ``apikey`` query
parameter, which FMP requires; the upstream client logs only the path (never the query
string), and no message built here carries the key, the URL or FMP's body.

How FMP answers, and what that becomes here:

- a bad key: 401 ``{"Error Message": "Invalid API KEY. ..."}``; an endpoint outside the
  key's plan: 402 or 403 ``{"Error Message": "Restricted Endpoint: ..."}``. Both raise
  :class:`~marketdata.errors.CredentialsRejected`, so the caller falls back to the keyless
  source. Older FMP answers put the same words in a 200 body; they are read the same way.
- an unknown symbol: 200 with ``[]`` -> :class:`~marketdata.errors.NotFound` (so does a
  symbol FMP knows but has no rows for: there is nothing to show either way).
- 429 (daily quota) and 5xx are mapped by the upstream client (429, 502 after retries).

The capability table's fetchers (the cached fetches below as records):
:func:`grading_actions`, :func:`target_consensus`, :func:`target_summary`,
:func:`company_press_releases`, :func:`index_members`, :func:`earnings_surprises`,
:func:`fails_to_deliver` (the legacy ``/api/v4`` path), :func:`congressional_trades`.

Typed fetches (module functions, all cache-through under the provider's name):
:func:`grades`, :func:`price_target_consensus`, :func:`price_target_summary`,
:func:`press_releases`, :func:`index_constituents`. Callers pass validated, upper-cased
symbols (``apps.core.symbols.require_symbol``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from marketdata.cache import TTLPolicy, note_incomplete
from marketdata.errors import (
    BadRequest,
    CredentialsRejected,
    MarketDataError,
    NotFound,
    NotServed,
    UpstreamBadResponse,
    UpstreamError,
)
from marketdata.formatting import json_number, rows, text
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.providers.base import KeyedProvider
from marketdata.providers.registry import get_provider
from marketdata.records import disclosures
from marketdata.records.analysts import (
    SUMMARY_PERIODS,
    EarningsSurprise,
    GradingAction,
    PriceTargetConsensus,
    PriceTargetSummary,
    TargetWindow,
    reported_quarter,
)
from marketdata.records.companies import Constituent, PressRelease, constituent
from marketdata.records.disclosures import (
    Chamber,
    CongressionalTrade,
    FailToDeliver,
    window_start,
)
from marketdata.records.feeds import FeedEntry

# Every FMP capability has a keyless fallback, so fail fast: short timeouts, one retry.
PROVIDER = ProviderConfig(name="fmp", display_name="Financial Modeling Prep",
                          connect_timeout=2.0, read_timeout=6.0, max_attempts=2,
                          hosts=("financialmodelingprep.com",))

STABLE = "https://financialmodelingprep.com/stable"

# Analyst data moves a few times a day at most; press releases a few times a week;
# index membership a few times a year (FMP itself refreshes the lists daily).
ANALYST_TTL = TTLPolicy("fmp_analyst", open=3600, extended=3600, closed=3600,
                        market_aware=False)
PRESS_RELEASES_TTL = TTLPolicy("fmp_press_releases", open=900, extended=900, closed=900,
                               market_aware=False)
CONSTITUENTS_TTL = TTLPolicy("fmp_constituents", open=86400, extended=86400, closed=86400,
                             market_aware=False)

# Our index names -> FMP's constituent endpoints.
CONSTITUENT_ENDPOINTS: dict[str, str] = {
    "sp500": "sp500-constituent",
    "nasdaq100": "nasdaq-constituent",
    "dowjones": "dowjones-constituent",
}

# Words of FMP's "Error Message" that say the key (or its plan) was refused.
_REFUSALS = ("invalid api key", "restricted endpoint", "not available under your current",
             "exclusive endpoint", "special endpoint", "premium")


# Words of a refusal that concern the plan, not the key: the key stays good for the rest.
_PLAN_REFUSALS = ("restricted endpoint", "not available under your current",
                  "exclusive endpoint", "special endpoint", "premium")


def _plan_only(status: int | None, message: str | None) -> bool:
    lowered = (message or "").lower()
    return status == 402 or any(word in lowered for word in _PLAN_REFUSALS)


def error_message(payload: Any) -> str | None:
    """FMP's ``{"Error Message": "..."}`` text, if the body is one."""
    if isinstance(payload, dict):
        message = payload.get("Error Message") or payload.get("error")
        if isinstance(message, str):
            return message
    return None


def _refused(message: str | None) -> bool:
    lowered = (message or "").lower()
    return any(word in lowered for word in _REFUSALS)


# -- value readers ------------------------------------------------------------------------
def count(value: Any) -> int | None:
    number = json_number(value)
    return None if number is None else round(number)


def iso_day(value: Any) -> str | None:
    """``YYYY-MM-DD`` from FMP's date (``2025-01-31``, sometimes with a time part)."""
    raw = text(value)
    if raw is None:
        return None
    try:
        return datetime.fromisoformat(raw[:10]).strftime("%Y-%m-%d")
    except ValueError:
        return None


def published_at(value: Any) -> str | None:
    """FMP's ``publishedDate`` as ISO 8601.

    The stable API sends ``2025-02-03 16:05:00`` without a zone, and FMP does not document
    which zone that is, so the wall time is kept as sent: ``2025-02-03T16:05:00`` (no
    ``Z``: claiming UTC would be a guess). A value that does carry a zone (``...Z`` or an
    offset, as FMP's price-target news does) is converted to UTC and ends in ``Z``.
    Unreadable values give None.
    """
    raw = text(value)
    if raw is None:
        return None
    try:
        moment = datetime.fromisoformat(raw.replace(" ", "T", 1))
    except ValueError:
        return None
    if moment.tzinfo is not None:
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


# -- parsers (FMP body -> our records) ---------------------------------------------------
def _rows_of(payload: Any, what: str) -> list[dict[str, Any]]:
    """The objects of FMP's array answer; a refusal in a 200 body raises as it would with
    its proper status; any other non-array body is a 502."""
    message = error_message(payload)
    if message is not None:
        if _refused(message):
            raise FmpProvider.refusal(None, message)
        raise PROVIDER.bad_answer(f"returned an error instead of {what}")
    if not isinstance(payload, list):
        raise PROVIDER.bad_answer(f"returned a body that is not a list of {what}")
    return rows(payload)


def parse_grades(payload: Any, symbol: str) -> list[dict[str, Any]]:
    """``/stable/grades`` rows -> ``{date, symbol, gradingCompany, previousGrade, newGrade}``,
    newest first (FMP lists them so; the sort is stable, so same-day rows keep FMP's order).
    FMP's ``action`` (upgrade/downgrade/maintain/...) is not part of the record."""
    found = _rows_of(payload, "grades")
    if not found:
        raise NotFound(f"No grading actions for {symbol}")
    out = [{"date": iso_day(row.get("date")),
            "symbol": text(row.get("symbol")) or symbol,
            "gradingCompany": text(row.get("gradingCompany")),
            "previousGrade": text(row.get("previousGrade")),
            "newGrade": text(row.get("newGrade"))}
           for row in found]
    out.sort(key=lambda item: item["date"] or "", reverse=True)
    return out


def parse_price_target_consensus(payload: Any, symbol: str) -> dict[str, Any]:
    """``/stable/price-target-consensus`` (a one-element array) -> ``{symbol,
    targetConsensus, targetHigh, targetLow, targetMedian}``, numbers as sent."""
    found = _rows_of(payload, "price targets")
    if not found:
        raise NotFound(f"No price target consensus for {symbol}")
    row = found[0]
    out = {"symbol": text(row.get("symbol")) or symbol,
           "targetConsensus": json_number(row.get("targetConsensus")),
           "targetHigh": json_number(row.get("targetHigh")),
           "targetLow": json_number(row.get("targetLow")),
           "targetMedian": json_number(row.get("targetMedian"))}
    if all(not out[name] for name in ("targetConsensus", "targetHigh", "targetLow",
                                      "targetMedian")):
        # FMP writes zeros (or nothing) for a symbol no analyst covers.
        raise NotFound(f"No price target consensus for {symbol}")
    return out


_SUMMARY_PERIODS = ("lastMonth", "lastQuarter", "lastYear", "allTime")


def parse_price_target_summary(payload: Any, symbol: str) -> dict[str, Any]:
    """``/stable/price-target-summary`` -> ``{symbol, lastMonthCount, lastMonthAvg, ...,
    allTimeCount, allTimeAvg}`` (FMP's ``<period>AvgPriceTarget`` -> ``<period>Avg``;
    FMP's ``publishers`` list is dropped). FMP writes an average of 0 for a period without
    targets; that average is null here (there is no mean of nothing). A summary without
    any target is NotFound."""
    found = _rows_of(payload, "price target summaries")
    if not found:
        raise NotFound(f"No price target summary for {symbol}")
    row = found[0]
    out: dict[str, Any] = {"symbol": text(row.get("symbol")) or symbol}
    for period in _SUMMARY_PERIODS:
        targets = count(row.get(f"{period}Count"))
        out[f"{period}Count"] = targets
        out[f"{period}Avg"] = (None if targets == 0
                               else json_number(row.get(f"{period}AvgPriceTarget")))
    if not out["allTimeCount"]:
        raise NotFound(f"No price target summary for {symbol}")
    return out


def parse_press_releases(payload: Any, symbol: str) -> list[dict[str, Any]]:
    """``/stable/news/press-releases`` -> ``{date, symbol, title, text}``, newest first
    (``date`` per :func:`published_at`; publisher, site, image and url are dropped)."""
    found = _rows_of(payload, "press releases")
    if not found:
        raise NotFound(f"No press releases for {symbol}")
    out = [{"date": published_at(row.get("publishedDate") or row.get("date")),
            "symbol": text(row.get("symbol")) or symbol,
            "title": text(row.get("title")),
            "text": text(row.get("text"), clean=False)}
           for row in found]
    out.sort(key=lambda item: item["date"] or "", reverse=True)
    return out


def _string(value: Any) -> str | None:
    """A constituent field as a string: FMP sends strings, but older rows carry numbers
    (``cik`` 320193, ``founded`` 1977); blank -> None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    return text(value)


def parse_constituents(payload: Any, index: str) -> list[dict[str, Any]]:
    """``/stable/{sp500,nasdaq,dowjones}-constituent`` -> ``{symbol, name, sector,
    subSector, headquarters, dateFirstAdded, cik, founded}`` (all strings or null; FMP's
    ``headQuarter`` -> ``headquarters``), in FMP's order; rows without a symbol are
    skipped."""
    found = _rows_of(payload, "constituents")
    out = [{"symbol": _string(row.get("symbol")), "name": _string(row.get("name")),
            "sector": _string(row.get("sector")), "subSector": _string(row.get("subSector")),
            "headquarters": _string(row.get("headQuarter") or row.get("headquarters")),
            "dateFirstAdded": _string(row.get("dateFirstAdded")),
            "cik": _string(row.get("cik")), "founded": _string(row.get("founded"))}
           for row in found]
    out = [row for row in out if row["symbol"]]
    if not out:
        raise NotFound(f"No constituents for {index}")
    return out


# -- the provider -------------------------------------------------------------------------
class FmpProvider(KeyedProvider):
    """The key is sent as ``apikey``; refusals (401, 402, 403, or an "Error Message" naming
    the key or the plan) are CredentialsRejected. A plan's refusal of one endpoint
    (402, "Restricted Endpoint") is not remembered as a refused key."""

    config = PROVIDER
    key_setting = "FMP_API_KEY"

    def authenticate(self, params: dict[str, Any], headers: dict[str, str]) -> None:
        params["apikey"] = self.api_key

    @classmethod
    def refusal(cls, status: int | None, message: str | None) -> CredentialsRejected:
        if _plan_only(status, message):
            return cls.key_rejected(status, "for this data (its plan does not include it)",
                                    remember=False)
        return cls.key_rejected(status)

    @classmethod
    def refusal_in_body(cls, payload: Any) -> CredentialsRejected | None:
        message = error_message(payload)
        return cls.refusal(None, message) if _refused(message) else None

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        if response.status < 400:
            return None
        try:
            message = error_message(response.json())
        except UpstreamBadResponse:
            message = None
        if response.status in (401, 402, 403) or _refused(message):
            return self.refusal(response.status, message)
        if response.status == 404:
            return NotFound(not_found or "Not found")
        return self.status_error(response, endpoint)

    def stable(self, endpoint: str, params: Mapping[str, Any], not_found: str) -> Any:
        """GET ``/stable/{endpoint}`` and decode it (the key is added by the auth hook; a
        refusal in a 200 body is the keyed base's :meth:`refusal_in_body`)."""
        return self.get_json(endpoint, f"{STABLE}/{endpoint}", params, not_found=not_found)


def fmp_provider() -> FmpProvider:
    return get_provider(PROVIDER.name)


# -- typed fetches (through the cache) ----------------------------------------------------
def grades(symbol: str) -> list[dict[str, Any]]:
    """Analyst grading actions for a validated symbol, newest first (NotFound when none)."""
    provider = fmp_provider()
    return provider.cached(
        "grades", {"symbol": symbol},
        lambda: parse_grades(provider.stable("grades", {"symbol": symbol},
                                             f"Symbol {symbol} not found"), symbol),
        ANALYST_TTL, group="analysts")


def price_target_consensus(symbol: str) -> dict[str, Any]:
    """``{symbol, targetConsensus, targetHigh, targetLow, targetMedian}`` (NotFound when
    FMP has none)."""
    provider = fmp_provider()
    return provider.cached(
        "price_target_consensus", {"symbol": symbol},
        lambda: parse_price_target_consensus(
            provider.stable("price-target-consensus", {"symbol": symbol},
                            f"Symbol {symbol} not found"), symbol),
        ANALYST_TTL, group="analysts")


def price_target_summary(symbol: str) -> dict[str, Any]:
    """``{symbol, lastMonthCount, lastMonthAvg, lastQuarterCount, lastQuarterAvg,
    lastYearCount, lastYearAvg, allTimeCount, allTimeAvg}`` (NotFound when none)."""
    provider = fmp_provider()
    return provider.cached(
        "price_target_summary", {"symbol": symbol},
        lambda: parse_price_target_summary(
            provider.stable("price-target-summary", {"symbol": symbol},
                            f"Symbol {symbol} not found"), symbol),
        ANALYST_TTL, group="analysts")


# -- analyst fetchers (the capability table's: the cached rows above as records) ----------
def grading_actions(symbol: str) -> list[GradingAction]:
    """The ``grading_actions`` fetcher: :func:`grades` as records, newest first."""
    return [GradingAction(row["date"], row["symbol"] or symbol, row["gradingCompany"],
                          row["newGrade"], row["previousGrade"])
            for row in grades(symbol)]


def target_consensus(symbol: str) -> PriceTargetConsensus:
    """The ``price_target_consensus`` fetcher: :func:`price_target_consensus` as a record."""
    row = price_target_consensus(symbol)
    return PriceTargetConsensus(row["symbol"], row["targetConsensus"], row["targetHigh"],
                                row["targetLow"], row["targetMedian"])


def target_summary(symbol: str) -> PriceTargetSummary:
    """The ``price_target_summary`` fetcher: :func:`price_target_summary` as a record."""
    row = price_target_summary(symbol)
    return PriceTargetSummary.from_windows(row["symbol"], {
        period: TargetWindow(row[f"{period}Count"], row[f"{period}Avg"])
        for period in SUMMARY_PERIODS})


def press_releases(symbol: str, limit: int) -> list[dict[str, Any]]:
    """The company's latest ``limit`` press releases, ``{date, symbol, title, text}``
    newest first (NotFound when FMP has none)."""
    provider = fmp_provider()
    params = {"symbols": symbol, "limit": int(limit)}
    return provider.cached(
        "press_releases", params,
        lambda: parse_press_releases(
            provider.stable("news/press-releases", params, f"Symbol {symbol} not found"),
            symbol)[:int(limit)],
        PRESS_RELEASES_TTL, group="press_releases")


def index_constituents(index: str) -> list[dict[str, Any]]:
    """The members of ``index`` (``sp500``, ``nasdaq100`` or ``dowjones``), each ``{symbol,
    name, sector, subSector, headquarters, dateFirstAdded, cik, founded}``; BadRequest for
    any other index name."""
    endpoint = CONSTITUENT_ENDPOINTS.get(index)
    if endpoint is None:
        raise BadRequest(f"Constituents are available for {', '.join(CONSTITUENT_ENDPOINTS)}"
                         " only")
    provider = fmp_provider()
    return provider.cached(
        "index_constituents", {"index": index},
        lambda: parse_constituents(provider.stable(endpoint, {}, f"No constituents for "
                                                                 f"{index}"), index),
        CONSTITUENTS_TTL, group="constituents")


# -- press release and constituent fetchers (the capability table's, as records) ----------
def company_press_releases(symbol: str, limit: int) -> list[PressRelease]:
    """The ``press_releases`` fetcher: :func:`press_releases` as records. FMP having
    nothing for the symbol is NotServed, so the next source is asked (it tells an unknown
    ticker, a 404, from a quiet company, ``[]``)."""
    try:
        found = press_releases(symbol, limit)
    except NotFound as exc:
        raise NotServed(exc.detail) from exc
    return [PressRelease(date=item.get("date"), symbol=item.get("symbol") or symbol,
                         title=item.get("title"), text=item.get("text"))
            for item in found[:limit]]


def index_members(index: str) -> list[Constituent]:
    """The ``index_constituents`` fetcher: :func:`index_constituents` as records."""
    return [constituent(row) for row in index_constituents(index)]


# -- earnings surprises (the ``earnings_surprises`` capability's keyed source) -------------
def quarter_end_before(day: date) -> date:
    """The last calendar quarter end before ``day``: the quarter a report of that day
    covers, dated as Yahoo's earningsHistory dates quarters (2025-01-30 -> 2024-12-31)."""
    first_of_quarter = date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
    return first_of_quarter - timedelta(days=1)


def _eps(value: Any) -> Decimal | None:
    number = json_number(value)
    return None if number is None else Decimal(repr(number))


def parse_earnings(payload: Any, symbol: str) -> list[EarningsSurprise]:
    """``/stable/earnings`` rows (``{symbol, date, epsActual, epsEstimated, revenueActual,
    revenueEstimated, lastUpdated}``, newest first, future reports with null actuals
    included) -> the reported quarters, newest first. FMP's ``date`` is the report's day;
    the record's is the end of the quarter it covers (:func:`quarter_end_before`). The
    surprise is derived (actual - estimated, exact in decimals), its percent as a fraction
    of |estimated| (None when the estimate is missing or 0). Rows without an actual EPS
    or a date are left out; NotFound when none is left."""
    out = []
    for row in _rows_of(payload, "earnings"):
        day = iso_day(row.get("date"))
        actual = _eps(row.get("epsActual"))
        if day is None or actual is None:
            continue
        end = quarter_end_before(date.fromisoformat(day))
        out.append(reported_quarter(actual, _eps(row.get("epsEstimated")), None, None,
                                    datetime(end.year, end.month, end.day, tzinfo=UTC)))
    if not out:
        raise NotFound(f"No earnings surprises data found for {symbol}")
    out.sort(key=lambda item: item.date or datetime.min.replace(tzinfo=UTC), reverse=True)
    return out


def earnings_surprises(symbol: str) -> list[EarningsSurprise]:
    """The ``earnings_surprises`` fetcher: ``/stable/earnings`` as records, newest first.
    FMP having no reported quarter for the symbol is NotServed, so the next source is
    asked (it tells an unknown ticker from one FMP does not cover)."""
    provider = fmp_provider()
    try:
        return provider.cached(
            "earnings", {"symbol": symbol},
            lambda: parse_earnings(provider.stable("earnings", {"symbol": symbol},
                                                   f"Symbol {symbol} not found"), symbol),
            ANALYST_TTL, group="analysts")
    except NotFound as exc:
        raise NotServed(exc.detail) from exc


# -- disclosures: fails-to-deliver (v4) and congressional trades ---------------------------
LEGACY = "https://financialmodelingprep.com/api/v4"
DISCLOSURE_TTL = TTLPolicy("fmp_disclosures", open=3600, extended=3600, closed=3600,
                           market_aware=False)
# Our chamber names -> FMP's endpoints.
TRADE_ENDPOINTS = {"senate": "senate-trades", "house": "house-trades"}


def parse_fails_to_deliver(payload: Any, symbol: str) -> list[FailToDeliver]:
    """``/api/v4/fail_to_deliver`` rows (``{symbol, date, price, quantity, cusip, name}``)
    -> records, newest first (``[]`` when FMP has none). FMP's ``name`` is the issuer as the
    SEC's file describes it: it fills ``name`` and ``description``."""
    out = [FailToDeliver(symbol=text(row.get("symbol")) or symbol, date=iso_day(row.get("date")),
                         quantity=count(row.get("quantity")),
                         price=_float(row.get("price")), name=text(row.get("name")),
                         description=text(row.get("description")) or text(row.get("name")),
                         cusip=_string(row.get("cusip")))
           for row in _rows_of(payload, "fails-to-deliver rows")]
    out.sort(key=lambda item: item.date or "", reverse=True)
    return out


def _float(value: Any) -> float | None:
    number = json_number(value)
    return None if number is None else float(number)


def parse_congressional_trades(payload: Any, symbol: str, chamber: Chamber,
                               ) -> list[CongressionalTrade]:
    """``/stable/senate-trades`` or ``/stable/house-trades`` rows (``{symbol, disclosureDate,
    transactionDate, firstName, lastName, office, district, owner, assetDescription,
    assetType, type, amount, comment, link}``) -> records in FMP's order; FMP's ``type``
    is ``tradeType``."""
    return [CongressionalTrade(
        symbol=text(row.get("symbol")) or symbol, chamber=chamber,
        first_name=text(row.get("firstName")), last_name=text(row.get("lastName")),
        office=text(row.get("office")), district=text(row.get("district")),
        trade_type=text(row.get("type")), amount=text(row.get("amount")),
        asset_description=text(row.get("assetDescription")),
        asset_type=text(row.get("assetType")), owner=text(row.get("owner")),
        transaction_date=iso_day(row.get("transactionDate")),
        disclosure_date=iso_day(row.get("disclosureDate")), link=text(row.get("link")))
        for row in _rows_of(payload, "trades")]


def fails_to_deliver(symbol: str, months: int) -> list[FailToDeliver]:
    """The ``fails_to_deliver`` fetcher: FMP's rows of the symbol (cached an hour), cut to
    the settlement days the keyless source's ``months`` window covers, newest first."""
    provider = fmp_provider()
    found = provider.cached(
        "fail_to_deliver", {"symbol": symbol},
        lambda: parse_fails_to_deliver(provider.get_json(
            "fail_to_deliver", f"{LEGACY}/fail_to_deliver", {"symbol": symbol},
            not_found=f"Symbol {symbol} not found"), symbol),
        DISCLOSURE_TTL, group="disclosures")
    start = window_start(disclosures.current_day(), months).isoformat()
    return [row for row in found if row.date is not None and row.date >= start]


def chamber_trades(symbol: str, chamber: Chamber) -> list[CongressionalTrade]:
    """One chamber's trades in the symbol, in FMP's order (cached an hour)."""
    provider = fmp_provider()
    endpoint = TRADE_ENDPOINTS[chamber]
    return provider.cached(
        "congressional_trades", {"symbol": symbol, "chamber": chamber},
        lambda: parse_congressional_trades(provider.stable(
            endpoint, {"symbol": symbol}, f"Symbol {symbol} not found"), symbol, chamber),
        DISCLOSURE_TTL, group="disclosures")


def congressional_trades(symbol: str) -> list[CongressionalTrade]:
    """The ``congressional_trades`` fetcher: the Senate's trades and the House's, newest
    transaction first (the sort is stable: same-day rows keep FMP's order, Senate first).
    The Senate's call decides the answer (the reference's source); a House call that fails
    (a plan without it, an outage) leaves the House out of an answer marked incomplete, so
    no cache keeps it."""
    found = list(chamber_trades(symbol, "senate"))
    try:
        found.extend(chamber_trades(symbol, "house"))
    except UpstreamError:
        note_incomplete()
    found.sort(key=lambda trade: trade.transaction_date or "", reverse=True)
    return found


# -- crypto and forex news (the capability table's ``crypto_news``/``forex_news``) --------
NEWS_TTL = TTLPolicy("fmp_market_news", open=300, extended=300, closed=300,
                     market_aware=False)


def parse_market_news(payload: Any) -> list[FeedEntry]:
    """``/stable/news/{crypto,forex}-latest`` rows ``{symbol, publishedDate, publisher,
    title, image, site, text, url}`` -> entries in FMP's order (newest first): ``source``
    is ``site`` else ``publisher``, ``published`` FMP's wall time, naive (its zone is not
    documented; see :func:`published_at`). Rows without a title or url are dropped."""
    out = []
    for row in _rows_of(payload, "news"):
        title, url = text(row.get("title")), text(row.get("url"))
        if title is None or url is None:
            continue
        when = published_at(row.get("publishedDate"))
        out.append(FeedEntry(
            title=title, url=url, summary=text(row.get("text")),
            published=datetime.fromisoformat(when.removesuffix("Z")) if when else None,
            source=text(row.get("site")) or text(row.get("publisher")) or "",
            image=text(row.get("image"))))
    return out


def _market_news(kind: str, limit: int) -> list[FeedEntry]:
    provider = fmp_provider()
    params = {"page": 0, "limit": int(limit)}
    return provider.cached(
        f"{kind}_news", params,
        lambda: parse_market_news(provider.stable(f"news/{kind}-latest", params,
                                                  f"No {kind} news")),
        NEWS_TTL, group="market_news")


def crypto_news(limit: int) -> list[FeedEntry]:
    """The ``crypto_news`` fetcher: FMP's latest ``limit`` crypto articles."""
    return _market_news("crypto", limit)


def forex_news(limit: int) -> list[FeedEntry]:
    """The ``forex_news`` fetcher: FMP's latest ``limit`` forex articles."""
    return _market_news("forex", limit)
