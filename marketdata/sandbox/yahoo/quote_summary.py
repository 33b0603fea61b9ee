"""GET /v10/finance/quoteSummary/{symbol}?modules=...&formatted=true|false.

Why: full quotes, profiles and key statistics are parsed from these modules. Each module
is one builder returning typed values (``fmt.V``) so ``formatted=true`` ({raw, fmt,
longFmt}) and ``formatted=false`` (bare numbers) always agree. Modules that do not apply
to a quote type are left out of the result, as Yahoo does; names Yahoo knows but the
sandbox does not build are left out too; unknown names are a 400.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from marketdata.sandbox.instruments import (
    CRYPTO,
    EQUITY,
    ETF,
    MUTUALFUND,
    Instrument,
    get_instrument,
    pick,
    unit,
)
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo import analysis_modules, fmt, report_modules
from marketdata.sandbox.yahoo.chart import split_sessions
from marketdata.sandbox.yahoo.common import Request, error_response, json_response
from marketdata.sandbox.yahoo.market import MarketView, is_fund, market_view
from marketdata.sandbox.yahoo.quote import quote_values

# Module names Yahoo accepts; the sandbox builds the ones in BUILDERS.
KNOWN_MODULES = frozenset({
    "assetProfile", "balanceSheetHistory", "balanceSheetHistoryQuarterly", "calendarEvents",
    "cashflowStatementHistory", "cashflowStatementHistoryQuarterly", "components",
    "corporateActions", "defaultKeyStatistics", "earnings", "earningsCallAudios",
    "earningsCallTranscripts", "earningsGaap", "earningsHistory", "earningsNonGaap",
    "earningsTrend", "equityPerformance", "esgScores", "financialData", "financialsTemplate",
    "fundOwnership", "fundPerformance", "fundProfile", "incomeStatementHistory",
    "incomeStatementHistoryQuarterly", "indexTrend", "industryTrend", "insiderHolders",
    "insiderTransactions", "institutionOwnership", "majorDirectHolders",
    "majorHoldersBreakdown", "netSharePurchaseActivity", "pageViews", "price", "quoteType",
    "quoteUnadjustedPerformanceOverview", "recommendationTrend", "secFilings", "sectorTrend",
    "summaryDetail", "summaryProfile", "topHoldings", "upgradeDowngradeHistory",
})

_CURRENCY_SYMBOLS = {"USD": "$", "CAD": "$", "AUD": "$", "EUR": "€", "GBp": "£", "GBP": "£",
                     "JPY": "¥", "HKD": "HK$", "CHF": "CHF", "IDR": "Rp", "TRY": "₺"}
_COUNTRIES = {"LSE": ("United Kingdom", "44 20 7946 0000"), "HKG": ("Hong Kong",
                                                                    "852 2345 6789"),
              "GER": ("Germany", "49 89 1234 5678"), "TOR": ("Canada", "416 555 0100"),
              "JKT": ("Indonesia", "62 21 555 0100"), "IST": ("Turkey", "90 212 555 0100"),
              "MIL": ("Italy", "39 02 555 0100"), "PAR": ("France", "33 1 55 55 01 00"),
              "AMS": ("Netherlands", "31 20 555 0100"), "EBS": ("Switzerland",
                                                                "41 44 555 0100"),
              "JPX": ("Japan", "81 3 5555 0100"), "ASX": ("Australia", "61 2 5555 0100")}
_OFFICER_TITLES = ("CEO & Director", "CFO & Senior VP", "Chief Operating Officer",
                   "General Counsel & Secretary", "Chief Technology Officer")
_FIRST = (("James", "Robert", "David", "Daniel", "Paul"),
          ("Maria", "Linda", "Susan", "Karen", "Nancy"))
_LAST = ("Walker", "Chen", "Garcia", "Patel", "Miller", "Novak", "Okafor", "Rossi", "Klein",
         "Tanaka")


def _pday(epoch: int | None) -> fmt.V:
    return fmt.day(epoch)


def _utc_midnight(epoch: int) -> int:
    d = datetime.fromtimestamp(epoch, UTC).date()
    return int(datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp())


# --- modules --------------------------------------------------------------------------------

def price_module(view: MarketView) -> dict[str, Any]:
    inst, snap, dp = view.inst, view.snap, view.dp
    q = quote_values(view)
    out: dict[str, Any] = {"maxAge": 1}
    if snap.pre is not None:
        out.update(preMarketChangePercent=fmt.pct(round(q["preMarketChangePercent"] / 100, 8)),
                   preMarketChange=fmt.price(q["preMarketChange"], dp),
                   preMarketTime=snap.pre[1], preMarketPrice=fmt.price(snap.pre[0], dp),
                   preMarketSource="FREE_REALTIME")
    if snap.post is not None:
        out.update(postMarketChangePercent=fmt.pct(round(q["postMarketChangePercent"] / 100,
                                                         8)),
                   postMarketChange=fmt.price(q["postMarketChange"], dp),
                   postMarketTime=snap.post[1], postMarketPrice=fmt.price(snap.post[0], dp),
                   postMarketSource="FREE_REALTIME")
    source = "FREE_REALTIME" if inst.exchange.delay == 0 else "DELAYED"
    out.update(regularMarketChangePercent=fmt.pct(round(snap.change_fraction, 8)),
               regularMarketChange=fmt.price(view.r(snap.change), dp),
               regularMarketTime=snap.market_time, priceHint=fmt.integer(inst.price_hint),
               regularMarketPrice=fmt.price(snap.price, dp))
    if inst.kind != MUTUALFUND:
        out.update(regularMarketDayHigh=fmt.price(snap.high, dp),
                   regularMarketDayLow=fmt.price(snap.low, dp),
                   regularMarketVolume=fmt.big(snap.volume),
                   averageDailyVolume10Day=fmt.big(snap.avg_vol_10d),
                   averageDailyVolume3Month=fmt.big(snap.avg_vol_3m))
    out["regularMarketPreviousClose"] = fmt.price(snap.prev_close, dp)
    out["regularMarketSource"] = source
    if inst.kind != MUTUALFUND:
        out["regularMarketOpen"] = fmt.price(snap.open, dp)
    crypto = inst.kind == CRYPTO
    out.update(exchange=inst.exchange.code, exchangeName=inst.exchange.full_name,
               exchangeDataDelayedBy=inst.exchange.delay, marketState=snap.state,
               quoteType=inst.kind, symbol=inst.symbol, underlyingSymbol=None,
               shortName=inst.short_name, longName=inst.long_name or inst.short_name,
               currency=inst.currency, quoteSourceName=inst.exchange.quote_source,
               currencySymbol=_CURRENCY_SYMBOLS.get(inst.currency, inst.currency),
               fromCurrency=inst.extra["coin"] if crypto else None,
               toCurrency="USD=X" if crypto else None,
               lastMarket="CoinMarketCap" if crypto else None)
    if crypto:
        out.update(volume24Hr=fmt.big(snap.volume), volumeAllCurrencies=fmt.big(snap.volume),
                   circulatingSupply=fmt.big(view.shares))
    if view.market_cap is not None:
        out["marketCap"] = fmt.big(view.market_cap)
    return out


def summary_detail(view: MarketView) -> dict[str, Any]:
    inst, snap, dp = view.inst, view.snap, view.dp
    q = quote_values(view)
    p = lambda x: fmt.price(x, dp)  # noqa: E731 - local shorthand
    out: dict[str, Any] = {
        "maxAge": 1, "priceHint": fmt.integer(inst.price_hint),
        "previousClose": p(snap.prev_close), "open": p(snap.open), "dayLow": p(snap.low),
        "dayHigh": p(snap.high), "regularMarketPreviousClose": p(snap.prev_close),
        "regularMarketOpen": p(snap.open), "regularMarketDayLow": p(snap.low),
        "regularMarketDayHigh": p(snap.high),
    }
    divs = view.dividends()
    if inst.kind == EQUITY:
        if divs:
            rate = view.forward_dividend_rate
            out.update(dividendRate=fmt.num(rate), dividendYield=fmt.pct(round(rate / snap.price,
                                                                               4)),
                       exDividendDate=_pday(view.ex_date_epoch(divs[-1][0])),
                       payoutRatio=fmt.pct(round(min(rate / view.eps, 2.0), 4) if view.eps > 0
                                           else 0.0),
                       fiveYearAvgDividendYield=fmt.num(round(rate / snap.price * 100 * 1.1,
                                                              2)))
        out["beta"] = fmt.num(view.beta)
        if "trailingPE" in q:
            out["trailingPE"] = fmt.num(q["trailingPE"])
        if "forwardPE" in q:
            out["forwardPE"] = fmt.num(q["forwardPE"])
    elif inst.kind == ETF and "trailingPE" in q:
        out["trailingPE"] = fmt.num(q["trailingPE"])
    if inst.kind != MUTUALFUND:
        out.update(volume=fmt.big(snap.volume), regularMarketVolume=fmt.big(snap.volume),
                   averageVolume=fmt.big(snap.avg_vol_3m),
                   averageVolume10days=fmt.big(snap.avg_vol_10d),
                   averageDailyVolume10Day=fmt.big(snap.avg_vol_10d))
    if inst.kind not in (CRYPTO, MUTUALFUND):
        out.update(bid=p(q["bid"]), ask=p(q["ask"]), bidSize=fmt.big(q["bidSize"]),
                   askSize=fmt.big(q["askSize"]))
    if is_fund(inst):
        out.update(**{"yield": fmt.pct(round(view.trailing_dividend_rate / snap.price, 4))},
                   totalAssets=fmt.big(_total_assets(view)))
    elif view.market_cap is not None:
        out["marketCap"] = fmt.big(view.market_cap)
    out.update(fiftyTwoWeekLow=p(snap.low_52w), fiftyTwoWeekHigh=p(snap.high_52w),
               allTimeHigh=p(snap.all_time_high), allTimeLow=p(snap.all_time_low))
    if inst.kind == EQUITY and view.eps > 0:
        revenue = view.eps * view.shares * (4 + 6 * unit("ps", inst.symbol))
        out["priceToSalesTrailing12Months"] = fmt.num(round(view.market_cap / revenue, 6)
                                                      if view.market_cap else None)
    out.update(fiftyDayAverage=p(snap.avg50), twoHundredDayAverage=p(snap.avg200))
    if inst.kind in (EQUITY, ETF):
        rate = view.trailing_dividend_rate
        out.update(trailingAnnualDividendRate=fmt.num(rate),
                   trailingAnnualDividendYield=fmt.pct(round(rate / snap.prev_close, 8)))
    if is_fund(inst):
        out["navPrice"] = p(snap.prev_close if inst.kind == ETF else snap.price)
    crypto = inst.kind == CRYPTO
    out.update(currency=inst.currency, fromCurrency=inst.extra["coin"] if crypto else None,
               toCurrency="USD=X" if crypto else None,
               lastMarket="CoinMarketCap" if crypto else None,
               coinMarketCapLink=q.get("coinMarketCapLink"))
    if crypto:
        out.update(volume24Hr=fmt.big(snap.volume), volumeAllCurrencies=fmt.big(snap.volume),
                   circulatingSupply=fmt.big(view.shares), algorithm=None,
                   startDate=_pday(q["startDate"]))
    else:
        out["algorithm"] = None
    out["tradeable"] = False
    return out


def _total_assets(view: MarketView) -> int:
    return int(_log_scale(view.inst, "assets", 5e8, 5e11))


def _log_scale(inst: Instrument, tag: str, lo: float, hi: float) -> float:
    import math

    return math.exp(math.log(lo) + unit(tag, inst.symbol) * (math.log(hi) - math.log(lo)))


def _officers(inst: Instrument) -> list[dict[str, Any]]:
    out = []
    for k, title in enumerate(_OFFICER_TITLES[:3 + inst.seed % 3]):
        age = 45 + int(unit("age", inst.symbol, k) * 20)
        officer: dict[str, Any] = {
            "maxAge": 1,
            "name": f"{'Mr.' if k % 2 == 0 else 'Ms.'} {pick(_FIRST[k % 2], 'fn', inst.symbol, k)} "
                    f"{pick(_LAST, 'ln', inst.symbol, k)}",
            "age": age, "title": title, "yearBorn": 2024 - age, "fiscalYear": 2024}
        if k < 3:
            pay = int(_log_scale(inst, f"pay{k}", 6e5, 2e7))
            officer["totalPay"] = {"raw": pay, "fmt": fmt.abbreviate(pay),
                                   "longFmt": f"{pay:,}"}
        officer["exercisedValue"] = {"raw": 0, "fmt": None, "longFmt": "0"}
        officer["unexercisedValue"] = {"raw": 0, "fmt": None, "longFmt": "0"}
        out.append(officer)
    return out


def _summary_text(inst: Instrument) -> str:
    if inst.kind == ETF:
        return (f"The fund seeks to track the investment results of an index composed of "
                f"securities selected by {inst.long_name}. It invests at least 80% of its "
                "assets in the component securities of the underlying index.")
    if inst.kind == MUTUALFUND:
        return (f"{inst.long_name} seeks long-term capital appreciation by investing "
                "primarily in a diversified portfolio of equity securities.")
    return (f"{inst.long_name} operates in the {(inst.industry or 'diversified').lower()} "
            f"industry within the {(inst.sector or 'industrial').lower()} sector. The company "
            "designs, develops and sells products and services to customers worldwide "
            "through direct and indirect channels. (Synthetic sandbox profile.)")


def _company_header(inst: Instrument) -> dict[str, Any]:
    domain = (inst.long_name or inst.symbol).split()[0].lower().strip(",.")
    out: dict[str, Any] = {"address1": f"{100 + inst.seed % 9000} Market Street"}
    country = _COUNTRIES.get(inst.exchange.code)
    if country is None:
        city, state, zip_ = pick(
            (("Austin", "TX", "78701"), ("San Jose", "CA", "95113"), ("Boston", "MA", "02110"),
             ("Chicago", "IL", "60601"), ("New York", "NY", "10017"),
             ("Seattle", "WA", "98101")), "city", inst.symbol)
        out.update(city=city, state=state, zip=zip_, country="United States",
                   phone=f"({200 + inst.seed % 700}) 555-{inst.seed % 10000:04d}")
    else:
        out.update(city="Capital City", zip=f"{inst.seed % 100000:05d}", country=country[0],
                   phone=country[1])
    sector, industry = inst.sector or "Industrials", inst.industry or "Conglomerates"
    key = lambda s: s.lower().replace(" & ", "-").replace(" - ", "-").replace(" ", "-")  # noqa: E731
    out.update(website=f"https://www.{domain}.example.com", industry=industry,
               industryKey=key(industry), industryDisp=industry, sector=sector,
               sectorKey=key(sector), sectorDisp=sector,
               longBusinessSummary=_summary_text(inst),
               fullTimeEmployees=int(_log_scale(inst, "emp", 300, 200000)))
    return out


def asset_profile(view: MarketView) -> dict[str, Any] | None:
    inst = view.inst
    if inst.kind == EQUITY:
        out = _company_header(inst)
        year_start = int(datetime(datetime.fromtimestamp(view.now, UTC).year, 1, 1,
                                  tzinfo=UTC).timestamp())
        out.update(companyOfficers=_officers(inst), auditRisk=1 + inst.seed % 10,
                   boardRisk=1 + (inst.seed >> 4) % 10, compensationRisk=1 + (inst.seed >> 8) % 10,
                   shareHolderRightsRisk=1 + (inst.seed >> 12) % 10,
                   overallRisk=1 + (inst.seed >> 16) % 10, governanceEpochDate=year_start,
                   compensationAsOfEpochDate=year_start - 366 * 86400,
                   irWebsite=f"http://investor.{out['website'].split('www.')[1]}/",
                   executiveTeam=[], maxAge=86400)
        return out
    return _light_profile(view)


def _light_profile(view: MarketView) -> dict[str, Any] | None:
    inst = view.inst
    if is_fund(inst):
        return {"longBusinessSummary": _summary_text(inst), "companyOfficers": [],
                "executiveTeam": [], "maxAge": 86400}
    if inst.kind == CRYPTO:
        start = datetime.fromtimestamp(int(view.series.opens[0]) - 365 * 86400, UTC)
        name = inst.extra["coin_name"]
        return {"companyOfficers": [], "name": name, "startDate": start.strftime("%Y-%m-%d"),
                "description": f"{name} ({inst.extra['coin']}) is a cryptocurrency. "
                               "(Synthetic sandbox profile.)",
                "executiveTeam": [], "maxAge": 86400}
    return None


def summary_profile(view: MarketView) -> dict[str, Any] | None:
    inst = view.inst
    if inst.kind == EQUITY:
        out = _company_header(inst)
        domain = out["website"].split("www.")[1]
        out.update(companyOfficers=[], irWebsite=f"http://investor.{domain}/",
                   executiveTeam=[], maxAge=86400)
        return out
    return _light_profile(view)


def _last_split(view: MarketView) -> dict[str, Any]:
    """``lastSplitFactor`` ("4:1") and ``lastSplitDate`` (the ex-date, 00:00 UTC) of the
    last split gone ex by now, as the chart's split events give them."""
    past = [(k, num, den) for k, num, den in split_sessions(view.inst.symbol)
            if k <= view.snap.index]
    if not past:
        return {"lastSplitFactor": None, "lastSplitDate": _pday(None)}
    k, num, den = past[-1]
    return {"lastSplitFactor": f"{num}:{den}", "lastSplitDate": _pday(view.ex_date_epoch(k))}


