"""Quotes: the records of every quote endpoint (v1 simple and full quotes, the v2 GqlQuote,
its quote type and logos, currency pairs, futures contracts) and the GqlQuote vocabulary.

A v2 quote keeps its values as the source sent them: a number is a bare scalar or a
``{raw, fmt, longFmt}`` object (the source's own display strings), so the ``format`` a
client asks for is applied after the cache (:func:`present_value`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from marketdata.formatting import raw
from marketdata.records.market import formatted_number
from marketdata.records.members import member, members_of

# -- the GqlQuote members' kinds ----------------------------------------------------------------
# What a member's value is (QUOTE_MEMBERS, read off GqlQuote): the providers keep a value only
# when it is of its member's kind.
NUMBER, STRING, BOOLEAN, OBJECT = "number", "string", "boolean", "object"

# Our name of each period return (v1's member names, and the keys of an index snapshot's
# returns) per PeriodReturns member.
RETURN_NAMES = (
    ("fiveDaysReturn", "five_days"), ("oneMonthReturn", "one_month"),
    ("threeMonthReturn", "three_month"), ("sixMonthReturn", "six_month"),
    ("ytdReturn", "ytd"), ("yearReturn", "one_year"), ("threeYearReturn", "three_year"),
    ("fiveYearReturn", "five_year"), ("tenYearReturn", "ten_year"), ("maxReturn", "max_period"),
)


# The live tick (the WebSocket stream's frame, Yahoo's streamer PricingData): its members in
# the streamer's tag order (tag = position + 1), and how Yahoo's v7 quote vocabulary maps to
# the streamer's enum names. One place for the stream, the streamer's decoder and the
# sandbox's encoder.
TICK_MEMBERS = (
    "id", "price", "time", "currency", "exchange", "quoteType", "marketHours",
    "changePercent", "dayVolume", "dayHigh", "dayLow", "change", "shortName", "expireDate",
    "openPrice", "previousClose", "strikePrice", "underlyingSymbol", "openInterest",
    "optionsType", "miniOption", "lastSize", "bid", "bidSize", "ask", "askSize", "priceHint",
    "vol24hr", "volAllCurrencies", "fromCurrency", "lastMarket", "circulatingSupply",
    "marketCap")
# Each member's kind on the streamer's wire (PricingData), in TICK_MEMBERS' order: "string"
# and "enum" are text in a tick, "float" and "double" numbers, "sint" whole numbers.
TICK_KINDS = ("string", "float", "sint", "string", "string", "enum", "enum", "float", "sint",
              "float", "float", "float", "string", "sint", "float", "float", "float", "string",
              "sint", "enum", "sint", "sint", "float", "sint", "float", "sint", "sint", "sint",
              "sint", "string", "string", "double", "double")
# v7 quoteType -> the streamer's name, where they differ.
TICK_QUOTE_TYPES = {"MUTUALFUND": "MUTUAL_FUND", "MONEYMARKET": "MONEY_MARKET",
                    "ECNQUOTE": "ECN_QUOTE", "ALTSYMBOL": "ALT_SYMBOL"}
# v7 marketState -> the streamer's marketHours; a closed market has none.
TICK_MARKET_HOURS = {"PRE": "PRE_MARKET", "REGULAR": "REGULAR_MARKET", "POST": "POST_MARKET",
                     "POSTPOST": "POST_MARKET", "PREPRE": "EXTENDED_HOURS_MARKET"}


def tick_quote_type(quote_type: str | None) -> str | None:
    """A v7 quoteType as the streamer names it."""
    upper = (quote_type or "").upper()
    return TICK_QUOTE_TYPES.get(upper, upper) if upper else None


# -- v1 simple quotes ---------------------------------------------------------------------------
@dataclass
class QuoteSnapshot:
    """What the simple quote shapes use (raw numbers; percents in percent units)."""

    symbol: str
    name: str | None
    quote_type: str | None
    currency: str | None
    price_hint: int
    market_state: str | None
    price: float | None
    change: float | None
    change_percent: float | None
    previous_close: float | None
    open: float | None
    day_high: float | None
    day_low: float | None
    volume: int | None
    market_time: int | None
    pre_market_price: float | None
    pre_market_time: int | None
    post_market_price: float | None
    post_market_time: int | None

    @property
    def pre_market_current(self) -> bool:
        """Pre-market trade newer than the last regular-session trade."""
        return (self.pre_market_price is not None and self.pre_market_time is not None
                and self.pre_market_time > (self.market_time or 0))

    @property
    def post_market_current(self) -> bool:
        return (self.post_market_price is not None and self.post_market_time is not None
                and self.post_market_time > (self.market_time or 0))


# -- v1 full quotes -----------------------------------------------------------------------------
@dataclass(frozen=True)
class PeriodReturns:
    """Unadjusted total returns over trailing periods, as fractions (0.05 is 5%)."""

    five_days: float | None = None
    one_month: float | None = None
    three_month: float | None = None
    six_month: float | None = None
    ytd: float | None = None
    one_year: float | None = None
    three_year: float | None = None
    five_year: float | None = None
    ten_year: float | None = None
    max_period: float | None = None  # since the first recorded price


@dataclass(frozen=True)
class FullQuote:
    """One instrument's quote, profile and key statistics (raw typed values)."""

    symbol: str
    # identity
    long_name: str | None = None
    short_name: str | None = None
    quote_type: str | None = None  # EQUITY, ETF, MUTUALFUND, INDEX, CURRENCY, ...
    exchange: str | None = None
    exchange_name: str | None = None
    exchange_data_delayed_by: int | None = None  # minutes
    currency: str | None = None
    currency_symbol: str | None = None
    market_state: str | None = None  # PRE, REGULAR, POST, CLOSED, ...
    price_hint: int = 2  # the instrument's decimals: 2 for stocks, 4 for FX
    # regular session
    regular_market_price: float | None = None
    regular_market_change: float | None = None
    regular_market_change_percent: float | None = None  # fraction: -0.0011 is -0.11%
    regular_market_time: datetime | None = None
    previous_close: float | None = None
    open: float | None = None
    day_high: float | None = None
    day_low: float | None = None
    volume: int | None = None
    average_volume: int | None = None  # three months
    # extended hours
    pre_market_price: float | None = None
    pre_market_change: float | None = None
    pre_market_change_percent: float | None = None  # fraction
    pre_market_time: datetime | None = None
    post_market_price: float | None = None
    post_market_change: float | None = None
    post_market_change_percent: float | None = None  # fraction
    post_market_time: datetime | None = None
    # order book and ranges
    bid: float | None = None
    ask: float | None = None
    bid_size: int | None = None
    ask_size: int | None = None
    fifty_two_week_high: float | None = None
    fifty_two_week_low: float | None = None
    fifty_day_average: float | None = None
    two_hundred_day_average: float | None = None
    # valuation and per-share figures
    market_cap: float | None = None
    enterprise_value: float | None = None
    shares_outstanding: int | None = None
    float_shares: int | None = None
    beta: float | None = None
    trailing_pe: float | None = None
    forward_pe: float | None = None
    trailing_eps: float | None = None
    forward_eps: float | None = None
    book_value: float | None = None
    price_to_book: float | None = None
    week52_change: float | None = None  # fraction
    # dividends (yields and ratios are fractions)
    dividend_rate: float | None = None
    dividend_yield: float | None = None  # stocks
    yield_value: float | None = None  # funds' distribution yield
    ex_dividend_date: datetime | None = None
    payout_ratio: float | None = None
    trailing_annual_dividend_rate: float | None = None
    trailing_annual_dividend_yield: float | None = None
    last_dividend_value: float | None = None
    last_dividend_date: datetime | None = None
    earnings_dates: tuple[datetime, ...] = ()  # the next report's window (one or two dates)
    # funds
    total_assets: float | None = None
    nav_price: float | None = None
    expense_ratio: float | None = None  # fraction
    holdings_turnover: float | None = None  # fraction
    category: str | None = None
    fund_family: str | None = None
    last_cap_gain: float | None = None
    morningstar_rating: int | None = None  # 1-5 stars
    morningstar_risk_rating: int | None = None  # 1 below average .. 4 high
    fund_inception_date: datetime | None = None
    # profile
    sector: str | None = None
    sector_key: str | None = None
    industry: str | None = None
    industry_key: str | None = None
    long_business_summary: str | None = None
    full_time_employees: int | None = None
    website: str | None = None
    city: str | None = None
    state: str | None = None
    country: str | None = None
    returns: PeriodReturns = field(default_factory=PeriodReturns)

    @property
    def pre_market_current(self) -> bool:
        """A pre-market trade newer than the last regular-session trade."""
        return _newer(self.pre_market_time, self.regular_market_time)

    @property
    def post_market_current(self) -> bool:
        """An after-hours trade newer than the last regular-session trade."""
        return _newer(self.post_market_time, self.regular_market_time)


