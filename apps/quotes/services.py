"""Quotes: full quotes (quoteSummary modules, one call per symbol, fanned out) and simple
quotes (one v7 batch call), in the v1 formatted-string shapes."""

from __future__ import annotations

from typing import Any

from marketdata import formatting as fmt
from marketdata.concurrency import gather_partial
from marketdata.errors import NotFound
from marketdata.providers.yahoo.full_quote import RETURN_NAMES, FullQuote, fetch_full_quote
from marketdata.providers.yahoo.quote import QuoteSnapshot, fetch_quotes
from marketdata.symbols import display_symbol, normalize_symbol

_RISK_RATINGS = {1: "Below Average", 2: "Average", 3: "Above Average", 4: "High"}


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
def full_quote(q: FullQuote) -> dict[str, Any]:
    """The v1 Quote object from the parsed full quote (reference notes section 2.2)."""

    def p(value: float | None) -> str | None:
        return fmt.price(value, q.price_hint)

    rating, risk = q.morningstar_rating, q.morningstar_risk_rating
    out: dict[str, Any] = {
        "symbol": q.symbol,
        "name": q.long_name or q.short_name or q.symbol,
        "price": p(q.regular_market_price),
        "preMarketPrice": p(q.pre_market_price) if q.pre_market_current else None,
        "afterHoursPrice": p(q.post_market_price) if q.post_market_current else None,
        "change": fmt.signed(p(q.regular_market_change)),
        "percentChange": fmt.percent(q.regular_market_change_percent, fraction=True),
        "open": p(q.open),
        "high": p(q.day_high),
        "low": p(q.day_low),
        "yearHigh": p(q.fifty_two_week_high),
        "yearLow": p(q.fifty_two_week_low),
        "volume": q.volume,
        "avgVolume": q.average_volume,
        "marketCap": fmt.compact(q.market_cap),
        "beta": fmt.fixed(q.beta),
        "pe": fmt.fixed(q.trailing_pe),
        "eps": fmt.fixed(q.trailing_eps),
        "dividend": fmt.fixed(q.dividend_rate),
        # Funds report their distribution yield as `yield`, stocks as `dividendYield`.
        "yield": fmt.percent(q.yield_value if q.dividend_yield is None else q.dividend_yield,
                             fraction=True, sign=False),
        "exDividend": fmt.long_date(q.ex_dividend_date),
        "netAssets": fmt.compact(q.total_assets),
        "nav": p(q.nav_price),
        "expenseRatio": fmt.percent(q.expense_ratio, fraction=True, sign=False),
        "category": q.category,
        "lastCapitalGain": fmt.fixed(q.last_cap_gain),
        "fundRating": "★" * rating if rating is not None and rating > 0 else None,
        "fundRiskRating": _RISK_RATINGS.get(risk) if risk is not None else None,
        "holdingsTurnover": fmt.percent(q.holdings_turnover, fraction=True, sign=False),
        "earningsDate": " - ".join(d for d in map(fmt.long_date, q.earnings_dates) if d) or None,
        "lastDividend": fmt.fixed(q.last_dividend_value),
        "inceptionDate": fmt.long_date(q.fund_inception_date),
        "sector": q.sector,
        "industry": q.industry,
        "about": q.long_business_summary,
        "employees": str(q.full_time_employees) if q.full_time_employees is not None
        else None,
    }
    for name, member in RETURN_NAMES:
        out[name] = fmt.percent(getattr(q.returns, member), fraction=True, sign=False)
    return {k: v for k, v in out.items() if v is not None}


def full_quotes(symbols: list[str]) -> list[dict[str, Any]]:
    """Full quotes in request order, fetched concurrently (one round trip for all).

    Unknown symbols are left out (404 when none resolve). An upstream failure is raised
    when no symbol could be served, so the client sees 502/503/504 rather than a 404.
    """
    fetched = gather_partial(fetch_full_quote, _valid(symbols), what="quote")
    fetched.raise_if_empty(lambda: no_quotes_found(symbols))
    return [full_quote(record) for _, record in fetched.values]
