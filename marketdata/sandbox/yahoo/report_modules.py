"""quoteSummary modules of reports and fund portfolios: statement histories, growth trends
and SEC filings of equities; top holdings and performance of funds.

Why: ``/v2/quote`` carries these modules as object members; without them a client testing
against the sandbox would never see their members. Shapes follow today's Yahoo (the
recordings' ``_all-modules``): statement histories carry little beyond ``endDate`` (Yahoo
moved statements to the fundamentals time series), trends are index-level, a fund's
holdings are instruments of the sandbox itself, its returns its own chart's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from marketdata.sandbox.instruments import EQUITY, ETF, US_EXCHANGES, get_instrument, unit
from marketdata.sandbox.yahoo import fmt
from marketdata.sandbox.yahoo.market import MarketView, is_fund

DAY = 86400


def _utc_day(d: date) -> int:
    return int(datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp())


def _quarter_ends(view: MarketView, count: int, annual: bool) -> list[date]:
    """The last ``count`` period ends reported by now, newest first (a quarter is reported a
    month after it ends; fiscal years end on Sep 30, as elsewhere in the sandbox)."""
    today = datetime.fromtimestamp(view.now, UTC).date() - timedelta(days=35)
    q = today.year * 4 + (today.month - 1) // 3 - 1
    ends: list[date] = []
    while len(ends) < count:
        year, month = q // 4, 3 * (q % 4 + 1)
        end = (date(year, month + 1, 1) - timedelta(days=1)) if month < 12 else date(year, 12, 31)
        if not annual or end.month == 9:
            ends.append(end)
        q -= 1
    return ends


# Today's Yahoo lists every income line, empty or zero but revenue and net income.
_INCOME_LINES = ("totalRevenue", "costOfRevenue", "grossProfit", "researchDevelopment",
                 "sellingGeneralAdministrative", "nonRecurring", "otherOperatingExpenses",
                 "totalOperatingExpenses", "operatingIncome", "totalOtherIncomeExpenseNet",
                 "ebit", "interestExpense", "incomeBeforeTax", "incomeTaxExpense",
                 "minorityInterest", "netIncomeFromContinuingOps", "discontinuedOperations",
                 "extraordinaryItems", "effectOfAccountingCharges", "otherItems", "netIncome",
                 "netIncomeApplicableToCommonShares")
_INCOME_ZEROS = ("costOfRevenue", "grossProfit", "totalOperatingExpenses", "ebit",
                 "incomeTaxExpense")


def _statement(view: MarketView, annual: bool, kind: str) -> list[dict[str, Any]]:
    sym = view.inst.symbol
    revenue_q = view.eps * view.shares * (4 + 6 * unit("ps", sym)) / 4
    rows = []
    for k, end in enumerate(_quarter_ends(view, 4, annual)):
        swing = (0.85 + 0.3 * unit("eq", sym, k)) * (4 if annual else 1)
        row: dict[str, Any] = {"maxAge": 1, "endDate": fmt.day(_utc_day(end))}
        if kind == "income":
            row.update({name: fmt.big(None) for name in _INCOME_LINES})
            row.update({name: fmt.big(0) for name in _INCOME_ZEROS})
            row.update(totalRevenue=fmt.big(int(revenue_q * swing)),
                       netIncome=fmt.big(int(view.eps / 4 * swing * view.shares)))
        elif kind == "cashflow":
            row["netIncome"] = fmt.big(int(view.eps / 4 * swing * view.shares))
        rows.append(row)
    return rows


def _statement_module(member: str, kind: str,
                      annual: bool) -> Callable[[MarketView], dict[str, Any] | None]:
    def build(view: MarketView) -> dict[str, Any] | None:
        if view.inst.kind != EQUITY or view.eps <= 0:
            return None
        return {member: _statement(view, annual, kind), "maxAge": 86400}
    return build


def index_trend(view: MarketView) -> dict[str, Any] | None:
    """The S&P 500's consensus growth, the same for every stock (Yahoo's ``SP5``)."""
    if view.inst.kind != EQUITY:
        return None
    periods = ("0q", "+1q", "0y", "+1y", "LTG")
    return {"maxAge": 1, "symbol": "SP5", "estimates": [
        {"period": p, "growth": fmt.pct(round(0.05 + 0.1 * unit("sp5", p), 4))}
        for p in periods]}


def _empty_trend(view: MarketView) -> dict[str, Any] | None:
    # Yahoo sends industry and sector trends without estimates today.
    return {"maxAge": 1, "symbol": None, "estimates": []} if view.inst.kind == EQUITY else None


_FORMS = (("10-Q", "Periodic Financial Reports"), ("8-K", "Corporate Changes & Voting Matters"),
          ("10-K", "Annual Reports"), ("DEF 14A", "Proxy Statements"),
          ("4", "Insider Transactions"))


def sec_filings(view: MarketView) -> dict[str, Any] | None:
    """A US company's recent filings, newest first: quarterly and annual reports at their
    periods' ends plus 40 days, proxy and 8-K filings between them."""
    inst = view.inst
    if inst.kind != EQUITY or inst.exchange.code not in US_EXCHANGES:
        return None
    cik = 1_000_000 + inst.seed % 900_000
    filings: list[tuple[int, dict[str, Any]]] = []
    for k, end in enumerate(_quarter_ends(view, 6, annual=False)):
        filed = end + timedelta(days=40)
        for j, (form, title) in enumerate(_FORMS if k == 0 else _FORMS[:3]):
            if form in ("10-K", "10-Q") and (form == "10-K") != (end.month == 9):
                continue  # an annual report for the fiscal year's last quarter only
            day = filed + timedelta(days=7 * j)
            if _utc_day(day) > view.now:
                continue
            accession = f"{cik:010d}-{day.year % 100:02d}-{100 + k * 10 + j:06d}"
            doc = f"{inst.symbol.lower()}-{end:%Y%m%d}.htm"
            filings.append((_utc_day(day), {
                "date": day.isoformat(), "epochDate": _utc_day(day), "type": form,
                "title": title,
                "edgarUrl": f"https://finance.yahoo.com/sec-filing/{inst.symbol}/"
                            f"{accession}_{cik}",
                "exhibits": [{"type": form, "url": "https://cdn.yahoofinance.com/prod/"
                              f"sec-filings/{cik:010d}/{accession.replace('-', '')}/{doc}"}],
                "maxAge": 1}))
    filings.sort(key=lambda dated: -dated[0])
    return {"filings": [filing for _, filing in filings], "maxAge": 86400}


