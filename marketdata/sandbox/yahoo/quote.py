"""GET /v7/finance/quote?symbols=A,B: batch quotes in Yahoo's v7 shape.

Why: the batch quote is the hot path of the service (simple quotes, streams). Key order
follows the recordings of each quote type; unknown symbols are silently omitted, as Yahoo
does; ``fields=`` returns Yahoo's always-present base keys plus the requested ones (the logo
fields only when asked, sized by ``imgHeights``/``imgWidths``). Percent fields are in
percent units here (v10 uses fractions). ``formatted=true`` wraps numbers in Yahoo's
``{raw, fmt, longFmt}`` objects; ``lang``/``region`` are accepted and change nothing.
"""

from __future__ import annotations

from typing import Any

from marketdata.sandbox.instruments import (
    CRYPTO,
    CURRENCY,
    EQUITY,
    ETF,
    FUTURE,
    INDEX,
    MUTUALFUND,
    TYPE_DISP,
    get_instrument,
    unit,
)
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo import fmt
from marketdata.sandbox.yahoo.common import Request, finance_error, json_response
from marketdata.sandbox.yahoo.market import MarketView, market_view

_HEAD = ("language", "region", "quoteType", "typeDisp", "quoteSourceName", "triggerable",
         "customPriceAlertConfidence")
_PRE = ("preMarketChange", "preMarketChangePercent", "preMarketTime", "preMarketPrice")
_POST = ("postMarketTime", "regularMarketTime", "postMarketChangePercent", "postMarketPrice",
         "postMarketChange")
_FIFTY_TWO = ("fiftyTwoWeekLowChange", "fiftyTwoWeekLowChangePercent", "fiftyTwoWeekRange",
              "fiftyTwoWeekHighChange", "fiftyTwoWeekHighChangePercent", "fiftyTwoWeekLow",
              "fiftyTwoWeekHigh", "fiftyTwoWeekChangePercent", "allTimeHigh", "allTimeLow")
_AVERAGES = ("fiftyDayAverage", "fiftyDayAverageChange", "fiftyDayAverageChangePercent",
             "twoHundredDayAverage", "twoHundredDayAverageChange",
             "twoHundredDayAverageChangePercent")
_DAY = ("regularMarketChange", "regularMarketDayHigh", "regularMarketDayRange",
        "regularMarketDayLow", "regularMarketVolume", "regularMarketPreviousClose", "bid", "ask",
        "bidSize", "askSize", "fullExchangeName")
_ZONE = ("exchangeTimezoneName", "exchangeTimezoneShortName", "gmtOffSetMilliseconds",
         "market", "esgPopulated")

