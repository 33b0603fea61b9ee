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
from datetime import datetime
from functools import partial
from typing import Any

from marketdata.errors import NotFound
from marketdata.formatting import integer, mapping, number, text, utc_datetime
from marketdata.providers.yahoo.quote_summary import (
    QUOTE_MODULES,
    fetch_module,
    fetch_quote_summary,
)
from marketdata.records.quotes import (  # noqa: F401 - the records' old home re-exports them
    BOOLEAN,
    NUMBER,
    OBJECT,
    QUOTE_ATTRIBUTES,
    QUOTE_MEMBERS,
    RETURN_NAMES,
    STRING,
    FullQuote,
    GqlQuote,
    PeriodReturns,
    QuoteTypeRecord,
    is_formatted,
    present_value,
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
# applied after the cache (:func:`marketdata.records.quotes.present_value`).

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

# GqlQuote member -> ((module, key), ...): the first one with a usable value wins.
_YAHOO_KEYS: dict[str, tuple[tuple[str, str], ...]] = {
    # numbers
    "allTimeHigh": ((_SD, "allTimeHigh"),),
    "allTimeLow": ((_SD, "allTimeLow"),),
    "ask": ((_SD, "ask"),),
    "askSize": ((_SD, "askSize"),),
    "auditRisk": ((_AP, "auditRisk"),),
    "averageVolume": ((_SD, "averageVolume"), (_P, "averageDailyVolume3Month")),
    "beta": ((_SD, "beta"), (_KS, "beta")),
    "bid": ((_SD, "bid"),),
    "bidSize": ((_SD, "bidSize"),),
    "boardRisk": ((_AP, "boardRisk"),),
    "bookValue": ((_KS, "bookValue"),),
    "compensationRisk": ((_AP, "compensationRisk"),),
    "currentPrice": ((_FD, "currentPrice"),),
    "currentRatio": ((_FD, "currentRatio"),),
    "dateShortInterest": ((_KS, "dateShortInterest"),),
    "dayHigh": ((_SD, "dayHigh"), (_P, "regularMarketDayHigh")),
    "dayLow": ((_SD, "dayLow"), (_P, "regularMarketDayLow")),
    "debtToEquity": ((_FD, "debtToEquity"),),
    "dividendRate": ((_SD, "dividendRate"),),
    "dividendYield": ((_SD, "dividendYield"),),
    "earningsGrowth": ((_FD, "earningsGrowth"),),
    "earningsQuarterlyGrowth": ((_KS, "earningsQuarterlyGrowth"),),
    "ebitdaMargins": ((_FD, "ebitdaMargins"),),
    "enterpriseToEbitda": ((_KS, "enterpriseToEbitda"),),
    "enterpriseToRevenue": ((_KS, "enterpriseToRevenue"),),
    "enterpriseValue": ((_KS, "enterpriseValue"),),
    "exDividendDate": ((_SD, "exDividendDate"), (_CE, "exDividendDate")),
    "exchangeDataDelayedBy": ((_P, "exchangeDataDelayedBy"),),
    "fiftyDayAverage": ((_SD, "fiftyDayAverage"),),
    "fiftyTwoWeekHigh": ((_SD, "fiftyTwoWeekHigh"),),
    "fiftyTwoWeekLow": ((_SD, "fiftyTwoWeekLow"),),
    "firstTradeDateEpochUtc": ((_QT, "firstTradeDateEpochUtc"),),
    "fiveYearAvgDividendYield": ((_SD, "fiveYearAvgDividendYield"),),
    "floatShares": ((_KS, "floatShares"),),
    "forwardEps": ((_KS, "forwardEps"),),
    "forwardPe": ((_SD, "forwardPE"), (_KS, "forwardPE")),
    "freeCashflow": ((_FD, "freeCashflow"),),
    "fullTimeEmployees": ((_AP, "fullTimeEmployees"), (_SP, "fullTimeEmployees")),
    "gmtOffSetMilliseconds": ((_QT, "gmtOffSetMilliseconds"),),
    "grossMargins": ((_FD, "grossMargins"),),
    "grossProfits": ((_FD, "grossProfits"),),
    "heldPercentInsiders": ((_KS, "heldPercentInsiders"),),
    "heldPercentInstitutions": ((_KS, "heldPercentInstitutions"),),
    "impliedSharesOutstanding": ((_KS, "impliedSharesOutstanding"),),
    "lastDividendDate": ((_KS, "lastDividendDate"),),
    "lastDividendValue": ((_KS, "lastDividendValue"),),
    "lastFiscalYearEnd": ((_KS, "lastFiscalYearEnd"),),
    "lastSplitDate": ((_KS, "lastSplitDate"),),
    "marketCap": ((_SD, "marketCap"), (_P, "marketCap")),
    "mostRecentQuarter": ((_KS, "mostRecentQuarter"),),
    "navPrice": ((_SD, "navPrice"),),
    "netIncomeToCommon": ((_KS, "netIncomeToCommon"),),
    "nextFiscalYearEnd": ((_KS, "nextFiscalYearEnd"),),
    "numberOfAnalystOpinions": ((_FD, "numberOfAnalystOpinions"),),
    "open": ((_SD, "open"), (_P, "regularMarketOpen")),
    "operatingCashflow": ((_FD, "operatingCashflow"),),
    "operatingMargins": ((_FD, "operatingMargins"),),
    "overallRisk": ((_AP, "overallRisk"),),
    "payoutRatio": ((_SD, "payoutRatio"),),
    "postMarketChange": ((_P, "postMarketChange"),),
    "postMarketChangePercent": ((_P, "postMarketChangePercent"),),
    "postMarketPrice": ((_P, "postMarketPrice"),),
    "postMarketTime": ((_P, "postMarketTime"),),
    "preMarketChange": ((_P, "preMarketChange"),),
    "preMarketChangePercent": ((_P, "preMarketChangePercent"),),
    "preMarketPrice": ((_P, "preMarketPrice"),),
    "preMarketTime": ((_P, "preMarketTime"),),
    "previousClose": ((_SD, "previousClose"), (_P, "regularMarketPreviousClose")),
    "priceHint": ((_P, "priceHint"), (_SD, "priceHint"), (_KS, "priceHint")),
    "priceToBook": ((_KS, "priceToBook"),),
    "profitMargins": ((_FD, "profitMargins"), (_KS, "profitMargins")),
    "quickRatio": ((_FD, "quickRatio"),),
    "recommendationMean": ((_FD, "recommendationMean"),),
    "regularMarketChange": ((_P, "regularMarketChange"),),
    "regularMarketChangePercent": ((_P, "regularMarketChangePercent"),),
    "regularMarketDayHigh": ((_P, "regularMarketDayHigh"), (_SD, "regularMarketDayHigh")),
    "regularMarketDayLow": ((_P, "regularMarketDayLow"), (_SD, "regularMarketDayLow")),
    "regularMarketOpen": ((_P, "regularMarketOpen"), (_SD, "regularMarketOpen")),
    "regularMarketPreviousClose": ((_P, "regularMarketPreviousClose"),
                                   (_SD, "regularMarketPreviousClose")),
    "regularMarketPrice": ((_P, "regularMarketPrice"),),
    "regularMarketTime": ((_P, "regularMarketTime"),),
    "regularMarketVolume": ((_P, "regularMarketVolume"), (_SD, "regularMarketVolume")),
    "returnOnAssets": ((_FD, "returnOnAssets"),),
    "returnOnEquity": ((_FD, "returnOnEquity"),),
    "revenueGrowth": ((_FD, "revenueGrowth"),),
    "revenuePerShare": ((_FD, "revenuePerShare"),),
    "benchmark52WeekChange": ((_KS, "SandP52WeekChange"),),
    "shareholderRightsRisk": ((_AP, "shareHolderRightsRisk"),),
    "sharesOutstanding": ((_KS, "sharesOutstanding"),),
    "sharesPercentSharesOut": ((_KS, "sharesPercentSharesOut"),),
    "sharesShort": ((_KS, "sharesShort"),),
    "sharesShortPriorMonth": ((_KS, "sharesShortPriorMonth"),),
    "shortPercentOfFloat": ((_KS, "shortPercentOfFloat"),),
    "shortRatio": ((_KS, "shortRatio"),),
    "targetHighPrice": ((_FD, "targetHighPrice"),),
    "targetLowPrice": ((_FD, "targetLowPrice"),),
    "targetMeanPrice": ((_FD, "targetMeanPrice"),),
    "targetMedianPrice": ((_FD, "targetMedianPrice"),),
    "totalAssets": ((_SD, "totalAssets"), (_KS, "totalAssets")),
    "totalDebt": ((_FD, "totalDebt"),),
    "totalRevenue": ((_FD, "totalRevenue"),),
    "trailingAnnualDividendRate": ((_SD, "trailingAnnualDividendRate"),),
    "trailingAnnualDividendYield": ((_SD, "trailingAnnualDividendYield"),),
    "trailingEps": ((_KS, "trailingEps"), (_SD, "trailingEps")),
    "trailingPe": ((_SD, "trailingPE"),),
    "twoHundredDayAverage": ((_SD, "twoHundredDayAverage"),),
    "volume": ((_SD, "volume"), (_P, "regularMarketVolume")),
    "week52Change": ((_KS, "52WeekChange"),),
    "yieldValue": ((_SD, "yield"), (_KS, "yield")),
    # strings
    "category": ((_KS, "category"),),
    "city": ((_AP, "city"), (_SP, "city")),
    "companyLogoUrl": ((_P, "companyLogoUrl"),),
    "country": ((_AP, "country"), (_SP, "country")),
    "currency": ((_P, "currency"), (_SD, "currency")),
    "currencySymbol": ((_P, "currencySymbol"),),
    "exchange": ((_P, "exchange"), (_QT, "exchange")),
    "exchangeName": ((_P, "exchangeName"),),
    "financialCurrency": ((_FD, "financialCurrency"), ("earnings", "financialCurrency")),
    "fromCurrency": ((_P, "fromCurrency"), (_SD, "fromCurrency")),
    "fundFamily": ((_KS, "fundFamily"),),
    "industry": ((_AP, "industry"), (_SP, "industry")),
    "industryDisp": ((_AP, "industryDisp"), (_SP, "industryDisp")),
    "industryKey": ((_AP, "industryKey"), (_SP, "industryKey")),
    "irWebsite": ((_AP, "irWebsite"), (_SP, "irWebsite")),
    "lastSplitFactor": ((_KS, "lastSplitFactor"),),
    "logoUrl": ((_P, "logoUrl"),),
    "longBusinessSummary": ((_AP, "longBusinessSummary"), (_SP, "longBusinessSummary")),
    "longName": ((_P, "longName"), (_QT, "longName")),
    "marketState": ((_P, "marketState"),),
    "phone": ((_AP, "phone"), (_SP, "phone")),
    "quoteType": ((_P, "quoteType"), (_QT, "quoteType")),
    "recommendationKey": ((_FD, "recommendationKey"),),
    "sector": ((_AP, "sector"), (_SP, "sector")),
    "sectorDisp": ((_AP, "sectorDisp"), (_SP, "sectorDisp")),
    "sectorKey": ((_AP, "sectorKey"), (_SP, "sectorKey")),
    "shortName": ((_P, "shortName"), (_QT, "shortName")),
    "state": ((_AP, "state"), (_SP, "state")),
    "symbol": ((_P, "symbol"), (_QT, "symbol")),
    "timeZoneFullName": ((_QT, "timeZoneFullName"),),
    "timeZoneShortName": ((_QT, "timeZoneShortName"),),
    "toCurrency": ((_P, "toCurrency"), (_SD, "toCurrency")),
    "underlyingSymbol": ((_P, "underlyingSymbol"), (_QT, "underlyingSymbol")),
    "website": ((_AP, "website"), (_SP, "website")),
    "zip": ((_AP, "zip"), (_SP, "zip")),
    # boolean
    "tradeable": ((_SD, "tradeable"),),
    # objects: module bodies (companyOfficers is assetProfile's list of officers)
    "companyOfficers": ((_AP, "companyOfficers"), (_SP, "companyOfficers")),
    **{name: ((name, _WHOLE),) for name in (
        "balanceSheetHistory", "balanceSheetHistoryQuarterly", "calendarEvents",
        "cashflowStatementHistory", "cashflowStatementHistoryQuarterly", "earnings",
        "earningsHistory", "earningsTrend", "equityPerformance", "fundOwnership",
        "fundPerformance", "fundProfile", "incomeStatementHistory",
        "incomeStatementHistoryQuarterly", "indexTrend", "industryTrend", "insiderHolders",
        "insiderTransactions", "institutionOwnership", "majorHoldersBreakdown",
        "netSharePurchaseActivity", "recommendationTrend", "secFilings", "sectorTrend",
        "topHoldings", "upgradeDowngradeHistory")},
}

# member -> (kind, where Yahoo keeps it), in the order of QUOTE_MEMBERS.
QUOTE_SOURCES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    name: (kind, _YAHOO_KEYS[name]) for name, kind in QUOTE_MEMBERS.items()}
# (GqlQuote attribute, kind, where Yahoo keeps it) of each member: what parse_gql_quote reads.
_READS = tuple((QUOTE_ATTRIBUTES[name], kind, sources)
               for name, (kind, sources) in QUOTE_SOURCES.items())