def default_key_statistics(view: MarketView) -> dict[str, Any] | None:
    inst, snap = view.inst, view.snap
    if inst.kind == EQUITY:
        shares = view.shares
        cap = view.market_cap or 0
        eps = view.eps
        net_income = int(eps * shares)
        revenue = max(net_income, 1) * (4 + 6 * unit("ps", inst.symbol))
        ev = int(cap * (1.0 + 0.05 * unit("ev", inst.symbol)))
        now_d = datetime.fromtimestamp(view.now, UTC)
        fy_end = int(datetime(now_d.year - 1, 9, 28, tzinfo=UTC).timestamp())
        short = int(shares * 0.01 * (0.5 + unit("short", inst.symbol)))
        divs = view.dividends()
        ret52 = view.period_return(view.now - 365 * 86400)
        sp = _sp500_return(view.now)
        out: dict[str, Any] = {
            "maxAge": 1, "priceHint": fmt.integer(inst.price_hint),
            "enterpriseValue": fmt.big(ev),
            "forwardPE": fmt.num(round(snap.price / view.forward_eps, 6)
                                 if view.forward_eps > 0 else None),
            "profitMargins": fmt.pct(round(net_income / revenue, 5)),
            "floatShares": fmt.big(int(shares * 0.98)), "sharesOutstanding": fmt.big(shares),
            "sharesShort": fmt.big(short), "sharesShortPriorMonth": fmt.big(int(short * 1.1)),
            "sharesShortPreviousMonthDate": _pday(_utc_midnight(view.now - 45 * 86400)),
            "dateShortInterest": _pday(_utc_midnight(view.now - 15 * 86400)),
            "sharesPercentSharesOut": fmt.pct(round(short / shares, 4)),
            "heldPercentInsiders": fmt.pct(round(0.3 * unit("ins", inst.symbol), 5)),
            "heldPercentInstitutions": fmt.pct(round(0.4 + 0.5 * unit("inst", inst.symbol),
                                                     5)),
            "shortRatio": fmt.num(round(short / max(snap.avg_vol_3m, 1), 2)),
            "shortPercentOfFloat": fmt.pct(round(short / (shares * 0.98), 4)),
            "beta": fmt.num(view.beta), "impliedSharesOutstanding": fmt.big(shares),
            "category": None, "bookValue": fmt.num(view.book_value, 3),
            "priceToBook": fmt.num(round(snap.price / view.book_value, 6)),
            "fundFamily": None, "legalType": None,
            "lastFiscalYearEnd": _pday(fy_end), "nextFiscalYearEnd": _pday(fy_end + 365 * 86400),
            "mostRecentQuarter": _pday(_utc_midnight(view.now - 60 * 86400)),
            "earningsQuarterlyGrowth": fmt.pct(round(-0.1 + 0.4 * unit("eqg", inst.symbol), 3)),
            "netIncomeToCommon": fmt.big(net_income), "trailingEps": fmt.num(eps),
            "forwardEps": fmt.num(view.forward_eps), **_last_split(view),
            "enterpriseToRevenue": fmt.num(round(ev / revenue, 3)),
            "enterpriseToEbitda": fmt.num(round(ev / (revenue * 0.3), 3)),
            "52WeekChange": fmt.pct(ret52), "SandP52WeekChange": fmt.pct(sp),
        }
        if divs:
            out.update(lastDividendValue=fmt.num(divs[-1][1]),
                       lastDividendDate=_pday(view.ex_date_epoch(divs[-1][0])))
        out.update(latestShareClass=None, leadInvestor=None)
        return out
    if is_fund(inst):
        three = view.period_return(view.now - 3 * 365 * 86400)
        five = view.period_return(view.now - 5 * 365 * 86400)
        return {
            "maxAge": 1, "priceHint": fmt.integer(inst.price_hint),
            "category": pick(("Large Blend", "Large Growth", "Large Value", "Mid-Cap Blend",
                              "Technology"), "cat", inst.symbol),
            "ytdReturn": fmt.pct(view.period_return(view.ytd_start())),
            "beta3Year": fmt.num(round(0.8 + 0.4 * unit("b3", inst.symbol), 2)),
            "totalAssets": fmt.big(_total_assets(view)),
            "yield": fmt.pct(round(view.trailing_dividend_rate / snap.price, 4)),
            "fundFamily": (inst.long_name or "Sandbox").split()[0],
            "fundInceptionDate": _pday(_utc_midnight(int(view.series.opens[0]))),
            "legalType": "Exchange Traded Fund" if inst.kind == ETF else None,
            "morningStarOverallRating": fmt.num(float(1 + inst.seed % 5), 0),
            "morningStarRiskRating": fmt.num(float(1 + (inst.seed >> 3) % 5), 0),
            "annualReportExpenseRatio": fmt.pct(round(0.0003 + 0.007 * unit("er", inst.symbol),
                                                      4)),
            "threeYearAverageReturn": fmt.pct(None if three is None else
                                              round((1 + three) ** (1 / 3) - 1, 6)),
            "fiveYearAverageReturn": fmt.pct(None if five is None else
                                             round((1 + five) ** (1 / 5) - 1, 6)),
            "lastSplitFactor": None, "latestShareClass": None, "leadInvestor": None,
        }
    return None


