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

from marketdata.errors import NotFound
from marketdata.formatting import integer, mapping, number, raw, text, utc_datetime
from marketdata.providers.yahoo.quote_summary import (
    QUOTE_MODULES,
    fetch_module,
    fetch_quote_summary,
)

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


# -- v2: the GqlQuote record ------------------------------------------------------------------
# The v2 quote keeps Yahoo's values as sent (a bare scalar, or a ``{raw, fmt, longFmt}``
# object when fetched with formatted=true), so the ``format`` the client asks for can be
# applied after the cache (:func:`present_value`). The member kinds are the spec's lists.
NUMBER, STRING, BOOLEAN, OBJECT = "number", "string", "boolean", "object"

# quoteSummary modules of the v2 quote: every module a GqlQuote member is read from.
V2_QUOTE_MODULES = (
    "price", "summaryDetail", "defaultKeyStatistics", "financialData", "assetProfile",
    "summaryProfile", "quoteType", "calendarEvents", "earnings", "earningsHistory",
    "earningsTrend", "equityPerformance", "fundOwnership", "fundPerformance", "fundProfile",
    "topHoldings", "balanceSheetHistory", "balanceSheetHistoryQuarterly",
    "cashflowStatementHistory", "cashflowStatementHistoryQuarterly", "incomeStatementHistory",
    "incomeStatementHistoryQuarterly", "indexTrend", "industryTrend", "sectorTrend",
    "insiderHolders", "insiderTransactions", "institutionOwnership", "majorHoldersBreakdown",
    "netSharePurchaseActivity", "recommendationTrend", "secFilings", "upgradeDowngradeHistory",
)

_P, _SD, _KS, _FD = "price", "summaryDetail", "defaultKeyStatistics", "financialData"
_AP, _SP, _QT, _CE = "assetProfile", "summaryProfile", "quoteType", "calendarEvents"
_WHOLE = "*"  # the module's whole body (object members)