def usable_value(kind: str, value: Any) -> Any:
    """Yahoo's value when it fits the member's kind, else None ({} and NaN are missing)."""
    if kind == NUMBER:
        scalar = value.get("raw") if is_formatted(value) else value
        return value if number(scalar) is not None else None
    if kind == STRING:
        return _string(value)
    if kind == BOOLEAN:
        return value if isinstance(value, bool) else None
    # An empty module ({}) is no module; a list (companyOfficers) is passed on even empty.
    return value if isinstance(value, list) or (isinstance(value, dict) and value) else None


def parse_gql_quote(symbol: str, modules: dict[str, Any]) -> GqlQuote:
    """quoteSummary modules -> every GqlQuote member; ``symbol`` (the one asked for)
    stands in when Yahoo names none."""
    values: dict[str, Any] = {}
    for attribute, kind, sources in _READS:
        found = None
        for module_name, key in sources:
            module = modules.get(module_name)
            if not isinstance(module, dict):
                continue
            found = usable_value(kind, module if key == _WHOLE else module.get(key))
            if found is not None:
                break
        values[attribute] = found
    if values["symbol"] is None:
        values["symbol"] = symbol
    return GqlQuote(**values)


def fetch_gql_quote(symbol: str, *, lang: str | None = None,
                    region: str | None = None) -> GqlQuote:
    """The v2 quote of a validated symbol: one formatted quoteSummary call with every
    module of :data:`V2_QUOTE_MODULES` (cached apart from v1's bare-number call)."""
    modules = fetch_quote_summary(symbol, V2_QUOTE_MODULES, formatted=True, lang=lang,
                                  region=region)
    return parse_gql_quote(symbol, modules)


# -- v2 quote type ------------------------------------------------------------------------------
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