def _newer(moment: datetime | None, than: datetime | None) -> bool:
    return moment is not None and (than is None or moment > than)


# -- v2 quotes ----------------------------------------------------------------------------------
_MODULE = "Yahoo's module body as sent (free-form); its numbers follow `format` too"
_OFFICERS = ("Yahoo's list of the company's officers as sent (free-form); its numbers follow "
             "`format` too")
# ``items``: an array without one is no schema to a code generator (the whole answer was
# dropped from generated clients).
_MODULE_SCHEMA: dict[str, Any] = {"type": ["object", "array", "null"], "items": {}}


@dataclass(frozen=True)
class GqlQuote:
    """One v2 quote, the spec's GqlQuote: every member None where the source has no usable
    value (Yahoo does not carry it for the instrument, or the batch source not at all).
    Numbers keep the source's form (bare, or ``{raw, fmt, longFmt}``) and so do the module
    bodies, so :func:`present_value` can give the client the form it asked for after the
    cache. The members come in the spec's order of kinds: numbers, texts, the flag, the
    module bodies (:data:`QUOTE_MEMBERS` reads the kinds off the schemas)."""

    # numbers
    all_time_high: Any = formatted_number()
    all_time_low: Any = formatted_number()
    ask: Any = formatted_number()
    ask_size: Any = formatted_number()
    audit_risk: Any = formatted_number()
    average_volume: Any = formatted_number()
    beta: Any = formatted_number()
    bid: Any = formatted_number()
    bid_size: Any = formatted_number()
    board_risk: Any = formatted_number()
    book_value: Any = formatted_number()
    compensation_risk: Any = formatted_number()
    current_price: Any = formatted_number()
    current_ratio: Any = formatted_number()
    date_short_interest: Any = formatted_number("Unix seconds (raw)")
    day_high: Any = formatted_number()
    day_low: Any = formatted_number()
    debt_to_equity: Any = formatted_number()
    dividend_rate: Any = formatted_number()
    dividend_yield: Any = formatted_number()
    earnings_growth: Any = formatted_number()
    earnings_quarterly_growth: Any = formatted_number()
    ebitda_margins: Any = formatted_number()
    enterprise_to_ebitda: Any = formatted_number()
    enterprise_to_revenue: Any = formatted_number()
    enterprise_value: Any = formatted_number()
    ex_dividend_date: Any = formatted_number("Unix seconds (raw)")
    exchange_data_delayed_by: Any = formatted_number("Minutes (raw)")
    fifty_day_average: Any = formatted_number()
    fifty_two_week_high: Any = formatted_number()
    fifty_two_week_low: Any = formatted_number()
    first_trade_date_epoch_utc: Any = formatted_number("Unix seconds (raw)")
    five_year_avg_dividend_yield: Any = formatted_number()
    float_shares: Any = formatted_number()
    forward_eps: Any = formatted_number()
    forward_pe: Any = formatted_number()
    free_cashflow: Any = formatted_number()
    full_time_employees: Any = formatted_number()
    gmt_off_set_milliseconds: Any = formatted_number("Milliseconds (raw)")
    gross_margins: Any = formatted_number()
    gross_profits: Any = formatted_number()
    held_percent_insiders: Any = formatted_number()
    held_percent_institutions: Any = formatted_number()
    implied_shares_outstanding: Any = formatted_number()
    last_dividend_date: Any = formatted_number("Unix seconds (raw)")
    last_dividend_value: Any = formatted_number()
    last_fiscal_year_end: Any = formatted_number("Unix seconds (raw)")
    last_split_date: Any = formatted_number("Unix seconds (raw)")
    market_cap: Any = formatted_number()
    most_recent_quarter: Any = formatted_number("Unix seconds (raw)")
    nav_price: Any = formatted_number()
    net_income_to_common: Any = formatted_number()
    next_fiscal_year_end: Any = formatted_number("Unix seconds (raw)")
    number_of_analyst_opinions: Any = formatted_number()
    open: Any = formatted_number()
    operating_cashflow: Any = formatted_number()
    operating_margins: Any = formatted_number()
    overall_risk: Any = formatted_number()
    payout_ratio: Any = formatted_number()
    post_market_change: Any = formatted_number()
    post_market_change_percent: Any = formatted_number()
    post_market_price: Any = formatted_number()
    post_market_time: Any = formatted_number("Unix seconds (raw)")
    pre_market_change: Any = formatted_number()
    pre_market_change_percent: Any = formatted_number()
    pre_market_price: Any = formatted_number()
    pre_market_time: Any = formatted_number("Unix seconds (raw)")
    previous_close: Any = formatted_number()
    price_hint: Any = formatted_number()
    price_to_book: Any = formatted_number()
    profit_margins: Any = formatted_number()
    quick_ratio: Any = formatted_number()
    recommendation_mean: Any = formatted_number()
    regular_market_change: Any = formatted_number()
    regular_market_change_percent: Any = formatted_number()
    regular_market_day_high: Any = formatted_number()
    regular_market_day_low: Any = formatted_number()
    regular_market_open: Any = formatted_number()
    regular_market_previous_close: Any = formatted_number()
    regular_market_price: Any = formatted_number()
    regular_market_time: Any = formatted_number("Unix seconds (raw)")
    regular_market_volume: Any = formatted_number()
    return_on_assets: Any = formatted_number()
    return_on_equity: Any = formatted_number()
    revenue_growth: Any = formatted_number()
    revenue_per_share: Any = formatted_number()
    benchmark52_week_change: Any = formatted_number()
    shareholder_rights_risk: Any = formatted_number()
    shares_outstanding: Any = formatted_number()
    shares_percent_shares_out: Any = formatted_number()
    shares_short: Any = formatted_number()
    shares_short_prior_month: Any = formatted_number()
    short_percent_of_float: Any = formatted_number()
    short_ratio: Any = formatted_number()
    target_high_price: Any = formatted_number()
    target_low_price: Any = formatted_number()
    target_mean_price: Any = formatted_number()
    target_median_price: Any = formatted_number()
    total_assets: Any = formatted_number()
    total_debt: Any = formatted_number()
    total_revenue: Any = formatted_number()
    trailing_annual_dividend_rate: Any = formatted_number()
    trailing_annual_dividend_yield: Any = formatted_number()
    trailing_eps: Any = formatted_number()
    trailing_pe: Any = formatted_number()
    two_hundred_day_average: Any = formatted_number()
    volume: Any = formatted_number()
    week52_change: Any = formatted_number()
    yield_value: Any = formatted_number()
    # texts
    category: str | None = member()
    city: str | None = member()
    company_logo_url: str | None = member()
    country: str | None = member()
    currency: str | None = member()
    currency_symbol: str | None = member()
    exchange: str | None = member()
    exchange_name: str | None = member()
    financial_currency: str | None = member()
    from_currency: str | None = member()
    fund_family: str | None = member()
    industry: str | None = member()
    industry_disp: str | None = member()
    industry_key: str | None = member()
    ir_website: str | None = member()
    last_split_factor: str | None = member()
    logo_url: str | None = member()
    long_business_summary: str | None = member()
    long_name: str | None = member()
    market_state: str | None = member()
    phone: str | None = member()
    quote_type: str | None = member()
    recommendation_key: str | None = member()
    sector: str | None = member()
    sector_disp: str | None = member()
    sector_key: str | None = member()
    short_name: str | None = member()
    state: str | None = member()
    symbol: str | None = member()
    time_zone_full_name: str | None = member()
    time_zone_short_name: str | None = member()
    to_currency: str | None = member()
    underlying_symbol: str | None = member()
    website: str | None = member()
    zip: str | None = member()
    # flags
    tradeable: bool | None = member()
    # Yahoo's module bodies (and companyOfficers, a list), as sent
    company_officers: Any = member(_OFFICERS, schema=_MODULE_SCHEMA)
    balance_sheet_history: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    balance_sheet_history_quarterly: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    calendar_events: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    cashflow_statement_history: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    cashflow_statement_history_quarterly: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    earnings: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    earnings_history: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    earnings_trend: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    equity_performance: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    fund_ownership: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    fund_performance: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    fund_profile: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    income_statement_history: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    income_statement_history_quarterly: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    index_trend: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    industry_trend: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    insider_holders: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    insider_transactions: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    institution_ownership: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    major_holders_breakdown: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    net_share_purchase_activity: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    recommendation_trend: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    sec_filings: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    sector_trend: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    top_holdings: Any = member(_MODULE, schema=_MODULE_SCHEMA)
    upgrade_downgrade_history: Any = member(_MODULE, schema=_MODULE_SCHEMA)

    def with_logos(self, logo_url: str | None, company_logo_url: str | None) -> GqlQuote:
        """The quote with the logo members of a separate logo lookup."""
        return replace(self, logo_url=logo_url, company_logo_url=company_logo_url)


