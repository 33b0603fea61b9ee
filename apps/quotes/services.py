"""Quotes: full quotes (quoteSummary modules, one call per symbol, fanned out) and simple
quotes (one v7 batch call), in the v1 formatted-string shapes."""

from __future__ import annotations

from typing import Any

from marketdata import formatting as fmt
from marketdata.concurrency import run_parallel
from marketdata.errors import MarketDataError, NotFound, telling_failure
from marketdata.formatting import raw
from marketdata.providers.yahoo.quote import QuoteSnapshot, fetch_quotes
from marketdata.providers.yahoo.quote_summary import QUOTE_MODULES, fetch_quote_summary
from marketdata.symbols import display_symbol, normalize_symbol

_RISK_RATINGS = {1: "Below Average", 2: "Average", 3: "Above Average", 4: "High"}
_RETURNS = (
    ("fiveDaysReturn", "fiveDaysReturn"), ("oneMonthReturn", "oneMonthReturn"),
    ("threeMonthReturn", "threeMonthReturn"), ("sixMonthReturn", "sixMonthReturn"),
    ("ytdReturn", "ytdReturnPct"), ("yearReturn", "oneYearTotalReturn"),
    ("threeYearReturn", "threeYearTotalReturn"), ("fiveYearReturn", "fiveYearTotalReturn"),
    ("tenYearReturn", "tenYearTotalReturn"), ("maxReturn", "maxReturn"),
)


def _valid(symbols: list[str]) -> list[str]:
    return [s for s in (normalize_symbol(x) for x in symbols) if s is not None]


def no_quotes_found(symbols: list[str]) -> NotFound:
    shown = ", ".join(display_symbol(s) for s in symbols[:10])
    shown += ", ..." if len(symbols) > 10 else ""
    return NotFound(f"No quotes found for symbols: {shown}")


# -- simple quotes ----------------------------------------------------------------------------
def simple_quote(q: QuoteSnapshot) -> dict[str, Any]:
    decimals = max(2, q.price_hint)
    out: dict[str, Any] = {
        "symbol": q.symbol,
        "name": q.name or q.symbol,
        "price": fmt.fixed(q.price, decimals),
        "change": fmt.signed_fixed(q.change, decimals),
        "percentChange": fmt.percent(q.change_percent),
    }
    if q.pre_market_current:
        out["preMarketPrice"] = fmt.fixed(q.pre_market_price, decimals)
    if q.post_market_current:
        out["afterHoursPrice"] = fmt.fixed(q.post_market_price, decimals)
    return {k: v for k, v in out.items() if v is not None}


def simple_quotes(symbols: list[str]) -> list[dict[str, Any]]:
    """Simple quotes in request order; unknown symbols left out, 404 when none resolve."""
    valid = _valid(symbols)
    found = fetch_quotes(valid) if valid else {}
    result = [simple_quote(found[s]) for s in valid if s in found]
    if not result:
        raise no_quotes_found(symbols)
    return result


# The quote stream's SimpleQuote variant (spec: symbol, name, price, change, percentChange,
# logo): no pre-market or after-hours prices.
STREAM_FIELDS = ("symbol", "name", "price", "change", "percentChange", "logo")


def stream_quotes(symbols: list[str]) -> dict[str, dict[str, Any]]:
    """Stream quotes by symbol, in request order; unknown or malformed symbols are absent."""
    valid = _valid(symbols)
    found = fetch_quotes(valid) if valid else {}
    return {s: {k: v for k, v in simple_quote(found[s]).items() if k in STREAM_FIELDS}
            for s in valid if s in found}


# -- full quotes ------------------------------------------------------------------------------
def _module(modules: dict[str, Any], name: str) -> dict[str, Any]:
    value = modules.get(name)
    return value if isinstance(value, dict) else {}


def _first(*sources: tuple[dict[str, Any], str]) -> Any:
    """The first present value among (module, field) pairs; a real 0 counts as present."""
    for module, name in sources:
        value = raw(module.get(name))
        if value is not None:
            return value
    return None


