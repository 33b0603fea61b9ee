"""Quotes: full quotes (quoteSummary modules, one call per symbol, fanned out) and simple
quotes (one v7 batch call), in the v1 formatted-string shapes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from apps.core.symbols import require_symbol
from apps.quotes.serializers import region_of
from marketdata import formatting as fmt
from marketdata.capabilities import quotes
from marketdata.concurrency import gather_partial, run_parallel
from marketdata.errors import MarketDataError, NotFound
from marketdata.logs import get_logger
from marketdata.records.batches import Batch
from marketdata.records.members import URI, is_record, member, member_names, members_of
from marketdata.records.quotes import (
    TICK_MARKET_HOURS,
    TICK_MEMBERS,
    FullQuote,
    GqlQuote,
    LogoUrls,
    QuoteSnapshot,
    QuoteTypeRecord,
    present_value,
    tick_quote_type,
)
from marketdata.symbols import display_symbol, normalize_symbol

log = get_logger("apps.quotes")
T = TypeVar("T")

_RISK_RATINGS = {1: "Below Average", 2: "Average", 3: "Above Average", 4: "High"}


def _valid(symbols: list[str]) -> list[str]:
    return [s for s in (normalize_symbol(x) for x in symbols) if s is not None]


def no_quotes_found(symbols: list[str]) -> NotFound:
    shown = ", ".join(display_symbol(s) for s in symbols[:10])
    shown += ", ..." if len(symbols) > 10 else ""
    return NotFound(f"No quotes found for symbols: {shown}")


# -- simple quotes ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SimpleQuote:
    """The v1 SimpleQuote: a quote snapshot's numbers as v1's text (:meth:`of`). The price
    and the change are left out when the snapshot has none (the v1 document requires them);
    the extended-hours prices are there when that session traded after the regular one."""

    symbol: str = member()
    name: str = member()
    price: str | None = member(optional=True, required=True)
    change: str | None = member(optional=True, required=True)
    percent_change: str | None = member(optional=True, required=True)
    pre_market_price: str | None = member(optional=True)
    after_hours_price: str | None = member(optional=True)
    logo: str | None = member(optional=True, schema=URI, default=None)

    @staticmethod
    def values(q: QuoteSnapshot) -> tuple[str | None, ...]:
        """The members' values, in order (but ``logo``: the snapshot has none)."""
        decimals = max(2, q.price_hint)
        return (q.symbol, q.name or q.symbol, fmt.fixed(q.price, decimals),
                fmt.signed_fixed(q.change, decimals), fmt.percent(q.change_percent),
                fmt.fixed(q.pre_market_price, decimals) if q.pre_market_current else None,
                fmt.fixed(q.post_market_price, decimals) if q.post_market_current else None)

    @classmethod
    def of(cls, q: QuoteSnapshot) -> SimpleQuote:
        return cls(*cls.values(q))


_SIMPLE_QUOTE = member_names(SimpleQuote)


def simple_quote_json(q: QuoteSnapshot) -> dict[str, Any]:
    """``as_json(SimpleQuote.of(q))``, written at once (no record per row: a hot path): the
    values in member order, every one that is None left out (the members that may be None
    are the optional ones)."""
    return {name: value for name, value in zip(_SIMPLE_QUOTE, SimpleQuote.values(q),
                                               strict=False) if value is not None}


def simple_quotes(symbols: list[str]) -> list[dict[str, Any]]:
    """The JSON of the simple quotes (:func:`simple_quote_json`) in request order; unknown
    symbols left out, 404 when none resolve."""
    valid = _valid(symbols)
    found = quotes.snapshots(valid) if valid else {}
    result = [simple_quote_json(found[s]) for s in valid if s in found]
    if not result:
        raise no_quotes_found(symbols)
    return result


# The quote stream's SimpleQuote variant (spec: symbol, name, price, change, percentChange,
# logo): no pre-market or after-hours prices.
STREAM_FIELDS = ("symbol", "name", "price", "change", "percentChange", "logo")


def stream_quotes(symbols: list[str]) -> dict[str, dict[str, Any]]:
    """Stream quotes by symbol, in request order; unknown or malformed symbols are absent."""
    return {s: payload["quote"] for s, payload in stream_payloads(symbols).items()}