# member -> (kind, ((module, key), ...)): the first source with a usable value wins.
QUOTE_SOURCES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    # numbers
    "allTimeHigh": (NUMBER, ((_SD, "allTimeHigh"),)),
    "allTimeLow": (NUMBER, ((_SD, "allTimeLow"),)),
    "ask": (NUMBER, ((_SD, "ask"),)),
    "askSize": (NUMBER, ((_SD, "askSize"),)),
    "auditRisk": (NUMBER, ((_AP, "auditRisk"),)),
    "averageVolume": (NUMBER, ((_SD, "averageVolume"), (_P, "averageDailyVolume3Month"))),
    "beta": (NUMBER, ((_SD, "beta"), (_KS, "beta"))),
    "bid": (NUMBER, ((_SD, "bid"),)),
    "bidSize": (NUMBER, ((_SD, "bidSize"),)),
    "boardRisk": (NUMBER, ((_AP, "boardRisk"),)),
    "bookValue": (NUMBER, ((_KS, "bookValue"),)),
    "compensationRisk": (NUMBER, ((_AP, "compensationRisk"),)),
    "currentPrice": (NUMBER, ((_FD, "currentPrice"),)),
    "currentRatio": (NUMBER, ((_FD, "currentRatio"),)),
    "dateShortInterest": (NUMBER, ((_KS, "dateShortInterest"),)),
    "dayHigh": (NUMBER, ((_SD, "dayHigh"), (_P, "regularMarketDayHigh"))),
    "dayLow": (NUMBER, ((_SD, "dayLow"), (_P, "regularMarketDayLow"))),
    "debtToEquity": (NUMBER, ((_FD, "debtToEquity"),)),
    "dividendRate": (NUMBER, ((_SD, "dividendRate"),)),
    "dividendYield": (NUMBER, ((_SD, "dividendYield"),)),
    "earningsGrowth": (NUMBER, ((_FD, "earningsGrowth"),)),
    "earningsQuarterlyGrowth": (NUMBER, ((_KS, "earningsQuarterlyGrowth"),)),
    "ebitdaMargins": (NUMBER, ((_FD, "ebitdaMargins"),)),
    "enterpriseToEbitda": (NUMBER, ((_KS, "enterpriseToEbitda"),)),
    "enterpriseToRevenue": (NUMBER, ((_KS, "enterpriseToRevenue"),)),
    "enterpriseValue": (NUMBER, ((_KS, "enterpriseValue"),)),
    "exDividendDate": (NUMBER, ((_SD, "exDividendDate"), (_CE, "exDividendDate"))),
    "exchangeDataDelayedBy": (NUMBER, ((_P, "exchangeDataDelayedBy"),)),
    "fiftyDayAverage": (NUMBER, ((_SD, "fiftyDayAverage"),)),
    "fiftyTwoWeekHigh": (NUMBER, ((_SD, "fiftyTwoWeekHigh"),)),
    "fiftyTwoWeekLow": (NUMBER, ((_SD, "fiftyTwoWeekLow"),)),
    "firstTradeDateEpochUtc": (NUMBER, ((_QT, "firstTradeDateEpochUtc"),)),
    "fiveYearAvgDividendYield": (NUMBER, ((_SD, "fiveYearAvgDividendYield"),)),
    "floatShares": (NUMBER, ((_KS, "floatShares"),)),
    "forwardEps": (NUMBER, ((_KS, "forwardEps"),)),
    "forwardPe": (NUMBER, ((_SD, "forwardPE"), (_KS, "forwardPE"))),
    "freeCashflow": (NUMBER, ((_FD, "freeCashflow"),)),
    "fullTimeEmployees": (NUMBER, ((_AP, "fullTimeEmployees"), (_SP, "fullTimeEmployees"))),
    "gmtOffSetMilliseconds": (NUMBER, ((_QT, "gmtOffSetMilliseconds"),)),
    "grossMargins": (NUMBER, ((_FD, "grossMargins"),)),
    "grossProfits": (NUMBER, ((_FD, "grossProfits"),)),
    "heldPercentInsiders": (NUMBER, ((_KS, "heldPercentInsiders"),)),
    "heldPercentInstitutions": (NUMBER, ((_KS, "heldPercentInstitutions"),)),
    "impliedSharesOutstanding": (NUMBER, ((_KS, "impliedSharesOutstanding"),)),
    "lastDividendDate": (NUMBER, ((_KS, "lastDividendDate"),)),
    "lastDividendValue": (NUMBER, ((_KS, "lastDividendValue"),)),
    "lastFiscalYearEnd": (NUMBER, ((_KS, "lastFiscalYearEnd"),)),
    "lastSplitDate": (NUMBER, ((_KS, "lastSplitDate"),)),
    "marketCap": (NUMBER, ((_SD, "marketCap"), (_P, "marketCap"))),
    "mostRecentQuarter": (NUMBER, ((_KS, "mostRecentQuarter"),)),
    "navPrice": (NUMBER, ((_SD, "navPrice"),)),
    "netIncomeToCommon": (NUMBER, ((_KS, "netIncomeToCommon"),)),
    "nextFiscalYearEnd": (NUMBER, ((_KS, "nextFiscalYearEnd"),)),
    "numberOfAnalystOpinions": (NUMBER, ((_FD, "numberOfAnalystOpinions"),)),
    "open": (NUMBER, ((_SD, "open"), (_P, "regularMarketOpen"))),
    "operatingCashflow": (NUMBER, ((_FD, "operatingCashflow"),)),
    "operatingMargins": (NUMBER, ((_FD, "operatingMargins"),)),
    "overallRisk": (NUMBER, ((_AP, "overallRisk"),)),
    "payoutRatio": (NUMBER, ((_SD, "payoutRatio"),)),
    "postMarketChange": (NUMBER, ((_P, "postMarketChange"),)),
    "postMarketChangePercent": (NUMBER, ((_P, "postMarketChangePercent"),)),
    "postMarketPrice": (NUMBER, ((_P, "postMarketPrice"),)),
    "postMarketTime": (NUMBER, ((_P, "postMarketTime"),)),
    "preMarketChange": (NUMBER, ((_P, "preMarketChange"),)),
    "preMarketChangePercent": (NUMBER, ((_P, "preMarketChangePercent"),)),
    "preMarketPrice": (NUMBER, ((_P, "preMarketPrice"),)),
    "preMarketTime": (NUMBER, ((_P, "preMarketTime"),)),
    "previousClose": (NUMBER, ((_SD, "previousClose"), (_P, "regularMarketPreviousClose"))),
    "priceHint": (NUMBER, ((_P, "priceHint"), (_SD, "priceHint"), (_KS, "priceHint"))),
    "priceToBook": (NUMBER, ((_KS, "priceToBook"),)),
    "profitMargins": (NUMBER, ((_FD, "profitMargins"), (_KS, "profitMargins"))),
    "quickRatio": (NUMBER, ((_FD, "quickRatio"),)),
    "recommendationMean": (NUMBER, ((_FD, "recommendationMean"),)),
    "regularMarketChange": (NUMBER, ((_P, "regularMarketChange"),)),
    "regularMarketChangePercent": (NUMBER, ((_P, "regularMarketChangePercent"),)),
    "regularMarketDayHigh": (NUMBER, ((_P, "regularMarketDayHigh"),
                                      (_SD, "regularMarketDayHigh"))),
    "regularMarketDayLow": (NUMBER, ((_P, "regularMarketDayLow"), (_SD, "regularMarketDayLow"))),
    "regularMarketOpen": (NUMBER, ((_P, "regularMarketOpen"), (_SD, "regularMarketOpen"))),
    "regularMarketPreviousClose": (NUMBER, ((_P, "regularMarketPreviousClose"),
                                            (_SD, "regularMarketPreviousClose"))),
    "regularMarketPrice": (NUMBER, ((_P, "regularMarketPrice"),)),
    "regularMarketTime": (NUMBER, ((_P, "regularMarketTime"),)),
    "regularMarketVolume": (NUMBER, ((_P, "regularMarketVolume"),
                                     (_SD, "regularMarketVolume"))),
    "returnOnAssets": (NUMBER, ((_FD, "returnOnAssets"),)),
    "returnOnEquity": (NUMBER, ((_FD, "returnOnEquity"),)),
    "revenueGrowth": (NUMBER, ((_FD, "revenueGrowth"),)),
    "revenuePerShare": (NUMBER, ((_FD, "revenuePerShare"),)),
    "benchmark52WeekChange": (NUMBER, ((_KS, "SandP52WeekChange"),)),
    "shareholderRightsRisk": (NUMBER, ((_AP, "shareHolderRightsRisk"),)),
    "sharesOutstanding": (NUMBER, ((_KS, "sharesOutstanding"),)),
    "sharesPercentSharesOut": (NUMBER, ((_KS, "sharesPercentSharesOut"),)),
    "sharesShort": (NUMBER, ((_KS, "sharesShort"),)),
    "sharesShortPriorMonth": (NUMBER, ((_KS, "sharesShortPriorMonth"),)),
    "shortPercentOfFloat": (NUMBER, ((_KS, "shortPercentOfFloat"),)),
    "shortRatio": (NUMBER, ((_KS, "shortRatio"),)),
    "targetHighPrice": (NUMBER, ((_FD, "targetHighPrice"),)),
    "targetLowPrice": (NUMBER, ((_FD, "targetLowPrice"),)),
    "targetMeanPrice": (NUMBER, ((_FD, "targetMeanPrice"),)),
    "targetMedianPrice": (NUMBER, ((_FD, "targetMedianPrice"),)),
    "totalAssets": (NUMBER, ((_SD, "totalAssets"), (_KS, "totalAssets"))),
    "totalDebt": (NUMBER, ((_FD, "totalDebt"),)),
    "totalRevenue": (NUMBER, ((_FD, "totalRevenue"),)),
    "trailingAnnualDividendRate": (NUMBER, ((_SD, "trailingAnnualDividendRate"),)),
    "trailingAnnualDividendYield": (NUMBER, ((_SD, "trailingAnnualDividendYield"),)),
    "trailingEps": (NUMBER, ((_KS, "trailingEps"), (_SD, "trailingEps"))),
    "trailingPe": (NUMBER, ((_SD, "trailingPE"),)),
    "twoHundredDayAverage": (NUMBER, ((_SD, "twoHundredDayAverage"),)),
    "volume": (NUMBER, ((_SD, "volume"), (_P, "regularMarketVolume"))),
    "week52Change": (NUMBER, ((_KS, "52WeekChange"),)),
    "yieldValue": (NUMBER, ((_SD, "yield"), (_KS, "yield"))),
    # strings
    "category": (STRING, ((_KS, "category"),)),
    "city": (STRING, ((_AP, "city"), (_SP, "city"))),
    "companyLogoUrl": (STRING, ((_P, "companyLogoUrl"),)),
    "country": (STRING, ((_AP, "country"), (_SP, "country"))),
    "currency": (STRING, ((_P, "currency"), (_SD, "currency"))),
    "currencySymbol": (STRING, ((_P, "currencySymbol"),)),
    "exchange": (STRING, ((_P, "exchange"), (_QT, "exchange"))),
    "exchangeName": (STRING, ((_P, "exchangeName"),)),
    "financialCurrency": (STRING, ((_FD, "financialCurrency"), ("earnings", "financialCurrency"))),
    "fromCurrency": (STRING, ((_P, "fromCurrency"), (_SD, "fromCurrency"))),
    "fundFamily": (STRING, ((_KS, "fundFamily"),)),
    "industry": (STRING, ((_AP, "industry"), (_SP, "industry"))),
    "industryDisp": (STRING, ((_AP, "industryDisp"), (_SP, "industryDisp"))),
    "industryKey": (STRING, ((_AP, "industryKey"), (_SP, "industryKey"))),
    "irWebsite": (STRING, ((_AP, "irWebsite"), (_SP, "irWebsite"))),
    "lastSplitFactor": (STRING, ((_KS, "lastSplitFactor"),)),
    "logoUrl": (STRING, ((_P, "logoUrl"),)),
    "longBusinessSummary": (STRING, ((_AP, "longBusinessSummary"),
                                     (_SP, "longBusinessSummary"))),
    "longName": (STRING, ((_P, "longName"), (_QT, "longName"))),
    "marketState": (STRING, ((_P, "marketState"),)),
    "phone": (STRING, ((_AP, "phone"), (_SP, "phone"))),
    "quoteType": (STRING, ((_P, "quoteType"), (_QT, "quoteType"))),
    "recommendationKey": (STRING, ((_FD, "recommendationKey"),)),
    "sector": (STRING, ((_AP, "sector"), (_SP, "sector"))),
    "sectorDisp": (STRING, ((_AP, "sectorDisp"), (_SP, "sectorDisp"))),
    "sectorKey": (STRING, ((_AP, "sectorKey"), (_SP, "sectorKey"))),
    "shortName": (STRING, ((_P, "shortName"), (_QT, "shortName"))),
    "state": (STRING, ((_AP, "state"), (_SP, "state"))),
    "symbol": (STRING, ((_P, "symbol"), (_QT, "symbol"))),
    "timeZoneFullName": (STRING, ((_QT, "timeZoneFullName"),)),
    "timeZoneShortName": (STRING, ((_QT, "timeZoneShortName"),)),
    "toCurrency": (STRING, ((_P, "toCurrency"), (_SD, "toCurrency"))),
    "underlyingSymbol": (STRING, ((_P, "underlyingSymbol"), (_QT, "underlyingSymbol"))),
    "website": (STRING, ((_AP, "website"), (_SP, "website"))),
    "zip": (STRING, ((_AP, "zip"), (_SP, "zip"))),
    # boolean
    "tradeable": (BOOLEAN, ((_SD, "tradeable"),)),
    # objects: module bodies (companyOfficers is assetProfile's list of officers)
    "companyOfficers": (OBJECT, ((_AP, "companyOfficers"), (_SP, "companyOfficers"))),
    **{name: (OBJECT, ((name, _WHOLE),)) for name in (
        "balanceSheetHistory", "balanceSheetHistoryQuarterly", "calendarEvents",
        "cashflowStatementHistory", "cashflowStatementHistoryQuarterly", "earnings",
        "earningsHistory", "earningsTrend", "equityPerformance", "fundOwnership",
        "fundPerformance", "fundProfile", "incomeStatementHistory",
        "incomeStatementHistoryQuarterly", "indexTrend", "industryTrend", "insiderHolders",
        "insiderTransactions", "institutionOwnership", "majorHoldersBreakdown",
        "netSharePurchaseActivity", "recommendationTrend", "secFilings", "sectorTrend",
        "topHoldings", "upgradeDowngradeHistory")},
}