# Key order per quote type, as in the recordings (v7-quote/quote-*.json).
TEMPLATES: dict[str, tuple[str, ...]] = {
    EQUITY: (*_HEAD, "shortName", "longName", "marketState", "regularMarketChangePercent",
             "regularMarketPrice", "currency", "exchange", "messageBoardId", *_ZONE,
             "corporateActions", *_PRE, *_POST, *_DAY, "financialCurrency",
             "regularMarketOpen", "averageDailyVolume3Month", "averageDailyVolume10Day",
             *_FIFTY_TWO, "dividendDate", "earningsTimestamp", "earningsTimestampStart",
             "earningsTimestampEnd", "earningsCallTimestampStart", "earningsCallTimestampEnd",
             "isEarningsDateEstimate", "trailingAnnualDividendRate", "trailingPE",
             "dividendRate", "trailingAnnualDividendYield", "dividendYield",
             "epsTrailingTwelveMonths", "epsForward", "epsCurrentYear", "priceEpsCurrentYear",
             "sharesOutstanding", "bookValue", *_AVERAGES, "marketCap", "forwardPE",
             "priceToBook", "sourceInterval", "exchangeDataDelayedBy", "averageAnalystRating",
             "hasPrePostMarketData", "firstTradeDateMilliseconds", "priceHint", "tradeable",
             "cryptoTradeable", "displayName", "symbol"),
    ETF: (*_HEAD, "shortName", "longName", "marketState", "regularMarketChangePercent",
          "regularMarketPrice", "currency", "exchange", "messageBoardId", *_ZONE,
          "corporateActions", *_PRE, *_POST, *_DAY, "financialCurrency", "regularMarketOpen",
          "averageDailyVolume3Month", "averageDailyVolume10Day", *_FIFTY_TWO,
          "trailingAnnualDividendRate", "trailingPE", "trailingAnnualDividendYield",
          "dividendYield", "ytdReturn", "trailingThreeMonthReturns",
          "trailingThreeMonthNavReturns", "netAssets", "epsTrailingTwelveMonths",
          "sharesOutstanding", "bookValue", *_AVERAGES, "netExpenseRatio", "marketCap",
          "priceToBook", "sourceInterval", "exchangeDataDelayedBy", "hasPrePostMarketData",
          "firstTradeDateMilliseconds", "priceHint", "tradeable", "cryptoTradeable", "symbol"),
    MUTUALFUND: (*_HEAD, "shortName", "longName", "marketState", "regularMarketChangePercent",
                 "regularMarketPrice", "currency", "exchange", "exchangeTimezoneName",
                 "exchangeTimezoneShortName", "gmtOffSetMilliseconds", "market", "esgPopulated",
                 "corporateActions", "regularMarketTime", "regularMarketChange",
                 "regularMarketPreviousClose", "fullExchangeName", "averageDailyVolume3Month",
                 "averageDailyVolume10Day", *_FIFTY_TWO, "dividendRate", "dividendYield",
                 "ytdReturn", "trailingThreeMonthReturns", *_AVERAGES, "sourceInterval",
                 "exchangeDataDelayedBy", "hasPrePostMarketData", "firstTradeDateMilliseconds",
                 "priceHint", "tradeable", "cryptoTradeable", "symbol"),
    CURRENCY: (*_HEAD, "currency", "fiftyDayAverage", "twoHundredDayAverage", "shortName",
               "longName", "regularMarketChangePercent", "regularMarketPrice",
               "regularMarketChange", "regularMarketDayHigh", "regularMarketDayLow",
               "regularMarketPreviousClose", "bid", "ask", "regularMarketOpen",
               "fiftyTwoWeekLow", "fiftyTwoWeekHigh", "tradeable", "cryptoTradeable",
               "fiftyDayAverageChange", "fiftyDayAverageChangePercent",
               "twoHundredDayAverageChange", "twoHundredDayAverageChangePercent",
               "sourceInterval", "exchangeDataDelayedBy", "marketState", "corporateActions",
               "regularMarketTime", "exchange", "messageBoardId", *_ZONE,
               "hasPrePostMarketData", "firstTradeDateMilliseconds", "priceHint",
               "regularMarketDayRange", "regularMarketVolume", "bidSize", "askSize",
               "fullExchangeName", "averageDailyVolume3Month", "averageDailyVolume10Day",
               "fiftyTwoWeekLowChange", "fiftyTwoWeekLowChangePercent", "fiftyTwoWeekRange",
               "fiftyTwoWeekHighChange", "fiftyTwoWeekHighChangePercent",
               "fiftyTwoWeekChangePercent", "symbol"),
    CRYPTO: (*_HEAD, "currency", "longName", "shortName", "exchange", "messageBoardId", *_ZONE,
             "marketState", "regularMarketTime", "corporateActions",
             "regularMarketChangePercent", "regularMarketPrice", "hasPrePostMarketData",
             "firstTradeDateMilliseconds", "priceHint", "circulatingSupply", "lastMarket",
             "volume24Hr", "volumeAllCurrencies", "fromCurrency", "toCurrency",
             "coinMarketCapLink", "regularMarketChange", "regularMarketDayHigh",
             "regularMarketDayRange", "regularMarketDayLow", "regularMarketVolume",
             "regularMarketPreviousClose", "fullExchangeName", "regularMarketOpen",
             "averageDailyVolume3Month", "averageDailyVolume10Day", "startDate",
             "coinImageUrl", "logoUrl", *_FIFTY_TWO, *_AVERAGES, "marketCap", "sourceInterval",
             "exchangeDataDelayedBy", "tradeable", "cryptoTradeable", "symbol"),
    INDEX: (*_HEAD, "currency", "corporateActions", "regularMarketTime", "exchange",
            "messageBoardId", *_ZONE, "sourceInterval", "exchangeDataDelayedBy", "tradeable",
            "cryptoTradeable", "hasPrePostMarketData", "firstTradeDateMilliseconds",
            "priceHint", *_DAY, "regularMarketOpen", "averageDailyVolume3Month",
            "averageDailyVolume10Day", *_FIFTY_TWO, *_AVERAGES, "marketState",
            "regularMarketChangePercent", "regularMarketPrice", "shortName", "longName",
            "symbol"),
    FUTURE: (*_HEAD, "headSymbolAsString", "contractSymbol", "regularMarketChangePercent",
             "regularMarketPrice", *_ZONE, "shortName", "marketState", "corporateActions",
             "regularMarketTime", "underlyingSymbol", "currency", "underlyingExchangeSymbol",
             "exchange", "expireDate", "expireIsoDate", *_AVERAGES, "sourceInterval",
             "exchangeDataDelayedBy", "tradeable", "cryptoTradeable", "hasPrePostMarketData",
             "firstTradeDateMilliseconds", "priceHint", *_DAY, "regularMarketOpen",
             "averageDailyVolume3Month", "averageDailyVolume10Day", *_FIFTY_TWO,
             "openInterest", "symbol"),
}

