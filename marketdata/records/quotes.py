"""Quotes: the records of every quote endpoint (v1 simple and full quotes, the v2 GqlQuote,
its quote type and logos, currency pairs, futures contracts) and the GqlQuote vocabulary.

A v2 quote keeps its values as the source sent them: a number is a bare scalar or a
``{raw, fmt, longFmt}`` object (the source's own display strings), so the ``format`` a
client asks for is applied after the cache (:func:`present_value`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from marketdata.formatting import raw
from marketdata.records.members import member

# -- the GqlQuote members -------------------------------------------------------------------
NUMBER, STRING, BOOLEAN, OBJECT = "number", "string", "boolean", "object"

_NUMBERS = (
    "allTimeHigh", "allTimeLow", "ask", "askSize", "auditRisk", "averageVolume", "beta", "bid",
    "bidSize", "boardRisk", "bookValue", "compensationRisk", "currentPrice", "currentRatio",
    "dateShortInterest", "dayHigh", "dayLow", "debtToEquity", "dividendRate", "dividendYield",
    "earningsGrowth", "earningsQuarterlyGrowth", "ebitdaMargins", "enterpriseToEbitda",
    "enterpriseToRevenue", "enterpriseValue", "exDividendDate", "exchangeDataDelayedBy",
    "fiftyDayAverage", "fiftyTwoWeekHigh", "fiftyTwoWeekLow", "firstTradeDateEpochUtc",
    "fiveYearAvgDividendYield", "floatShares", "forwardEps", "forwardPe", "freeCashflow",
    "fullTimeEmployees", "gmtOffSetMilliseconds", "grossMargins", "grossProfits",
    "heldPercentInsiders", "heldPercentInstitutions", "impliedSharesOutstanding",
    "lastDividendDate", "lastDividendValue", "lastFiscalYearEnd", "lastSplitDate", "marketCap",
    "mostRecentQuarter", "navPrice", "netIncomeToCommon", "nextFiscalYearEnd",
    "numberOfAnalystOpinions", "open", "operatingCashflow", "operatingMargins", "overallRisk",
    "payoutRatio", "postMarketChange", "postMarketChangePercent", "postMarketPrice",
    "postMarketTime", "preMarketChange", "preMarketChangePercent", "preMarketPrice",
    "preMarketTime", "previousClose", "priceHint", "priceToBook", "profitMargins", "quickRatio",
    "recommendationMean", "regularMarketChange", "regularMarketChangePercent",
    "regularMarketDayHigh", "regularMarketDayLow", "regularMarketOpen",
    "regularMarketPreviousClose", "regularMarketPrice", "regularMarketTime",
    "regularMarketVolume", "returnOnAssets", "returnOnEquity", "revenueGrowth",
    "revenuePerShare", "benchmark52WeekChange", "shareholderRightsRisk", "sharesOutstanding",
    "sharesPercentSharesOut", "sharesShort", "sharesShortPriorMonth", "shortPercentOfFloat",
    "shortRatio", "targetHighPrice", "targetLowPrice", "targetMeanPrice", "targetMedianPrice",
    "totalAssets", "totalDebt", "totalRevenue", "trailingAnnualDividendRate",
    "trailingAnnualDividendYield", "trailingEps", "trailingPe", "twoHundredDayAverage",
    "volume", "week52Change", "yieldValue",
)
_STRINGS = (
    "category", "city", "companyLogoUrl", "country", "currency", "currencySymbol", "exchange",
    "exchangeName", "financialCurrency", "fromCurrency", "fundFamily", "industry",
    "industryDisp", "industryKey", "irWebsite", "lastSplitFactor", "logoUrl",
    "longBusinessSummary", "longName", "marketState", "phone", "quoteType",
    "recommendationKey", "sector", "sectorDisp", "sectorKey", "shortName", "state", "symbol",
    "timeZoneFullName", "timeZoneShortName", "toCurrency", "underlyingSymbol", "website", "zip",
)
_BOOLEANS = ("tradeable",)
# Objects: module bodies, and companyOfficers (a list of officers).
_OBJECTS = (
    "companyOfficers", "balanceSheetHistory", "balanceSheetHistoryQuarterly", "calendarEvents",
    "cashflowStatementHistory", "cashflowStatementHistoryQuarterly", "earnings",
    "earningsHistory", "earningsTrend", "equityPerformance", "fundOwnership", "fundPerformance",
    "fundProfile", "incomeStatementHistory", "incomeStatementHistoryQuarterly", "indexTrend",
    "industryTrend", "insiderHolders", "insiderTransactions", "institutionOwnership",
    "majorHoldersBreakdown", "netSharePurchaseActivity", "recommendationTrend", "secFilings",
    "sectorTrend", "topHoldings", "upgradeDowngradeHistory",
)

# GqlQuote member -> kind, in the spec's order of kinds (numbers, strings, boolean, objects).
QUOTE_MEMBERS: dict[str, str] = {
    **dict.fromkeys(_NUMBERS, NUMBER), **dict.fromkeys(_STRINGS, STRING),
    **dict.fromkeys(_BOOLEANS, BOOLEAN), **dict.fromkeys(_OBJECTS, OBJECT)}

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
@dataclass(frozen=True)
class GqlQuoteRecord:
    """One v2 quote: every GqlQuote member (:data:`QUOTE_MEMBERS`), None where the source has
    no usable value. Numbers keep the source's form (bare, or ``{raw, fmt, longFmt}``) so
    :func:`present_value` can give the client the form it asked for."""

    symbol: str
    values: dict[str, Any]

    def with_logos(self, logo_url: str | None, company_logo_url: str | None) -> GqlQuoteRecord:
        """The record with the logo members of a separate logo lookup."""
        return GqlQuoteRecord(self.symbol, {**self.values, "logoUrl": logo_url,
                                            "companyLogoUrl": company_logo_url})


_FORMATTED_KEYS = frozenset({"raw", "fmt", "longFmt"})


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
    if is_formatted(value):
        if value_format == "both":
            return {k: value[k] for k in ("raw", "fmt", "longFmt") if k in value}
        if value_format == "pretty":
            return value.get("fmt") if value.get("fmt") is not None else value.get("longFmt")
        return raw(value)
    if isinstance(value, dict):
        return {k: present_value(v, value_format) for k, v in value.items()}
    if isinstance(value, list):
        return [present_value(v, value_format) for v in value]
    return value


@dataclass(frozen=True)
class QuoteTypeRecord:
    """The instrument's identity (GqlQuoteTypeData)."""

    symbol: str | None
    exchange: str | None
    long_name: str | None
    short_name: str | None
    quote_type: str | None
    message_board_id: str | None
    time_zone_full_name: str | None
    time_zone_short_name: str | None
    underlying_symbol: str | None
    uuid: str | None
    first_trade_date_epoch_utc: int | None  # seconds
    gmt_off_set_milliseconds: int | None
    max_age: int | None


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