def stream_payloads(symbols: list[str]) -> dict[str, dict[str, Any]]:
    """One poll of the shared stream pollers: by symbol, the SSE stream's ``quote`` and the
    WebSocket stream's ``tick``, from one batch call (the same data-cache entry as
    :func:`stream_quotes`); unknown or malformed symbols are absent."""
    valid = _valid(symbols)
    found = quotes.snapshots(valid) if valid else {}
    return {s: {"quote": {k: v for k, v in simple_quote_json(found[s]).items()
                          if k in STREAM_FIELDS},
                "tick": stream_tick(found[s])}
            for s in valid if s in found}


def stream_tick(q: QuoteSnapshot) -> dict[str, Any]:
    """A quote snapshot as a tick frame: raw numbers, ``time`` in epoch milliseconds,
    ``changePercent`` in percent, every member present (null where unknown)."""
    tick: dict[str, Any] = dict.fromkeys(TICK_MEMBERS)
    tick.update(
        id=q.symbol, price=q.price,
        time=q.market_time * 1000 if q.market_time is not None else None,
        currency=q.currency,
        quoteType=tick_quote_type(q.quote_type),
        marketHours=TICK_MARKET_HOURS.get((q.market_state or "").upper()),
        changePercent=q.change_percent, dayVolume=q.volume, dayHigh=q.day_high,
        dayLow=q.day_low, change=q.change, shortName=q.name, openPrice=q.open,
        previousClose=q.previous_close, priceHint=q.price_hint)
    return tick


# Members protobuf 3 leaves out when they are zero: a pushed price without them means 0.
_PUSHED_ZEROS = ("change", "changePercent", "dayVolume")


