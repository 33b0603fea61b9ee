"""The full quote: one quoteSummary call (:data:`QUOTE_MODULES`) parsed into a typed record.

Yahoo's module keys are read here and nowhere else; the v1 presenter formats the record into
strings, v2 presents its raw values. Numbers arrive bare (``formatted=false``) or as
``{raw, fmt}`` objects; both read the same. A value Yahoo leaves out, sends as ``{}`` or as
NaN is None. Where two modules carry the same value (the session's open in ``summaryDetail``
and ``price``, ``beta`` in ``summaryDetail`` and ``defaultKeyStatistics``), the first
present one wins, a real 0 counting as present. Fractions stay fractions (0.0041 is 0.41%),
dates and times are aware UTC datetimes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from marketdata.formatting import integer, mapping, number, text, utc_datetime
from marketdata.providers.yahoo.quote_summary import QUOTE_MODULES, fetch_quote_summary

# Our name of each period return (v1's member names, and the keys of an index snapshot's
# returns) per PeriodReturns member.
RETURN_NAMES = (
    ("fiveDaysReturn", "five_days"), ("oneMonthReturn", "one_month"),
    ("threeMonthReturn", "three_month"), ("sixMonthReturn", "six_month"),
    ("ytdReturn", "ytd"), ("yearReturn", "one_year"), ("threeYearReturn", "three_year"),
    ("fiveYearReturn", "five_year"), ("tenYearReturn", "ten_year"), ("maxReturn", "max_period"),
)

# quoteUnadjustedPerformanceOverview.performanceOverview key per PeriodReturns member.
_RETURN_SOURCES = (
    ("five_days", "fiveDaysReturn"), ("one_month", "oneMonthReturn"),
    ("three_month", "threeMonthReturn"), ("six_month", "sixMonthReturn"),
    ("ytd", "ytdReturnPct"), ("one_year", "oneYearTotalReturn"),
    ("three_year", "threeYearTotalReturn"), ("five_year", "fiveYearTotalReturn"),
    ("ten_year", "tenYearTotalReturn"), ("max_period", "maxReturn"),
)

# A category or similar label passes through as sent ("" stays "").
_as_sent = partial(text, clean=False)


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
    # identity (price)
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
    yield_value: float | None = None  # funds' distribution yield (Yahoo's `yield`)
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
    # profile (assetProfile)
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
    # quoteUnadjustedPerformanceOverview
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


def _string(value: Any) -> str | None:
    """A string as sent; blank or not a string gives None."""
    return value if isinstance(value, str) and value else None


def _first(read: Callable[[Any], Any], *sources: tuple[dict[str, Any], str]) -> Any:
    """The first value ``read`` makes something of among (module, key) pairs."""
    for module, key in sources:
        value = read(module.get(key))
        if value is not None:
            return value
    return None


def _whole(value: Any) -> int | None:
    """A count or a rating: the whole part of a number (3.0 -> 3)."""
    value = number(value)
    return None if value is None else int(value)


def _dates(values: Any) -> tuple[datetime, ...]:
    if not isinstance(values, list):
        return ()
    return tuple(d for d in (utc_datetime(v) for v in values) if d is not None)


def parse_returns(overview: dict[str, Any]) -> PeriodReturns:
    """``quoteUnadjustedPerformanceOverview`` body -> returns (fractions)."""
    performance = mapping(overview.get("performanceOverview"))
    return PeriodReturns(**{name: number(performance.get(key))
                            for name, key in _RETURN_SOURCES})


def parse_full_quote(symbol: str, modules: dict[str, Any]) -> FullQuote:
    """quoteSummary modules (:func:`..quote_summary.parse_quote_summary`) -> record.
    ``symbol`` (the one asked for) stands in when the ``price`` module names none."""
    price = mapping(modules.get("price"))
    detail = mapping(modules.get("summaryDetail"))
    stats = mapping(modules.get("defaultKeyStatistics"))
    profile = mapping(modules.get("assetProfile"))
    calendar = mapping(modules.get("calendarEvents"))
    earnings = mapping(calendar.get("earnings"))
    hint = _first(number, (price, "priceHint"), (detail, "priceHint"))
    return FullQuote(
        symbol=_string(price.get("symbol")) or symbol,
        long_name=_string(price.get("longName")),
        short_name=_string(price.get("shortName")),
        quote_type=_string(price.get("quoteType")),
        exchange=_string(price.get("exchange")),
        exchange_name=_string(price.get("exchangeName")),
        exchange_data_delayed_by=integer(price.get("exchangeDataDelayedBy")),
        currency=_string(price.get("currency")) or _string(detail.get("currency")),
        currency_symbol=_string(price.get("currencySymbol")),
        market_state=_string(price.get("marketState")),
        price_hint=2 if hint is None else int(hint),
        regular_market_price=number(price.get("regularMarketPrice")),
        regular_market_change=number(price.get("regularMarketChange")),
        regular_market_change_percent=number(price.get("regularMarketChangePercent")),
        regular_market_time=utc_datetime(price.get("regularMarketTime")),
        previous_close=_first(number, (detail, "previousClose"),
                              (price, "regularMarketPreviousClose")),
        open=_first(number, (detail, "open"), (price, "regularMarketOpen")),
        day_high=_first(number, (detail, "dayHigh"), (price, "regularMarketDayHigh")),
        day_low=_first(number, (detail, "dayLow"), (price, "regularMarketDayLow")),
        volume=_first(_whole, (detail, "volume"), (price, "regularMarketVolume")),
        average_volume=_first(_whole, (detail, "averageVolume"),
                              (price, "averageDailyVolume3Month")),
        pre_market_price=number(price.get("preMarketPrice")),
        pre_market_change=number(price.get("preMarketChange")),
        pre_market_change_percent=number(price.get("preMarketChangePercent")),
        pre_market_time=utc_datetime(price.get("preMarketTime")),
        post_market_price=number(price.get("postMarketPrice")),
        post_market_change=number(price.get("postMarketChange")),
        post_market_change_percent=number(price.get("postMarketChangePercent")),
        post_market_time=utc_datetime(price.get("postMarketTime")),
        bid=number(detail.get("bid")),
        ask=number(detail.get("ask")),
        bid_size=integer(detail.get("bidSize")),
        ask_size=integer(detail.get("askSize")),
        fifty_two_week_high=number(detail.get("fiftyTwoWeekHigh")),
        fifty_two_week_low=number(detail.get("fiftyTwoWeekLow")),
        fifty_day_average=number(detail.get("fiftyDayAverage")),
        two_hundred_day_average=number(detail.get("twoHundredDayAverage")),
        market_cap=_first(number, (detail, "marketCap"), (price, "marketCap")),
        enterprise_value=number(stats.get("enterpriseValue")),
        shares_outstanding=integer(stats.get("sharesOutstanding")),
        float_shares=integer(stats.get("floatShares")),
        beta=_first(number, (detail, "beta"), (stats, "beta")),
        trailing_pe=number(detail.get("trailingPE")),
        forward_pe=_first(number, (detail, "forwardPE"), (stats, "forwardPE")),
        trailing_eps=_first(number, (stats, "trailingEps"), (detail, "trailingEps")),
        forward_eps=number(stats.get("forwardEps")),
        book_value=number(stats.get("bookValue")),
        price_to_book=number(stats.get("priceToBook")),
        week52_change=number(stats.get("52WeekChange")),
        dividend_rate=number(detail.get("dividendRate")),
        dividend_yield=number(detail.get("dividendYield")),
        yield_value=number(detail.get("yield")),
        ex_dividend_date=_first(utc_datetime, (detail, "exDividendDate"),
                                (calendar, "exDividendDate")),
        payout_ratio=number(detail.get("payoutRatio")),
        trailing_annual_dividend_rate=number(detail.get("trailingAnnualDividendRate")),
        trailing_annual_dividend_yield=number(detail.get("trailingAnnualDividendYield")),
        last_dividend_value=number(stats.get("lastDividendValue")),
        last_dividend_date=utc_datetime(stats.get("lastDividendDate")),
        earnings_dates=_dates(earnings.get("earningsDate")),
        total_assets=number(detail.get("totalAssets")),
        nav_price=number(detail.get("navPrice")),
        expense_ratio=number(stats.get("annualReportExpenseRatio")),
        holdings_turnover=number(stats.get("annualHoldingsTurnover")),
        category=_as_sent(stats.get("category")),
        fund_family=_string(stats.get("fundFamily")),
        last_cap_gain=number(stats.get("lastCapGain")),
        morningstar_rating=_whole(stats.get("morningStarOverallRating")),
        morningstar_risk_rating=_whole(stats.get("morningStarRiskRating")),
        fund_inception_date=utc_datetime(stats.get("fundInceptionDate")),
        sector=_string(profile.get("sector")),
        sector_key=_string(profile.get("sectorKey")),
        industry=_string(profile.get("industry")),
        industry_key=_string(profile.get("industryKey")),
        long_business_summary=_string(profile.get("longBusinessSummary")),
        full_time_employees=_whole(profile.get("fullTimeEmployees")),
        website=_string(profile.get("website")),
        city=_string(profile.get("city")),
        state=_string(profile.get("state")),
        country=_string(profile.get("country")),
        returns=parse_returns(mapping(modules.get("quoteUnadjustedPerformanceOverview"))),
    )


def fetch_full_quote(symbol: str) -> FullQuote:
    """The full quote of a validated symbol, through the cache (the modules are cached, the
    record is parsed on every read). NotFound when Yahoo has no such symbol."""
    return parse_full_quote(symbol, fetch_quote_summary(symbol, QUOTE_MODULES))