def full_quote(symbol: str, modules: dict[str, Any]) -> dict[str, Any]:
    """The v1 Quote object from quoteSummary modules (reference notes section 2.2)."""
    price = _module(modules, "price")
    detail = _module(modules, "summaryDetail")
    stats = _module(modules, "defaultKeyStatistics")
    profile = _module(modules, "assetProfile")
    calendar = _module(modules, "calendarEvents")
    performance = _module(_module(modules, "quoteUnadjustedPerformanceOverview"),
                          "performanceOverview")
    hint = _first((price, "priceHint"), (detail, "priceHint"))
    hint = 2 if hint is None else int(hint)

    def p(value: Any) -> str | None:
        return fmt.price(raw(value), hint)

    market_time = raw(price.get("regularMarketTime")) or 0
    pre_time = raw(price.get("preMarketTime")) or 0
    post_time = raw(price.get("postMarketTime")) or 0
    volume = _first((detail, "volume"), (price, "regularMarketVolume"))
    avg_volume = _first((detail, "averageVolume"), (price, "averageDailyVolume3Month"))
    rating = raw(stats.get("morningStarOverallRating"))
    risk = raw(stats.get("morningStarRiskRating"))
    earnings = (calendar.get("earnings") or {}).get("earningsDate") or []
    employees = raw(profile.get("fullTimeEmployees"))

    out: dict[str, Any] = {
        "symbol": price.get("symbol") or symbol,
        "name": price.get("longName") or price.get("shortName") or symbol,
        "price": p(price.get("regularMarketPrice")),
        "preMarketPrice": p(price.get("preMarketPrice")) if pre_time > market_time else None,
        "afterHoursPrice": p(price.get("postMarketPrice")) if post_time > market_time else None,
        "change": fmt.signed(p(price.get("regularMarketChange"))),
        "percentChange": fmt.percent(raw(price.get("regularMarketChangePercent")),
                                     fraction=True),
        "open": p(_first((detail, "open"), (price, "regularMarketOpen"))),
        "high": p(_first((detail, "dayHigh"), (price, "regularMarketDayHigh"))),
        "low": p(_first((detail, "dayLow"), (price, "regularMarketDayLow"))),
        "yearHigh": p(detail.get("fiftyTwoWeekHigh")),
        "yearLow": p(detail.get("fiftyTwoWeekLow")),
        "volume": int(volume) if volume is not None else None,
        "avgVolume": int(avg_volume) if avg_volume is not None else None,
        "marketCap": fmt.compact(_first((detail, "marketCap"), (price, "marketCap"))),
        "beta": fmt.fixed(_first((detail, "beta"), (stats, "beta"))),
        "pe": fmt.fixed(raw(detail.get("trailingPE"))),
        "eps": fmt.fixed(_first((stats, "trailingEps"), (detail, "trailingEps"))),
        "dividend": fmt.fixed(raw(detail.get("dividendRate"))),
        # Funds report their distribution yield as `yield`, stocks as `dividendYield`.
        "yield": fmt.percent(_first((detail, "dividendYield"), (detail, "yield")),
                             fraction=True, sign=False),
        "exDividend": fmt.long_date(_first((detail, "exDividendDate"),
                                           (calendar, "exDividendDate"))),
        "netAssets": fmt.compact(raw(detail.get("totalAssets"))),
        "nav": p(detail.get("navPrice")),
        "expenseRatio": fmt.percent(raw(stats.get("annualReportExpenseRatio")), fraction=True,
                                    sign=False),
        "category": stats.get("category"),
        "lastCapitalGain": fmt.fixed(raw(stats.get("lastCapGain"))),
        "fundRating": "★" * int(rating) if isinstance(rating, int | float) and rating > 0
        else None,
        "fundRiskRating": _RISK_RATINGS.get(int(risk)) if isinstance(risk, int | float)
        else None,
        "holdingsTurnover": fmt.percent(raw(stats.get("annualHoldingsTurnover")),
                                        fraction=True, sign=False),
        "earningsDate": " - ".join(d for d in (fmt.long_date(raw(e)) for e in earnings) if d)
        or None,
        "lastDividend": fmt.fixed(raw(stats.get("lastDividendValue"))),
        "inceptionDate": fmt.long_date(raw(stats.get("fundInceptionDate"))),
        "sector": profile.get("sector") or None,
        "industry": profile.get("industry") or None,
        "about": profile.get("longBusinessSummary") or None,
        "employees": str(int(employees)) if isinstance(employees, int | float) else None,
    }
    for name, source in _RETURNS:
        out[name] = fmt.percent(raw(performance.get(source)), fraction=True, sign=False)
    return {k: v for k, v in out.items() if v is not None}


def full_quotes(symbols: list[str]) -> list[dict[str, Any]]:
    """Full quotes in request order, fetched concurrently (one round trip for all).

    Unknown symbols are left out (404 when none resolve). An upstream failure is raised
    when no symbol could be served, so the client sees 502/503/504 rather than a 404.
    """
    valid = _valid(symbols)
    results = run_parallel(lambda s: fetch_quote_summary(s, QUOTE_MODULES), valid)
    quotes: list[dict[str, Any]] = []
    failures: list[MarketDataError] = []
    for symbol, result in zip(valid, results, strict=True):
        if isinstance(result, NotFound):
            continue
        if isinstance(result, MarketDataError):
            failures.append(result)
            continue
        if isinstance(result, BaseException):
            raise result
        quotes.append(full_quote(symbol, result))
    if not quotes:
        raise telling_failure(failures) or no_quotes_found(symbols)
    return quotes