# GqlQuote member -> kind, in the spec's order of kinds (numbers, strings, boolean, objects).
QUOTE_MEMBERS: dict[str, str] = {name: kind for name, (kind, _) in QUOTE_SOURCES.items()}
LOGO_MEMBERS = ("logoUrl", "companyLogoUrl")


@dataclass(frozen=True)
class GqlQuoteRecord:
    """One v2 quote: every GqlQuote member (:data:`QUOTE_MEMBERS`), None where Yahoo has no
    usable value. Numbers keep Yahoo's form (bare, or ``{raw, fmt, longFmt}`` when fetched
    formatted) so :func:`present_value` can give the client the form it asked for."""

    symbol: str
    values: dict[str, Any]

    def with_logos(self, logo_url: str | None, company_logo_url: str | None) -> GqlQuoteRecord:
        """The record with the logo members of a separate logo lookup."""
        return GqlQuoteRecord(self.symbol, {**self.values, "logoUrl": logo_url,
                                            "companyLogoUrl": company_logo_url})


def _is_formatted(value: Any) -> bool:
    """A Yahoo formatted number: an object with ``raw`` and nothing but raw/fmt/longFmt."""
    return isinstance(value, dict) and "raw" in value and value.keys() <= _FORMATTED_KEYS


_FORMATTED_KEYS = frozenset({"raw", "fmt", "longFmt"})