def _sp500_return(now: int) -> float | None:
    inst = get_instrument("^GSPC")
    assert inst is not None
    return market_view(get_series(inst), now).period_return(now - 365 * 86400)


def fund_profile(view: MarketView) -> dict[str, Any] | None:
    inst = view.inst
    if not is_fund(inst):
        return None
    er = round(0.0003 + 0.007 * unit("er", inst.symbol), 4)
    category = default_key_statistics(view)["category"]  # type: ignore[index]
    assets = round(_total_assets(view) / 1e6, 2)
    return {
        "maxAge": 1, "styleBoxUrl": "https://s.yimg.com/lq/i/fi/3_0stylelargeeq2.gif",
        "family": (inst.long_name or "Sandbox").split()[0], "categoryName": category,
        "legalType": "Exchange Traded Fund" if inst.kind == ETF else None,
        "managementInfo": {"managerName": None, "managerBio": None},
        "feesExpensesInvestment": {"annualReportExpenseRatio": fmt.pct(er),
                                   "annualHoldingsTurnover": fmt.pct(0.08),
                                   "totalNetAssets": fmt.num(assets), "projectionValues": {}},
        "feesExpensesInvestmentCat": {"annualReportExpenseRatio": fmt.pct(0.0093),
                                      "annualHoldingsTurnover": fmt.pct(0.48),
                                      "totalNetAssets": fmt.num(assets),
                                      "projectionValuesCat": {}},
        "brokerages": [],
    }