# GqlQuote member -> its kind (NUMBER, STRING, BOOLEAN, OBJECT: the first type of its
# schema), in the record's order.
QUOTE_MEMBERS: dict[str, str] = {m.name: m.schema["type"][0] for m in members_of(GqlQuote)}
# GqlQuote member -> its attribute: a provider reads each member by its name and fills the
# quote by attribute (``GqlQuote(**values)``: about half the time of ``from_members``, and
# a single quote is parsed from the cached modules on every request).
QUOTE_ATTRIBUTES: dict[str, str] = {m.name: m.attribute for m in members_of(GqlQuote)}


_FORMATTED_KEYS = frozenset({"raw", "fmt", "longFmt"})
_WALKED = (dict, list)


def is_formatted(value: Any) -> bool:
    """A formatted number: an object with ``raw`` and nothing but raw/fmt/longFmt."""
    return isinstance(value, dict) and "raw" in value and value.keys() <= _FORMATTED_KEYS


def present_value(value: Any, value_format: str) -> Any:
    """Number objects in the form a v2 client asked for, recursively.

    ``raw``: the raw scalar (or None); ``pretty``: ``fmt``, else ``longFmt``, else None;
    ``both``: the object as sent (keys the source left out stay out). Anything that is not a
    number object (bare numbers, strings, other objects) keeps its form; objects and lists
    are walked.
    """
    if isinstance(value, dict):
        if "raw" in value and value.keys() <= _FORMATTED_KEYS:  # is_formatted, inlined
            if value_format == "both":
                return {k: value[k] for k in ("raw", "fmt", "longFmt") if k in value}
            if value_format == "pretty":
                return value.get("fmt") if value.get("fmt") is not None \
                    else value.get("longFmt")
            return raw(value)
        # Scalars are kept without a call: module bodies hold thousands of them, and this
        # runs per request over every member of a quote.
        return {k: present_value(v, value_format) if isinstance(v, _WALKED) else v
                for k, v in value.items()}
    if isinstance(value, list):
        return [present_value(v, value_format) if isinstance(v, _WALKED) else v
                for v in value]
    return value