# Keys Yahoo returns whatever ``fields`` asks for.
BASE_FIELDS = frozenset({
    "language", "region", "quoteType", "typeDisp", "quoteSourceName", "triggerable",
    "customPriceAlertConfidence", "regularMarketTime", "exchange", "marketState",
    "sourceInterval", "exchangeDataDelayedBy", "tradeable", "cryptoTradeable",
    "hasPrePostMarketData", "firstTradeDateMilliseconds", "fullExchangeName",
    "exchangeTimezoneName", "exchangeTimezoneShortName", "gmtOffSetMilliseconds", "market",
    "esgPopulated", "regularMarketPrice", "priceHint", "displayName", "symbol",
})


def _fmt_range(lo: float, hi: float) -> str:
    return f"{float(lo)!r} - {float(hi)!r}"


def quote_values(view: MarketView) -> dict[str, Any]:
    """Every v7 value the instrument has (the template picks and orders them)."""
    inst, snap, r = view.inst, view.snap, view.r
    price = snap.price
    vals: dict[str, Any] = {
        "language": "en-US", "region": "US", "quoteType": inst.kind,
        "typeDisp": TYPE_DISP[inst.kind], "quoteSourceName": inst.exchange.quote_source,
        "triggerable": inst.kind != FUTURE,
        "customPriceAlertConfidence": "NONE" if inst.kind == FUTURE else "HIGH",
        "shortName": inst.short_name, "marketState": snap.state,
        "regularMarketChangePercent": round(snap.change_fraction * 100, 6),
        "regularMarketPrice": price, "currency": inst.currency,
        "exchange": inst.exchange.code, "messageBoardId": view.message_board_id,
        "exchangeTimezoneName": inst.tz, "exchangeTimezoneShortName": view.tz_short,
        "gmtOffSetMilliseconds": view.gmt_offset * 1000, "market": inst.exchange.market,
        "esgPopulated": False, "corporateActions": [], "regularMarketTime": snap.market_time,
        "regularMarketChange": r(snap.change), "regularMarketDayHigh": snap.high,
        "regularMarketDayRange": _fmt_range(snap.low, snap.high),
        "regularMarketDayLow": snap.low, "regularMarketVolume": snap.volume,
        "regularMarketPreviousClose": snap.prev_close, "bid": view.bid, "ask": view.ask,
        "bidSize": view.size("bid"), "askSize": view.size("ask"),
        "fullExchangeName": inst.exchange.full_name, "regularMarketOpen": snap.open,
        "averageDailyVolume3Month": snap.avg_vol_3m,
        "averageDailyVolume10Day": snap.avg_vol_10d,
        "fiftyTwoWeekLowChange": r(price - snap.low_52w),
        "fiftyTwoWeekLowChangePercent": round((price - snap.low_52w) / snap.low_52w, 6),
        "fiftyTwoWeekRange": _fmt_range(snap.low_52w, snap.high_52w),
        "fiftyTwoWeekHighChange": r(price - snap.high_52w),
        "fiftyTwoWeekHighChangePercent": round((price - snap.high_52w) / snap.high_52w, 6),
        "fiftyTwoWeekLow": snap.low_52w, "fiftyTwoWeekHigh": snap.high_52w,
        "fiftyTwoWeekChangePercent": round((price / snap.close_52w_ago - 1) * 100, 6),
        "allTimeHigh": snap.all_time_high, "allTimeLow": snap.all_time_low,
        "fiftyDayAverage": snap.avg50, "fiftyDayAverageChange": r(price - snap.avg50),
        "fiftyDayAverageChangePercent": round((price - snap.avg50) / snap.avg50, 6),
        "twoHundredDayAverage": snap.avg200,
        "twoHundredDayAverageChange": r(price - snap.avg200),
        "twoHundredDayAverageChangePercent": round((price - snap.avg200) / snap.avg200, 6),
        "sourceInterval": 15, "exchangeDataDelayedBy": inst.exchange.delay,
        "hasPrePostMarketData": inst.has_pre_post,
        "firstTradeDateMilliseconds": int(view.series.opens[0]) * 1000,
        "priceHint": inst.price_hint, "tradeable": False,
        "cryptoTradeable": inst.kind == CRYPTO, "symbol": inst.symbol,
    }
    if inst.long_name is not None:
        vals["longName"] = inst.long_name
    if inst.display_name:
        vals["displayName"] = inst.display_name
    if snap.pre is not None:
        pre_price, pre_time = snap.pre
        vals.update(preMarketChange=r(pre_price - price),
                    preMarketChangePercent=round((pre_price / price - 1) * 100, 6),
                    preMarketTime=pre_time, preMarketPrice=pre_price)
    if snap.post is not None:
        post_price, post_time = snap.post
        vals.update(postMarketTime=post_time,
                    postMarketChangePercent=round((post_price / price - 1) * 100, 6),
                    postMarketPrice=post_price, postMarketChange=r(post_price - price))
    if inst.kind in (EQUITY, ETF):
        _equity_values(view, vals)
    elif inst.kind == MUTUALFUND:
        _fund_returns(view, vals)
    elif inst.kind == CRYPTO:
        coin = inst.extra["coin"]
        slug = inst.extra["coin_name"].lower().replace(" ", "-")
        vals.update(circulatingSupply=view.shares, lastMarket="CoinMarketCap",
                    volume24Hr=snap.volume, volumeAllCurrencies=snap.volume, fromCurrency=coin,
                    toCurrency="USD=X",
                    coinMarketCapLink=f"https://coinmarketcap.com/currencies/{slug}",
                    startDate=int(view.series.opens[0]) - 86400 * 365,
                    coinImageUrl=f"https://s.yimg.com/sandbox/coins/64x64/{coin}.png",
                    logoUrl=f"https://s.yimg.com/sandbox/coins/64x64/{coin}.png",
                    marketCap=view.market_cap)
    elif inst.kind == CURRENCY:
        vals.update(bidSize=0, askSize=0)
    elif inst.kind == INDEX:
        vals.update(bid=0.0, ask=0.0, bidSize=0, askSize=0)
    elif inst.kind == FUTURE:
        _future_values(view, vals)
    return vals