def calendar_events(view: MarketView) -> dict[str, Any] | None:
    inst = view.inst
    if inst.kind != EQUITY:
        return None
    last, nxt = view.earnings_dates()
    eps_q = round(view.forward_eps / 4, 5)
    rev = view.eps * view.shares * (4 + 6 * unit("ps", inst.symbol)) / 4
    earnings: dict[str, Any] = {
        "earningsDate": [_pday(nxt)] if nxt else [],
        "earningsCallDate": [_pday(last + 1800)] if last else [],
        "isEarningsDateEstimate": True,
        "earningsAverage": fmt.num(eps_q), "earningsLow": fmt.num(round(eps_q * 0.92, 2)),
        "earningsHigh": fmt.num(round(eps_q * 1.06, 2)),
        "revenueAverage": fmt.big(int(rev)), "revenueLow": fmt.big(int(rev * 0.95)),
        "revenueHigh": fmt.big(int(rev * 1.03)),
    }
    out: dict[str, Any] = {"maxAge": 1, "earnings": earnings}
    divs = view.dividends()
    if divs:
        ex = view.ex_date_epoch(divs[-1][0])
        out.update(exDividendDate=_pday(ex), dividendDate=_pday(ex + 3 * 86400))
    return out


def earnings(view: MarketView) -> dict[str, Any] | None:
    """``earnings``: the last four quarters' EPS (actual vs estimate) and revenue/earnings
    by year and quarter, derived from the instrument's trailing EPS (equities only)."""
    inst = view.inst
    if inst.kind != EQUITY:
        return None
    now = datetime.fromtimestamp(view.now, UTC)
    quarter = (now.month - 1) // 3  # quarters completed this year
    labels = []
    year, q = now.year, quarter
    for _ in range(4):
        if q == 0:
            year, q = year - 1, 4
        labels.append((q, year))
        q -= 1
    labels.reverse()
    eps_q = view.eps / 4
    revenue_q = view.eps * view.shares * (4 + 6 * unit("ps", inst.symbol)) / 4
    quarterly, financial_q = [], []
    for k, (q, year) in enumerate(labels):
        swing = 0.85 + 0.3 * unit("eq", inst.symbol, k)
        actual = round(eps_q * swing, 2)
        estimate = round(actual * (0.96 + 0.06 * unit("ee", inst.symbol, k)), 5)
        # Today's Yahoo adds the quarter labels and the surprise, both as text; the
        # sandbox's fiscal quarters are calendar quarters.
        quarterly.append({"date": f"{q}Q{year}", "actual": fmt.num(actual),
                          "estimate": fmt.num(estimate), "fiscalQuarter": f"{q}Q{year}",
                          "calendarQuarter": f"{q}Q{year}",
                          "difference": f"{actual - estimate:.2f}",
                          "surprisePct": f"{(actual - estimate) / abs(estimate) * 100:.1f}"
                          if estimate else None})
        financial_q.append({"date": f"{q}Q{year}",
                            "revenue": fmt.big(int(revenue_q * swing)),
                            "earnings": fmt.big(int(eps_q * swing * view.shares))})
    yearly = [{"date": now.year - 4 + k,
               "revenue": fmt.big(int(revenue_q * 4 * (0.85 + 0.05 * k))),
               "earnings": fmt.big(int(view.eps * view.shares * (0.85 + 0.05 * k)))}
              for k in range(4)]
    _, nxt = view.earnings_dates()
    next_q, next_year = (labels[-1][0] % 4) + 1, labels[-1][1] + (labels[-1][0] == 4)
    return {"maxAge": 86400, "earningsChart": {
        "quarterly": quarterly, "currentQuarterEstimate": fmt.num(round(view.forward_eps / 4,
                                                                        5)),
        "currentQuarterEstimateDate": f"{next_q}Q", "currentQuarterEstimateYear": next_year,
        "currentCalendarQuarter": f"{next_q}Q{next_year}",
        "currentFiscalQuarter": f"{next_q}Q{next_year}",
        "earningsDate": [_pday(nxt)] if nxt else [], "isEarningsDateEstimate": True},
        "financialsChart": {"yearly": yearly, "quarterly": financial_q},
        "financialCurrency": inst.currency}