@dataclass(frozen=True)
class QuoteTypeRecord:
    """The instrument's identity from Yahoo's quoteType module (GqlQuoteTypeData), None
    where Yahoo sends no usable value."""

    symbol: str | None = member()
    exchange: str | None = member("Yahoo's exchange code, e.g. `NMS`")
    long_name: str | None = member()
    short_name: str | None = member()
    quote_type: str | None = member("EQUITY, ETF, MUTUALFUND, INDEX, CURRENCY, ...")
    message_board_id: str | None = member()
    time_zone_full_name: str | None = member("The exchange's IANA time zone, e.g. "
                                             "`America/New_York`")
    time_zone_short_name: str | None = member("Its abbreviation, e.g. `EST`")
    underlying_symbol: str | None = member()
    uuid: str | None = member()
    first_trade_date_epoch_utc: int | None = member("The first trade's day, Unix seconds")
    gmt_off_set_milliseconds: int | None = member("The exchange's offset from GMT, "
                                                  "milliseconds")
    max_age: int | None = member()


@dataclass(frozen=True)
class LogoUrls:
    """50x50 logo images of one instrument (either may be missing)."""

    logo_url: str | None
    company_logo_url: str | None


# -- currency pairs and futures -----------------------------------------------------------------
@dataclass(frozen=True)
class ForexQuote:
    """A currency pair, whichever source served it: units of ``quote`` per unit of ``base``
    (``symbol`` is ``{BASE}{QUOTE}``, made from them).

    A live source fills ``bid``/``ask`` (None when it has no book); a reference rate has
    neither. ``change`` is against the previous close or fix, ``change_percent`` in percent
    units (0.5 is 0.5%), ``timestamp`` Unix seconds. The members are the spec's
    GqlForexQuote."""

    symbol: str = member("`{FROM}{TO}`, e.g. `EURUSD` (no `=X`)", init=False)
    base: str = member("ISO 4217 code of `from`, upper case", name="baseCurrency")
    quote: str = member("ISO 4217 code of `to`, upper case", name="quoteCurrency")
    price: float = member("Units of `to` per unit of `from`")
    bid: float | None = member("Yahoo's bid; null from the ECB reference rate or when Yahoo "
                               "has no book")
    ask: float | None = member("Yahoo's ask; null from the ECB reference rate or when Yahoo "
                               "has no book")
    change: float | None = member("Against the previous close (Yahoo) or the previous fix "
                                  "(ECB)")
    change_percent: float | None = member("Percent units: 0.5 is 0.5%")
    timestamp: int | None = member("Unix seconds: Yahoo's regularMarketTime, or the fix date "
                                   "at 00:00 UTC")

    def __post_init__(self) -> None:
        object.__setattr__(self, "symbol", f"{self.base}{self.quote}")