# The largest US companies, the order of index funds' top weights.
_LARGE_CAPS = ("AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "META", "AVGO", "TSLA", "GOOG", "JPM",
               "NFLX", "COST", "V", "KO")


def _members(view: MarketView) -> list[str]:
    return [s for s in _LARGE_CAPS if get_instrument(s) is not None][:10]


def top_holdings(view: MarketView) -> dict[str, Any] | None:
    """A fund's ten largest positions: large caps of the sandbox, weights falling from
    about 7 %."""
    inst = view.inst
    if not is_fund(inst):
        return None
    holdings, weight = [], 0.05 + 0.04 * unit("th", inst.symbol)
    for symbol in _members(view):
        member = get_instrument(symbol)
        assert member is not None
        holdings.append({"symbol": symbol, "holdingName": member.short_name,
                         "holdingPercent": fmt.pct(round(weight, 6))})
        weight *= 0.82 + 0.1 * unit("th", inst.symbol, symbol)
    cash = round(0.001 + 0.02 * unit("cash", inst.symbol), 4)
    return {"maxAge": 1, "cashPosition": fmt.pct(cash), "stockPosition": fmt.pct(1 - cash),
            "bondPosition": fmt.pct(0), "otherPosition": fmt.pct(0),
            "preferredPosition": fmt.pct(0), "convertiblePosition": fmt.pct(0),
            "holdings": holdings,
            "equityHoldings": {
                "priceToEarnings": fmt.num(round(18 + 12 * unit("pe", inst.symbol), 2)),
                "priceToBook": fmt.num(round(2 + 6 * unit("pb", inst.symbol), 2)),
                "priceToSales": fmt.num(round(1.5 + 4 * unit("psr", inst.symbol), 2)),
                "priceToCashflow": fmt.num(round(10 + 15 * unit("pcf", inst.symbol), 2)),
                "medianMarketCap": fmt.num(round(150_000 + 300_000 * unit("mc", inst.symbol))),
                "threeYearEarningsGrowth": fmt.pct(round(0.05 + 0.15 * unit("eg", inst.symbol),
                                                         4))},
            "bondHoldings": {}, "bondRatings": [],
            "sectorWeightings": _sector_weights(inst.symbol)}


