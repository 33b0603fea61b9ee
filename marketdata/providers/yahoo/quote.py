"""v7 quote: one batch call for many symbols (simple quotes, streams, v2 batch quotes,
logo URLs), and the fetchers of the currency-pair and futures quotes read from it."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from marketdata.cache import fetch_many_through
from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import integer, number, raw, text
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.providers.yahoo.full_quote import usable_value
from marketdata.records.quotes import (
    QUOTE_ATTRIBUTES,
    QUOTE_MEMBERS,
    ForexQuote,
    FuturesQuote,
    GqlQuote,
    LogoUrls,
    QuoteSnapshot,
)

MAX_BATCH = 50


def _num(item: dict[str, Any], key: str) -> Any:
    return raw(item.get(key))


def parse_quote(item: dict[str, Any]) -> QuoteSnapshot:
    hint = _num(item, "priceHint")
    volume = _num(item, "regularMarketVolume")
    return QuoteSnapshot(
        symbol=str(item["symbol"]).upper(),
        name=item.get("longName") or item.get("shortName") or item.get("displayName"),
        quote_type=item.get("quoteType"),
        currency=item.get("currency"),
        price_hint=int(hint) if isinstance(hint, int | float) else 2,
        market_state=item.get("marketState"),
        price=_num(item, "regularMarketPrice"),
        change=_num(item, "regularMarketChange"),
        change_percent=_num(item, "regularMarketChangePercent"),
        previous_close=_num(item, "regularMarketPreviousClose"),
        open=_num(item, "regularMarketOpen"),
        day_high=_num(item, "regularMarketDayHigh"),
        day_low=_num(item, "regularMarketDayLow"),
        volume=int(volume) if isinstance(volume, int | float) else None,
        market_time=_num(item, "regularMarketTime"),
        pre_market_price=_num(item, "preMarketPrice"),
        pre_market_time=_num(item, "preMarketTime"),
        post_market_price=_num(item, "postMarketPrice"),
        post_market_time=_num(item, "postMarketTime"),
    )


def parse_quotes(payload: Any) -> dict[str, QuoteSnapshot]:
    """v7 body -> {SYMBOL: snapshot}; Yahoo silently omits unknown symbols."""
    try:
        results = payload["quoteResponse"]["result"] or []
    except (KeyError, TypeError) as exc:
        raise UpstreamBadResponse("yahoo", "Yahoo Finance quote answer has no "
                                  "quoteResponse.result") from exc
    out: dict[str, QuoteSnapshot] = {}
    for item in results:
        if isinstance(item, dict) and item.get("symbol"):
            snapshot = parse_quote(item)
            out[snapshot.symbol] = snapshot
    return out


def _fetch_batch(symbols: list[str]) -> dict[str, QuoteSnapshot]:
    found: dict[str, QuoteSnapshot] = {}
    for start in range(0, len(symbols), MAX_BATCH):
        chunk = symbols[start:start + MAX_BATCH]
        payload = get_json("quote", f"{yahoo.QUERY1}/v7/finance/quote",
                           {"symbols": ",".join(chunk)})
        found.update(parse_quotes(payload))
    return found


def fetch_quotes(symbols: list[str]) -> dict[str, QuoteSnapshot]:
    """Snapshots for validated symbols (one upstream call for all uncached ones)."""
    return fetch_many_through("yahoo", "quote", symbols, _fetch_batch, "quote", group="quotes")


# -- v2 batch quotes ----------------------------------------------------------------------------
# GqlQuote member -> v7 key. v7 reports its percents in percent units
# (regularMarketChangePercent 1.27 is 1.27%, dividendYield 0.41 is 0.41%) where quoteSummary
# sends fractions; the values are passed on as Yahoo sends them.
V7_MEMBERS: dict[str, str] = {
    "symbol": "symbol", "shortName": "shortName", "longName": "longName",
    "quoteType": "quoteType", "currency": "currency", "exchange": "exchange",
    "exchangeName": "fullExchangeName", "marketState": "marketState",
    "financialCurrency": "financialCurrency", "timeZoneFullName": "exchangeTimezoneName",
    "timeZoneShortName": "exchangeTimezoneShortName", "underlyingSymbol": "underlyingSymbol",
    "fromCurrency": "fromCurrency", "toCurrency": "toCurrency", "logoUrl": "logoUrl",
    "companyLogoUrl": "companyLogoUrl", "tradeable": "tradeable",
    "gmtOffSetMilliseconds": "gmtOffSetMilliseconds",
    "exchangeDataDelayedBy": "exchangeDataDelayedBy", "priceHint": "priceHint",
    "regularMarketPrice": "regularMarketPrice", "regularMarketChange": "regularMarketChange",
    "regularMarketChangePercent": "regularMarketChangePercent",
    "regularMarketDayHigh": "regularMarketDayHigh", "regularMarketDayLow": "regularMarketDayLow",
    "regularMarketOpen": "regularMarketOpen",
    "regularMarketPreviousClose": "regularMarketPreviousClose",
    "regularMarketTime": "regularMarketTime", "regularMarketVolume": "regularMarketVolume",
    "dayHigh": "regularMarketDayHigh", "dayLow": "regularMarketDayLow",
    "open": "regularMarketOpen", "previousClose": "regularMarketPreviousClose",
    "volume": "regularMarketVolume",
    "preMarketPrice": "preMarketPrice", "preMarketChange": "preMarketChange",
    "preMarketChangePercent": "preMarketChangePercent", "preMarketTime": "preMarketTime",
    "postMarketPrice": "postMarketPrice", "postMarketChange": "postMarketChange",
    "postMarketChangePercent": "postMarketChangePercent", "postMarketTime": "postMarketTime",
    "bid": "bid", "ask": "ask", "bidSize": "bidSize", "askSize": "askSize",
    "fiftyTwoWeekHigh": "fiftyTwoWeekHigh", "fiftyTwoWeekLow": "fiftyTwoWeekLow",
    "fiftyDayAverage": "fiftyDayAverage", "twoHundredDayAverage": "twoHundredDayAverage",
    "averageVolume": "averageDailyVolume3Month", "marketCap": "marketCap",
    "trailingPe": "trailingPE", "forwardPe": "forwardPE",
    "trailingEps": "epsTrailingTwelveMonths", "forwardEps": "epsForward",
    "sharesOutstanding": "sharesOutstanding", "bookValue": "bookValue",
    "priceToBook": "priceToBook", "dividendRate": "dividendRate",
    "dividendYield": "dividendYield", "exDividendDate": "exDividendDate",
    "trailingAnnualDividendRate": "trailingAnnualDividendRate",
    "trailingAnnualDividendYield": "trailingAnnualDividendYield",
    "navPrice": "navPrice", "allTimeHigh": "allTimeHigh", "allTimeLow": "allTimeLow",
}

LOGO_FIELDS = "logoUrl,companyLogoUrl"
_LOGO_SIZE = "50"


def _percent_as_fraction(value: Any) -> float | None:
    # Shifted in decimal so that 34.721302 % is 0.34721302, not 0.34721302000000004.
    found = number(raw(value))
    return float(Decimal(repr(found)).scaleb(-2)) if found is not None else None


def _rating_mean(value: Any) -> float | None:
    # averageAnalystRating is "2.1 - Buy": the mean on Yahoo's 1 (strong buy) to 5 scale.
    match = _RATING.match(value) if isinstance(value, str) else None
    return float(match["mean"]) if match else None


def _rating_key(value: Any) -> str | None:
    # ... and its wording as quoteSummary's recommendationKey spells it ("strong_buy").
    match = _RATING.match(value) if isinstance(value, str) else None
    return "_".join(match["label"].lower().split()) if match else None


def _seconds(value: Any) -> int | None:
    found = integer(raw(value))
    return found // 1000 if found is not None else None


_RATING = re.compile(r"\s*(?P<mean>\d+(?:\.\d+)?)\s*-\s*(?P<label>[A-Za-z][A-Za-z ]*?)\s*$")

# GqlQuote members that v7 carries under another meaning: (v7 key, conversion). quoteSummary
# sends week52Change as a fraction, v7 its fiftyTwoWeekChangePercent in percent; a fund's
# totalAssets is v7's netAssets; currentPrice is the regular-market price.
V7_DERIVED: dict[str, tuple[str, Any]] = {
    "firstTradeDateEpochUtc": ("firstTradeDateMilliseconds", _seconds),
    "recommendationMean": ("averageAnalystRating", _rating_mean),
    "recommendationKey": ("averageAnalystRating", _rating_key),
    "week52Change": ("fiftyTwoWeekChangePercent", _percent_as_fraction),
    "currentPrice": ("regularMarketPrice", raw),
    "totalAssets": ("netAssets", raw),
    "beta": ("beta", raw),
}


def parse_gql_quote_v7(item: dict[str, Any]) -> GqlQuote:
    """One v7 result -> every GqlQuote member: the ones v7 sends (``V7_MEMBERS``), the ones
    derived from what it sends (``V7_DERIVED``); the rest are None."""
    values: dict[str, Any] = {}
    for name, kind in QUOTE_MEMBERS.items():
        key = V7_MEMBERS.get(name)
        if key is not None:
            value = usable_value(kind, item.get(key))
        elif name in V7_DERIVED:
            source, convert = V7_DERIVED[name]
            value = usable_value(kind, convert(item.get(source)))
        else:
            value = None
        values[QUOTE_ATTRIBUTES[name]] = value
    values["symbol"] = values["symbol"] or str(item["symbol"]).upper()
    return GqlQuote(**values)


def v7_results(payload: Any) -> list[dict[str, Any]]:
    """The result objects of a v7 quote answer (Yahoo omits unknown symbols); a body
    without ``quoteResponse.result`` is a 502."""
    try:
        results = payload["quoteResponse"]["result"] or []
    except (KeyError, TypeError) as exc:
        raise UpstreamBadResponse("yahoo", "Yahoo Finance quote answer has no "
                                  "quoteResponse.result") from exc
    return [item for item in results if isinstance(item, dict) and item.get("symbol")]


def parse_gql_quotes(payload: Any) -> dict[str, GqlQuote]:
    """v7 body -> {SYMBOL: quote}; Yahoo silently omits unknown symbols."""
    return {str(item["symbol"]).upper(): parse_gql_quote_v7(item)
            for item in v7_results(payload)}


def _locale(lang: str | None, region: str | None) -> dict[str, str]:
    return {k: v for k, v in (("lang", lang), ("region", region)) if v}


def fetch_gql_quotes(symbols: list[str], *, lang: str | None = None,
                     region: str | None = None) -> dict[str, GqlQuote]:
    """v2 batch quotes for validated symbols: one v7 call (``formatted=true``, so the
    client's ``format`` applies) for every uncached symbol; absent symbols are unknown."""
    locale = _locale(lang, region)

    def batch(missing: list[str]) -> dict[str, GqlQuote]:
        found: dict[str, GqlQuote] = {}
        for start in range(0, len(missing), MAX_BATCH):
            chunk = missing[start:start + MAX_BATCH]
            payload = get_json("quote", f"{yahoo.QUERY1}/v7/finance/quote",
                               {"symbols": ",".join(chunk), "formatted": "true", **locale})
            found.update(parse_gql_quotes(payload))
        return found

    return fetch_many_through("yahoo", "quote_v2", symbols, batch, "quote", group="quotes",
                              params=locale)


def parse_logos(payload: Any) -> dict[str, LogoUrls]:
    """v7 body asked for the logo fields -> {SYMBOL: urls}; symbols without any are absent."""
    out: dict[str, LogoUrls] = {}
    for item in v7_results(payload):
        logos = LogoUrls(usable_value("string", item.get("logoUrl")),
                         usable_value("string", item.get("companyLogoUrl")))
        if logos.logo_url or logos.company_logo_url:
            out[str(item["symbol"]).upper()] = logos
    return out


def fetch_logos(symbols: list[str]) -> dict[str, LogoUrls]:
    """Logo URLs of validated symbols: one v7 call asking only for the logo fields (50x50
    images), cached a day. Symbols without a logo are absent."""

    def batch(missing: list[str]) -> dict[str, LogoUrls]:
        found: dict[str, LogoUrls] = {}
        for start in range(0, len(missing), MAX_BATCH):
            chunk = missing[start:start + MAX_BATCH]
            payload = get_json("quote", f"{yahoo.QUERY1}/v7/finance/quote",
                               {"symbols": ",".join(chunk), "formatted": "false",
                                "fields": LOGO_FIELDS, "imgHeights": _LOGO_SIZE,
                                "imgWidths": _LOGO_SIZE})
            found.update(parse_logos(payload))
        return found

    return fetch_many_through("yahoo", "quote_logo", symbols, batch, "fundamentals",
                              group="quotes")


# -- currency pairs -----------------------------------------------------------------------------
def _side(value: Any) -> float | None:
    """A bid or ask: Yahoo sends 0 when it has no book, which is no price."""
    value = number(value)
    return value if value else None


def forex_quote(base: str, quote: str) -> ForexQuote:
    """The ``forex`` fetcher: the v2 batch quote of ``{FROM}{TO}=X`` (the same cache entry
    as ``/v2/quotes``), live price, bid and ask. NotFound when Yahoo does not list the pair
    (or lists it without a price, or as something other than a currency)."""
    symbol = f"{base}{quote}=X"
    record = fetch_gql_quotes([symbol]).get(symbol)
    price = number(record.regular_market_price) if record is not None else None
    kind = text(record.quote_type) if record is not None else None
    if record is None or price is None or (kind is not None and kind != "CURRENCY"):
        raise NotFound(f"No quote for {base}/{quote}")
    return ForexQuote(base=base, quote=quote, price=price, bid=_side(record.bid),
                      ask=_side(record.ask), change=number(record.regular_market_change),
                      change_percent=number(record.regular_market_change_percent),
                      timestamp=integer(record.regular_market_time))


# -- futures ------------------------------------------------------------------------------------
# Why an own v7 call: the shared v7 parsers keep the GqlQuote members only, and a contract's
# expiration (``expireDate``/``expireIsoDate``) and open interest (``openInterest``) are not
# among them; v7 sends both for every FUTURE, so one call (cached like every v7 quote) has
# everything and no quoteSummary call is needed. The common members are read by the shared
# v7 parser (:func:`parse_gql_quote_v7`).
def expiration_date(item: dict[str, Any]) -> str | None:
    """``YYYY-MM-DD`` from ``expireIsoDate`` (``2025-04-28T00:00:00Z``), else from the
    ``expireDate`` epoch (UTC)."""
    iso = text(item.get("expireIsoDate"))
    if iso and re.match(r"\d{4}-\d{2}-\d{2}", iso):
        return iso[:10]
    seconds = integer(item.get("expireDate"))
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).date().isoformat()