@dataclass(frozen=True)
class FuturesQuote:
    """One futures contract: ``underlying`` is the dated contract a continuous symbol stands
    for now, ``expiration_date`` its expiration (``YYYY-MM-DD``, UTC); ``change_percent`` in
    percent units; ``open_interest`` and ``volume`` in contracts; ``timestamp`` Unix
    seconds of the last trade. The members are the spec's GqlFuturesQuote."""

    symbol: str = member("Yahoo's symbol, e.g. `GC=F`")
    name: str | None = member("Yahoo's long name, else its short name (`Gold Apr 25`)")
    exchange: str | None = member("Yahoo's exchange code, e.g. `CMX`")
    underlying: str | None = member("The contract the continuous symbol stands for now, e.g. "
                                    "`GCJ25.CMX` (Yahoo's underlyingSymbol)")
    expiration_date: str | None = member("Expiration of that contract, `YYYY-MM-DD` (UTC)",
                                         schema={"format": "date"})
    price: float | None = member()
    change: float | None = member("Against the previous settlement/close")
    change_percent: float | None = member("Percent units: 0.33 is 0.33%")
    open_interest: int | None = member("Contracts open (Yahoo's openInterest)")
    volume: int | None = member("Contracts traded in the session")
    timestamp: int | None = member("Unix seconds of the last trade (regularMarketTime)")