def pushed_payload(pushed: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    """A pushed tick as the stream's message members (``quote`` and ``tick``), merged
    over the symbol's ``previous`` message: the members the push carries replace those the
    last poll or push said; the quote keeps its name and gets the new price and change."""
    symbol = pushed["id"]
    tick: dict[str, Any] = dict((previous or {}).get("tick") or dict.fromkeys(TICK_MEMBERS))
    tick.update((k, v) for k, v in pushed.items() if k in tick)
    if "price" in pushed:
        tick.update((k, pushed.get(k, 0)) for k in _PUSHED_ZEROS)
    decimals = max(2, int(tick.get("priceHint") or 2))
    quote = dict((previous or {}).get("quote") or {"symbol": symbol,
                                                    "name": tick.get("shortName") or symbol})
    quote.update(price=fmt.fixed(tick.get("price"), decimals),
                 change=fmt.signed_fixed(tick.get("change"), decimals),
                 percentChange=fmt.percent(tick.get("changePercent")))
    return {"quote": {k: v for k, v in quote.items() if v is not None}, "tick": tick}


# -- full quotes ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Quote:
    """The v1 Quote: a full quote's numbers as v1's text (:meth:`of`; reference notes section
    2.2), each member left out when the source has no value (the price and the change too,
    which the v1 document requires)."""

    symbol: str = member()
    name: str = member()
    price: str | None = member(optional=True, required=True)
    pre_market_price: str | None = member(optional=True)
    after_hours_price: str | None = member(optional=True)
    change: str | None = member(optional=True, required=True)
    percent_change: str | None = member(optional=True, required=True)
    open: str | None = member(optional=True)
    high: str | None = member(optional=True)
    low: str | None = member(optional=True)
    year_high: str | None = member(optional=True)
    year_low: str | None = member(optional=True)
    volume: int | None = member(optional=True)
    avg_volume: int | None = member(optional=True)
    market_cap: str | None = member(optional=True)
    beta: str | None = member(optional=True)
    pe: str | None = member(optional=True)
    eps: str | None = member(optional=True)
    dividend: str | None = member(optional=True)
    # Funds report their distribution yield as `yield`, stocks as `dividendYield`.
    yield_: str | None = member(name="yield", optional=True)
    ex_dividend: str | None = member(optional=True)
    net_assets: str | None = member(optional=True)
    nav: str | None = member(optional=True)
    expense_ratio: str | None = member(optional=True)
    category: str | None = member(optional=True)
    last_capital_gain: str | None = member(optional=True)
    fund_rating: str | None = member(optional=True)
    fund_risk_rating: str | None = member(optional=True)
    holdings_turnover: str | None = member(optional=True)
    earnings_date: str | None = member(optional=True)
    last_dividend: str | None = member(optional=True)
    inception_date: str | None = member(optional=True)
    sector: str | None = member(optional=True)
    industry: str | None = member(optional=True)
    about: str | None = member(optional=True)
    employees: str | None = member(optional=True)
    five_days_return: str | None = member(optional=True)
    one_month_return: str | None = member(optional=True)
    three_month_return: str | None = member(optional=True)
    six_month_return: str | None = member(optional=True)
    ytd_return: str | None = member(optional=True)
    year_return: str | None = member(optional=True)
    three_year_return: str | None = member(optional=True)
    five_year_return: str | None = member(optional=True)
    ten_year_return: str | None = member(optional=True)
    max_return: str | None = member(optional=True)
    logo: str | None = member(optional=True, default=None)

    @staticmethod
    def values(q: FullQuote) -> tuple[str | int | None, ...]:
        """The members' values, in order (but ``logo``: the full quote has none)."""

        def p(value: float | None) -> str | None:
            return fmt.price(value, q.price_hint)

        def unsigned(fraction: float | None) -> str | None:
            return fmt.percent(fraction, fraction=True, sign=False)

        rating, risk, returns = q.morningstar_rating, q.morningstar_risk_rating, q.returns
        return (
            q.symbol, q.long_name or q.short_name or q.symbol, p(q.regular_market_price),
            p(q.pre_market_price) if q.pre_market_current else None,
            p(q.post_market_price) if q.post_market_current else None,
            fmt.signed(p(q.regular_market_change)),
            fmt.percent(q.regular_market_change_percent, fraction=True),
            p(q.open), p(q.day_high), p(q.day_low), p(q.fifty_two_week_high),
            p(q.fifty_two_week_low), q.volume, q.average_volume, fmt.compact(q.market_cap),
            fmt.fixed(q.beta), fmt.fixed(q.trailing_pe), fmt.fixed(q.trailing_eps),
            fmt.fixed(q.dividend_rate),
            unsigned(q.yield_value if q.dividend_yield is None else q.dividend_yield),
            fmt.long_date(q.ex_dividend_date), fmt.compact(q.total_assets), p(q.nav_price),
            unsigned(q.expense_ratio), q.category, fmt.fixed(q.last_cap_gain),
            "★" * rating if rating is not None and rating > 0 else None,
            _RISK_RATINGS.get(risk) if risk is not None else None,
            unsigned(q.holdings_turnover),
            " - ".join(d for d in map(fmt.long_date, q.earnings_dates) if d) or None,
            fmt.fixed(q.last_dividend_value), fmt.long_date(q.fund_inception_date), q.sector,
            q.industry, q.long_business_summary,
            str(q.full_time_employees) if q.full_time_employees is not None else None,
            unsigned(returns.five_days), unsigned(returns.one_month),
            unsigned(returns.three_month), unsigned(returns.six_month), unsigned(returns.ytd),
            unsigned(returns.one_year), unsigned(returns.three_year),
            unsigned(returns.five_year), unsigned(returns.ten_year),
            unsigned(returns.max_period))

    @classmethod
    def of(cls, q: FullQuote) -> Quote:
        return cls(*cls.values(q))


_QUOTE = member_names(Quote)


def full_quote_json(q: FullQuote) -> dict[str, Any]:
    """``as_json(Quote.of(q))``, written at once as :func:`simple_quote_json` writes a simple
    quote's."""
    return {name: value for name, value in zip(_QUOTE, Quote.values(q), strict=False)
            if value is not None}


def full_quotes(symbols: list[str]) -> list[dict[str, Any]]:
    """The JSON of the full quotes (:func:`full_quote_json`) in request order, fetched
    concurrently (one round trip for all).

    Unknown symbols are left out (404 when none resolve). An upstream failure is raised
    when no symbol could be served, so the client sees 502/503/504 rather than a 404.
    """
    fetched = gather_partial(quotes.full_quote, _valid(symbols), what="quote")
    fetched.raise_if_empty(lambda: no_quotes_found(symbols))
    return [full_quote_json(record) for _, record in fetched.values]


# -- v2 quotes ----------------------------------------------------------------------------------
SYMBOL_NOT_FOUND = "Symbol not found"


@dataclass(frozen=True)
class QuotesBatch(Batch):
    """The v2 batch: the quotes served, in request order, then the symbols not served."""

    items: list[GqlQuote] = member(name="quotes")


# (JSON name, attribute) of every GqlQuote member, in its order.
_QUOTE_MEMBERS = tuple((m.name, m.attribute) for m in members_of(GqlQuote))


def quote_json(answer: Any, value_format: str) -> Any:
    """A v2 quote answer's JSON, numbers in the client's ``format`` (raw|pretty|both): a
    :class:`GqlQuote`, a list of them or a record holding them (the batch) as
    :func:`~marketdata.records.members.as_json` writes them, but in one walk: each quote's
    members, in order, each value presented once (:func:`present_value` copies what it
    walks; as_json's own walk of the module bodies would be a second copy)."""
    if isinstance(answer, GqlQuote):
        return {name: present_value(getattr(answer, attribute), value_format)
                for name, attribute in _QUOTE_MEMBERS}
    if isinstance(answer, list):
        return [quote_json(item, value_format) for item in answer]
    if is_record(answer):
        return {m.name: quote_json(getattr(answer, m.attribute), value_format)
                for m in members_of(type(answer))}
    return answer


def _logos_or_nothing(symbols: list[str]) -> dict[str, LogoUrls]:
    """The logo lookup; a failure is logged and means "no logos", never an error."""
    try:
        return quotes.logos(symbols)
    except MarketDataError as exc:
        log.warning("logo lookup failed", symbols=",".join(symbols[:10]), reason=exc.detail,
                    error=type(exc).__name__)
        return {}


def _with_logos(fetch: Callable[[], T], symbols: list[str],
                logo: bool) -> tuple[T, dict[str, LogoUrls] | None]:
    """``fetch()`` and, with ``logo``, the logo lookup running concurrently with it (two
    upstream round trips in the time of one). ``fetch``'s errors propagate."""
    if not logo:
        return fetch(), None
    main, logos = run_parallel(lambda call: call(), [fetch, lambda: _logos_or_nothing(symbols)])
    if isinstance(main, BaseException):
        raise main
    if isinstance(logos, BaseException):  # a bug in the logo path: never fail the quote
        log.error("logo lookup crashed", error=type(logos).__name__)
        logos = {}
    return main, logos


def _apply_logos(quote: GqlQuote, symbol: str | None,
                 logos: dict[str, LogoUrls] | None) -> GqlQuote:
    """``quote`` with the logos looked up for ``symbol`` (when they were)."""
    if logos is None:
        return quote
    found = logos.get(symbol) if symbol is not None else None
    return quote.with_logos(found.logo_url if found else None,
                            found.company_logo_url if found else None)


def v2_quote(symbol_text: str, *, lang: str | None, logo: bool) -> GqlQuote:
    """The full v2 quote of one symbol (one quoteSummary call, plus the logo lookup in
    parallel when asked). A malformed symbol is a 404 without an upstream call."""
    symbol = require_symbol(symbol_text)
    region = region_of(lang)
    quote, logos = _with_logos(lambda: quotes.v2_quote(symbol, lang=lang, region=region),
                               [symbol], logo)
    return _apply_logos(quote, quote.symbol, logos)


def v2_quotes(symbols: list[str], *, lang: str | None, logo: bool) -> QuotesBatch:
    """Batch v2 quotes in request order (one v7 call for all, plus one logo call in
    parallel when asked) and ``[{symbol, message}]`` for the symbols not served: malformed
    ones (never sent upstream) and the ones Yahoo does not return. An upstream failure
    fails the whole batch (it is one call): its status is the answer."""
    canonical = [(text, normalize_symbol(text)) for text in symbols]
    valid = list(dict.fromkeys(s for _, s in canonical if s is not None))
    region = region_of(lang)
    found: dict[str, GqlQuote] = {}
    logos: dict[str, LogoUrls] | None = None
    if valid:
        found, logos = _with_logos(lambda: quotes.v2_quotes(valid, lang=lang, region=region),
                                   valid, logo)
    served: list[GqlQuote] = []
    errors: list[dict[str, str]] = []
    for text, symbol in canonical:
        quote = found.get(symbol) if symbol is not None else None
        if quote is None:
            errors.append({"symbol": display_symbol(symbol or text),
                           "message": SYMBOL_NOT_FOUND})
        else:
            served.append(_apply_logos(quote, symbol, logos))
    return QuotesBatch(served, errors)


def v2_quote_type(symbol_text: str) -> QuoteTypeRecord:
    """GqlQuoteTypeData of one symbol (module quoteType)."""
    return quotes.quote_type(require_symbol(symbol_text))