def _equity_values(view: MarketView, vals: dict[str, Any]) -> None:
    inst, snap = view.inst, view.snap
    price = snap.price
    eps = view.eps
    divs = view.dividends()
    trailing = view.trailing_dividend_rate
    vals.update(financialCurrency=inst.currency, trailingAnnualDividendRate=trailing,
                trailingAnnualDividendYield=round(trailing / snap.prev_close, 8),
                sharesOutstanding=view.shares, bookValue=view.book_value,
                priceToBook=round(price / view.book_value, 6), marketCap=view.market_cap)
    if eps > 0:
        vals.update(trailingPE=round(price / eps, 6), epsTrailingTwelveMonths=eps)
    if inst.kind == EQUITY:
        last, nxt = view.earnings_dates()
        if divs:
            vals.update(dividendDate=view.ex_date_epoch(divs[-1][0]) + 3 * 86400,
                        dividendRate=view.forward_dividend_rate,
                        dividendYield=round(view.forward_dividend_rate / price * 100, 2))
        if last is not None:
            vals.update(earningsTimestamp=last, earningsCallTimestampStart=last + 1800,
                        earningsCallTimestampEnd=last + 1800)
        if nxt is not None:
            vals.update(earningsTimestampStart=nxt, earningsTimestampEnd=nxt,
                        isEarningsDateEstimate=True)
        ecy = round(eps * 1.06, 4)
        vals.update(epsForward=view.forward_eps, epsCurrentYear=ecy,
                    priceEpsCurrentYear=round(price / ecy, 6) if ecy > 0 else None,
                    forwardPE=round(price / view.forward_eps, 6) if view.forward_eps > 0
                    else None, averageAnalystRating=view.rating)
    else:
        net_assets = round(view.shares * price * (1.0 + unit("na", inst.symbol)))
        vals.update(dividendYield=round(trailing / price * 100, 2), netAssets=net_assets,
                    netExpenseRatio=round(0.03 + 0.7 * unit("er", inst.symbol), 2))
        _fund_returns(view, vals)
    for key in [k for k, v in vals.items() if v is None]:
        del vals[key]