def parse_contract(item: dict[str, Any]) -> FuturesQuote:
    """One v7 result -> a futures quote; NotFound when Yahoo's quoteType is not FUTURE."""
    record = parse_gql_quote_v7(item)
    symbol = str(item["symbol"]).upper()
    if text(record.quote_type) != "FUTURE":
        raise NotFound(f"{symbol} is not a futures contract")
    return FuturesQuote(
        symbol=symbol,
        name=text(record.long_name) or text(record.short_name),
        exchange=text(record.exchange),
        underlying=text(record.underlying_symbol),
        expiration_date=expiration_date(item),
        price=number(record.regular_market_price),
        change=number(record.regular_market_change),
        change_percent=number(record.regular_market_change_percent),
        open_interest=integer(item.get("openInterest")),
        volume=integer(record.regular_market_volume),
        timestamp=integer(record.regular_market_time),
    )


def parse_contract_answer(payload: Any, symbol: str) -> FuturesQuote:
    """v7 body asked for one symbol -> its futures quote; NotFound when Yahoo left it out."""
    for item in v7_results(payload):
        if str(item["symbol"]).upper() == symbol:
            return parse_contract(item)
    raise NotFound(f"Futures contract not found: {symbol}")


def futures_quote(symbol: str) -> FuturesQuote:
    """The ``futures`` fetcher: one v7 call for a validated Yahoo symbol (``GC=F``,
    ``GCZ26.CMX``), through the cache."""

    def fetch() -> FuturesQuote:
        payload = get_json("quote", f"{yahoo.QUERY1}/v7/finance/quote",
                           {"symbols": symbol, "formatted": "false"})
        return parse_contract_answer(payload, symbol)

    # A call name of its own: entries of the old "futures_quote" call held the response
    # body, not this record, and a shared cache may still have them after an upgrade.
    return yahoo_provider().cached("futures_contract", {"symbol": symbol}, fetch, "quote",
                                   group="quotes")