def usable_value(kind: str, value: Any) -> Any:
    """Yahoo's value when it fits the member's kind, else None ({} and NaN are missing)."""
    if kind == NUMBER:
        scalar = value.get("raw") if _is_formatted(value) else value
        return value if number(scalar) is not None else None
    if kind == STRING:
        return _string(value)
    if kind == BOOLEAN:
        return value if isinstance(value, bool) else None
    # An empty module ({}) is no module; a list (companyOfficers) is passed on even empty.
    return value if isinstance(value, list) or (isinstance(value, dict) and value) else None


def parse_gql_quote(symbol: str, modules: dict[str, Any]) -> GqlQuoteRecord:
    """quoteSummary modules -> every GqlQuote member; ``symbol`` (the one asked for)
    stands in when Yahoo names none."""
    values: dict[str, Any] = {}
    for name, (kind, sources) in QUOTE_SOURCES.items():
        found = None
        for module_name, key in sources:
            module = modules.get(module_name)
            if not isinstance(module, dict):
                continue
            found = usable_value(kind, module if key == _WHOLE else module.get(key))
            if found is not None:
                break
        values[name] = found
    if values["symbol"] is None:
        values["symbol"] = symbol
    return GqlQuoteRecord(symbol=values["symbol"], values=values)


def fetch_gql_quote(symbol: str, *, lang: str | None = None,
                    region: str | None = None) -> GqlQuoteRecord:
    """The v2 quote of a validated symbol: one formatted quoteSummary call with every
    module of :data:`V2_QUOTE_MODULES` (cached apart from v1's bare-number call)."""
    modules = fetch_quote_summary(symbol, V2_QUOTE_MODULES, formatted=True, lang=lang,
                                  region=region)
    return parse_gql_quote(symbol, modules)