def _fund_returns(view: MarketView, vals: dict[str, Any]) -> None:
    ytd = view.period_return(view.ytd_start())
    three = view.period_return(view.now - 91 * 86400)
    if ytd is not None:
        vals["ytdReturn"] = round(ytd * 100, 5)
    if three is not None:
        vals["trailingThreeMonthReturns"] = round(three * 100, 5)
        if view.inst.kind == ETF:
            vals["trailingThreeMonthNavReturns"] = round(three * 100, 5)
    if view.inst.kind == MUTUALFUND:
        rate = round(view.snap.price * 0.007, 5)
        vals.update(dividendRate=rate, dividendYield=0.7)


def _future_values(view: MarketView, vals: dict[str, Any]) -> None:
    from datetime import UTC, datetime

    now = datetime.fromtimestamp(view.now, UTC)
    month = now.month + 2
    year = now.year + (month - 1) // 12
    month = (month - 1) % 12 + 1
    expire = datetime(year, month, 27, tzinfo=UTC)
    codes = "FGHJKMNQUVXZ"
    root = view.inst.extra["root"]
    contract = f"{root}{codes[month - 1]}{year % 100:02d}.{view.inst.exchange.code}"
    vals.update(headSymbolAsString=view.inst.symbol, contractSymbol=False,
                underlyingSymbol=contract, underlyingExchangeSymbol=contract,
                expireDate=int(expire.timestamp()),
                expireIsoDate=expire.strftime("%Y-%m-%dT%H:%M:%SZ"),
                openInterest=int(view.snap.avg_vol_3m * 40))


LOGO_FIELDS = ("logoUrl", "companyLogoUrl")
_LOGO_KINDS = (EQUITY, ETF, MUTUALFUND)