def quote_type(view: MarketView) -> dict[str, Any]:
    inst = view.inst
    return {"exchange": inst.exchange.code, "quoteType": inst.kind, "symbol": inst.symbol,
            "underlyingSymbol": inst.symbol, "shortName": inst.short_name,
            "longName": inst.long_name or inst.short_name,
            "firstTradeDateEpochUtc": int(view.series.opens[0]), "timeZoneFullName": inst.tz,
            "timeZoneShortName": view.tz_short, "uuid": view.uuid,
            "messageBoardId": view.message_board_id,
            "gmtOffSetMilliseconds": view.gmt_offset * 1000, "maxAge": 1}


def performance_overview(view: MarketView) -> dict[str, Any]:
    """quoteUnadjustedPerformanceOverview: price returns (fractions) over standard windows."""
    now, series = view.now, view.series
    d = date.fromisoformat(str(series.days[view.snap.index]))
    as_of = int(datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp())
    back = lambda days: view.period_return(now - days * 86400)  # noqa: E731
    first = float(series.o[0])
    return {"maxAge": 1, "performanceOverview": {
        "asOfDate": _pday(as_of),
        "fiveDaysReturn": fmt.pct(back(7)), "oneMonthReturn": fmt.pct(back(30)),
        "threeMonthReturn": fmt.pct(back(91)), "sixMonthReturn": fmt.pct(back(182)),
        "ytdReturnPct": fmt.pct(view.period_return(view.ytd_start())),
        "oneYearTotalReturn": fmt.pct(back(365)),
        "threeYearTotalReturn": fmt.pct(back(3 * 365)),
        "fiveYearTotalReturn": fmt.pct(back(5 * 365)),
        "tenYearTotalReturn": fmt.pct(back(10 * 365)),
        "maxReturn": fmt.pct(round(view.snap.price / first - 1.0, 6) if first else None),
    }}