# -- v2 value formats -------------------------------------------------------------------------
def present_value(value: Any, value_format: str) -> Any:
    """Yahoo's number objects in the form a v2 client asked for, recursively.

    ``raw``: the raw scalar (or None); ``pretty``: ``fmt``, else ``longFmt``, else None;
    ``both``: the object as sent (keys Yahoo left out stay out). Anything that is not a
    number object (bare numbers, strings, other objects) keeps its form; objects and lists
    are walked.
    """
    if _is_formatted(value):
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


# -- v2 quote type ------------------------------------------------------------------------------
@dataclass(frozen=True)
class QuoteTypeRecord:
    """quoteSummary ``quoteType``: the instrument's identity (GqlQuoteTypeData)."""

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


def parse_quote_type(body: dict[str, Any]) -> QuoteTypeRecord:
    """``quoteType`` module body -> record (strings as sent, whole numbers as ints)."""
    return QuoteTypeRecord(
        symbol=_string(body.get("symbol")), exchange=_string(body.get("exchange")),
        long_name=_string(body.get("longName")), short_name=_string(body.get("shortName")),
        quote_type=_string(body.get("quoteType")),
        message_board_id=_string(body.get("messageBoardId")),
        time_zone_full_name=_string(body.get("timeZoneFullName")),
        time_zone_short_name=_string(body.get("timeZoneShortName")),
        underlying_symbol=_string(body.get("underlyingSymbol")),
        uuid=_string(body.get("uuid")),
        first_trade_date_epoch_utc=integer(body.get("firstTradeDateEpochUtc")),
        gmt_off_set_milliseconds=integer(body.get("gmtOffSetMilliseconds")),
        max_age=integer(body.get("maxAge")),
    )


def fetch_quote_type(symbol: str) -> QuoteTypeRecord:
    """The quote type of a validated symbol (module ``quoteType``, cached a day: identity
    data barely changes). NotFound when Yahoo has no such symbol or no such module."""
    body = fetch_module(symbol, "quoteType", policy="fundamentals", group="quotes")
    if not body:
        raise NotFound(f"No quote type data for {symbol}")
    return parse_quote_type(body)