_SECTOR_KEYS = ("realestate", "consumer_cyclical", "basic_materials", "consumer_defensive",
                "technology", "communication_services", "financial_services", "utilities",
                "industrials", "energy", "healthcare")


def _sector_weights(symbol: str) -> list[dict[str, Any]]:
    """Yahoo's eleven sectors, in its order, one per row; the weights sum to 1."""
    raw = [0.2 + unit("sw", symbol, key) * (3 if key == "technology" else 1)
           for key in _SECTOR_KEYS]
    total = sum(raw)
    return [{key: fmt.pct(round(w / total, 4))} for key, w in zip(_SECTOR_KEYS, raw,
                                                                   strict=True)]


def fund_performance(view: MarketView) -> dict[str, Any] | None:
    """A fund's trailing and calendar-year returns from its own chart (fractions)."""
    inst = view.inst
    if not is_fund(inst):
        return None
    now = view.now
    back = lambda days: view.period_return(now - days * DAY)  # noqa: E731

    def annualised(years: int) -> float | None:
        total = back(365 * years)
        return None if total is None else round((1 + total) ** (1 / years) - 1, 6)

    as_of = _utc_day(datetime.fromtimestamp(now, UTC).date())
    this_year = datetime.fromtimestamp(now, UTC).year
    years = []
    for year in range(this_year - 1, this_year - 11, -1):
        start = view.close_at_or_before(_utc_day(date(year, 1, 1)))
        end = view.close_at_or_before(_utc_day(date(year + 1, 1, 1)))
        if start and end:
            years.append({"year": str(year), "annualValue": fmt.pct(round(end / start - 1, 6))})
    ytd = view.period_return(view.ytd_start())
    return {
        "maxAge": 1, "fundCategoryName": "Large Blend" if inst.kind == ETF else "Large Value",
        "performanceOverview": {"asOfDate": fmt.day(as_of), "ytdReturnPct": fmt.pct(ytd),
                                "fiveYrAvgReturnPct": fmt.pct(annualised(5)),
                                "oneYearTotalReturn": fmt.pct(back(365)),
                                "threeYearTotalReturn": fmt.pct(annualised(3))},
        "trailingReturns": {"asOfDate": fmt.day(as_of), "ytd": fmt.pct(ytd),
                            "oneMonth": fmt.pct(back(30)), "threeMonth": fmt.pct(back(91)),
                            "oneYear": fmt.pct(back(365)), "threeYear": fmt.pct(annualised(3)),
                            "fiveYear": fmt.pct(annualised(5)),
                            "tenYear": fmt.pct(annualised(10)), "lastBullMkt": fmt.pct(0),
                            "lastBearMkt": fmt.pct(0)},
        "annualTotalReturns": {"returns": years, "returnsCat": []},
    }


BUILDERS = {
    "incomeStatementHistory": _statement_module("incomeStatementHistory", "income", True),
    "incomeStatementHistoryQuarterly": _statement_module("incomeStatementHistory", "income",
                                                         False),
    "balanceSheetHistory": _statement_module("balanceSheetStatements", "balance", True),
    "balanceSheetHistoryQuarterly": _statement_module("balanceSheetStatements", "balance",
                                                      False),
    "cashflowStatementHistory": _statement_module("cashflowStatements", "cashflow", True),
    "cashflowStatementHistoryQuarterly": _statement_module("cashflowStatements", "cashflow",
                                                           False),
    "indexTrend": index_trend,
    "industryTrend": _empty_trend,
    "sectorTrend": _empty_trend,
    "secFilings": sec_filings,
    "topHoldings": top_holdings,
    "fundPerformance": fund_performance,
}