BUILDERS: dict[str, Callable[[MarketView], dict[str, Any] | None]] = {
    "price": price_module,
    "summaryDetail": summary_detail,
    "assetProfile": asset_profile,
    "summaryProfile": summary_profile,
    "defaultKeyStatistics": default_key_statistics,
    "calendarEvents": calendar_events,
    "earnings": earnings,
    "quoteType": quote_type,
    "quoteUnadjustedPerformanceOverview": performance_overview,
    "fundProfile": fund_profile,
    # analysis (equities) and holders (equities and funds): see analysis_modules
    **analysis_modules.BUILDERS,
    # statements, trends, filings (equities), holdings and performance (funds)
    **report_modules.BUILDERS,
}


def _err(code: str, description: str, status: int) -> SandboxResponse:
    return error_response("quoteSummary", code, description, status)


def handle_quote_summary(req: Request) -> SandboxResponse:
    symbol = req.params["symbol"].upper()
    modules_raw = ",".join(req.query.get("modules", []))
    modules = [m.strip() for m in modules_raw.split(",") if m.strip()]
    if not modules:
        return _err("Bad Request", 'Missing value for the "modules" argument', 400)
    unknown = [m for m in modules if m not in KNOWN_MODULES and m not in BUILDERS]
    if unknown:
        return _err("Bad Request", f"Invalid Module: {unknown[0]}", 400)
    inst = get_instrument(symbol)
    if inst is None:
        return _err("Not Found", f"Quote not found for symbol: {symbol}", 404)
    formatted = (req.arg("formatted", "true") or "true").lower() != "false"
    view = market_view(get_series(inst), req.now())
    result: dict[str, Any] = {}
    for name in dict.fromkeys(modules):
        builder = BUILDERS.get(name)
        body = builder(view) if builder is not None else None
        if body is not None:
            result[name] = fmt.render(body, formatted)
    if not result:
        return _err("Not Found", "No fundamentals data found for any of the summaryTypes="
                    + ",".join(modules), 404)
    return json_response({"quoteSummary": {"result": [result], "error": None}})