def logo_values(view: MarketView, size: tuple[int, int]) -> dict[str, str]:
    """Deterministic logo image URLs of an instrument that has a brand (equities and funds;
    a coin's ``logoUrl`` is its coin image, already among its values)."""
    inst = view.inst
    if inst.kind not in _LOGO_KINDS:
        return {}
    height, width = size
    slug = inst.symbol.lower().replace("^", "").replace("=", "-")
    base = f"https://s.yimg.com/sandbox/logos/{height}x{width}"
    return {"logoUrl": f"{base}/{slug}.png", "companyLogoUrl": f"{base}/company/{slug}.png"}


def quote_object(view: MarketView, fields: set[str] | None = None,
                 logo_size: tuple[int, int] = (50, 50)) -> dict[str, Any]:
    """One result object, keys in Yahoo's order for the quote type. The logo fields are
    only sent when ``fields`` asks for them (as Yahoo does, sized by imgHeights/imgWidths)."""
    vals = quote_values(view)
    template = TEMPLATES[view.inst.kind]
    if fields is not None:
        wanted = BASE_FIELDS | fields
        out = {k: vals[k] for k in template if k in vals and k in wanted}
        if wanted & set(LOGO_FIELDS):
            logos = {**logo_values(view, logo_size),
                     **{k: vals[k] for k in LOGO_FIELDS if k in vals}}
            out.update({k: logos[k] for k in LOGO_FIELDS if k in wanted and k in logos})
        return out
    return {k: vals[k] for k in template if k in vals}


# formatted=true: which v7 numbers Yahoo sends bare, and how it formats the others.
_BARE = frozenset({"sourceInterval", "exchangeDataDelayedBy", "gmtOffSetMilliseconds",
                   "firstTradeDateMilliseconds"})
_BIG = frozenset({"regularMarketVolume", "averageDailyVolume3Month", "averageDailyVolume10Day",
                  "marketCap", "sharesOutstanding", "netAssets", "circulatingSupply",
                  "volume24Hr", "volumeAllCurrencies", "openInterest"})


def _formatted(key: str, value: Any, dp: int) -> Any:
    """A v7 value as Yahoo sends it with formatted=true."""
    if isinstance(value, bool) or not isinstance(value, int | float) or key in _BARE:
        return value
    if key.endswith("Percent") or key == "dividendYield":
        return {"raw": value, "fmt": f"{value:.2f}%"}
    if key.endswith(("Time", "Date", "Timestamp", "TimestampStart", "TimestampEnd")) \
            or key in ("startDate", "expireDate"):
        return fmt.render(fmt.day(int(value)), True)
    if key in _BIG:
        return fmt.render(fmt.big(value), True)
    if key in ("priceHint", "bidSize", "askSize"):
        return fmt.render(fmt.integer(int(value)), True)
    return fmt.render(fmt.num(float(value), dp), True)


def format_quote_object(obj: dict[str, Any], price_hint: int) -> dict[str, Any]:
    dp = max(2, price_hint)
    return {k: _formatted(k, v, dp) for k, v in obj.items()}


def handle_quote(req: Request) -> SandboxResponse:
    raw = ",".join(req.query.get("symbols", []))
    symbols = [s.strip().upper() for s in raw.split(",") if s.strip()]
    if not symbols:
        return finance_error("Bad Request", 'Missing value for the "symbols" argument', 400)
    fields_raw = req.arg("fields")
    fields = {f.strip() for f in fields_raw.split(",") if f.strip()} if fields_raw else None
    formatted = (req.arg("formatted", "false") or "false").lower() == "true"
    logo_size = (req.int_arg("imgHeights", 50) or 50, req.int_arg("imgWidths", 50) or 50)
    now = req.now()
    seen: set[str] = set()
    result = []
    for symbol in symbols:
        if symbol in seen:
            continue
        seen.add(symbol)
        inst = get_instrument(symbol)
        if inst is None:
            continue
        obj = quote_object(market_view(get_series(inst), now), fields, logo_size)
        result.append(format_quote_object(obj, inst.price_hint) if formatted else obj)
    return json_response({"quoteResponse": {"result": result, "error": None}})
