"""GET /ws/fundamentals-timeseries/v1/finance/timeseries/{symbol}?type=...&period1&period2.

Why: financial statements are parsed from this answer. The sandbox answers the ``type``
list it is given in Yahoo's shape (one ``result`` item per type, in no particular order;
``meta`` only when there is no data; names without an annual/quarterly/trailing prefix
left out), with statements that add up:

- Everything is modelled per fiscal quarter from the symbol hash and the quarter alone, so
  a period's numbers never depend on the request window or the clock. Annual flows are
  the sum of the fiscal year's four quarters; annual balances are the year-end quarter's.
- Income: gross profit = revenue - cost of revenue, operating income = gross profit -
  operating expense, net income = pretax - tax, EBITDA = EBIT + D&A. Scale follows the
  instrument (EPS x shares, the revenue multiple quoteSummary uses for its margins).
- Balance: assets = liabilities + equity, current + non-current = total, the parts of each
  block add up, working capital, debt, net debt, tangible book value derived.
- Cash flow: working-capital changes come from consecutive balance sheets, cash positions
  are the balance sheet's cash, changes in cash = operating + investing + financing.
- Availability: fiscal year ends are month ends chosen per symbol (AAPL September, MSFT
  June, NVDA January); a quarter is published 25-45 days after it ends; 4-5 fiscal years
  and the last 5-6 quarters exist, filtered by period1/period2 (the oldest of five years
  has only some fields, as on Yahoo). London listings report half-yearly, so their
  quarterly answer is empty (like the OCDO.L recording).
- Funds, ETFs, indices, currencies, futures and crypto get ``meta``-only items (like the
  BTC-USD recording), and so do unknown symbols: the timeseries service does not check
  symbols. Yahoo fields outside the three statements' lists are answered ``meta``-only
  too.
- ``trailing`` types: one point, the twelve months to the last published quarter (the
  flows of its four quarters summed, as Yahoo's TTM columns); balance-sheet fields have
  none (``meta`` only), as on Yahoo. Half-yearly reporters get the last fiscal year's.
- ``padTimeSeries=true`` aligns every series with data on the union of the answer's
  period timestamps, with ``null`` where a series has no value.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from typing import Any

from marketdata.sandbox.instruments import EQUITY, Instrument, get_instrument, stable_hash, unit
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo import fmt
from marketdata.sandbox.yahoo.common import Request, error_response, json_response

PREFIXES = {"annual": "12M", "quarterly": "3M", "trailing": "TTM"}

# Income items that are not summed over a fiscal year.
_PER_PERIOD = frozenset({"DilutedEPS", "BasicEPS", "DilutedAverageShares",
                         "BasicAverageShares"})
# Fields a company may simply not report (chosen per symbol); balance residuals absorb them.
_OPTIONAL = ("PrepaidAssets", "Inventory", "Goodwill", "LongTermEquityInvestment",
             "CurrentDeferredRevenue", "NonCurrentDeferredRevenue",
             "NonCurrentDeferredTaxesLiabilities", "AdditionalPaidInCapital", "TreasuryStock",
             "SaleOfPPE", "PurchaseOfBusiness", "SaleOfBusiness", "CommonStockIssuance",
             "CapitalExpenditureReported")
# Fields the oldest of five fiscal years always has (the others only by chance).
_CORE = frozenset({"TotalRevenue", "GrossProfit", "OperatingIncome", "NetIncome", "BasicEPS",
                   "DilutedEPS", "TotalAssets", "TotalLiabilitiesNetMinorityInterest",
                   "StockholdersEquity", "OperatingCashFlow", "FreeCashFlow",
                   "CapitalExpenditure"})
_FISCAL_MONTHS = {"AAPL": 9, "MSFT": 6, "NVDA": 1, "V": 9, "DIS": 9, "BABA": 3}
_SEASONS = (0.93, 0.97, 1.0, 1.10)
_REFERENCE = date(2025, 1, 1)
_STATEMENT_CURRENCY = {"GBp": ("GBP", 0.01)}  # pence quotes, pound statements


@dataclass(frozen=True)
class Profile:
    """Per-symbol constants of the synthetic company."""

    symbol: str
    currency: str
    fy_month: int
    lag_days: int
    years: int
    quarters: int
    half_yearly: bool
    first_year: int
    revenue: float  # annual revenue at the reference date
    growth: float
    gross_margin: float
    op_margin: float
    tax_rate: float
    rd_share: float
    da_ratio: float
    sbc_ratio: float
    capex_ratio: float
    assets_to_revenue: float
    equity_ratio: float
    current_assets: float
    current_liabilities: float
    payout: float
    buyback: float
    shares: float
    absent: frozenset[str]


@lru_cache(maxsize=2048)
def profile(inst: Instrument) -> Profile:
    s = inst.symbol

    def u(*parts: object) -> float:
        return unit("fin", s, *parts)

    currency, scale = _STATEMENT_CURRENCY.get(inst.currency, (inst.currency, 1.0))
    eps = inst.anchor_price / inst.pe if inst.pe else 1.0
    net_income = max(eps * inst.shares_outstanding * scale, 1e6)
    revenue = net_income * (4 + 6 * unit("ps", s))  # quoteSummary's profit margin
    tax = 0.12 + 0.14 * u("tax")
    op_margin = 1 / (4 + 6 * unit("ps", s)) / (1 - tax)
    return Profile(
        symbol=s, currency=currency,
        fy_month=_FISCAL_MONTHS.get(s) or (12, 12, 12, 12, 6, 9, 3, 12)[int(u("fy") * 8)],
        lag_days=25 + int(20 * u("lag")), years=4 + (u("years") < 0.35),
        quarters=5 + (u("quarters") < 0.5), half_yearly=s.endswith(".L"),
        first_year=datetime.fromtimestamp(inst.first_trade, UTC).year - 3,
        revenue=revenue, growth=-0.03 + 0.18 * u("growth"),
        gross_margin=op_margin + 0.08 + 0.3 * u("gm"), op_margin=op_margin, tax_rate=tax,
        rd_share=0.1 + 0.5 * u("rd"), da_ratio=0.02 + 0.06 * u("da"),
        sbc_ratio=0.005 + 0.05 * u("sbc"), capex_ratio=0.02 + 0.08 * u("capex"),
        assets_to_revenue=0.6 + 1.4 * u("assets"), equity_ratio=0.2 + 0.4 * u("equity"),
        current_assets=0.25 + 0.25 * u("ca"), current_liabilities=0.3 + 0.25 * u("cl"),
        payout=min(0.9, inst.dividend_yield * inst.pe), buyback=-0.01 + 0.04 * u("buyback"),
        shares=float(inst.shares_outstanding),
        absent=frozenset(f for f in _OPTIONAL if u("absent", f) < 0.3),
    )


# --- the quarter model ----------------------------------------------------------------------

def _month_end(q: int) -> date:
    """Quarter id (year * 12 + month - 1 of its last month) -> the last day of that month."""
    year, month = divmod(q + 1, 12)  # the following month, 0-based
    return date(year, month + 1, 1) - timedelta(days=1)


def _k(x: float) -> int:
    """Yahoo's amounts are whole thousands."""
    return round(x / 1000.0) * 1000


def _years(q: int) -> float:
    return (_month_end(q) - _REFERENCE).days / 365.25


def _jitter(p: Profile, q: int, name: str, spread: float) -> float:
    return 1.0 + spread * (unit("fin", p.symbol, q, name) - 0.5)


def _shares(p: Profile, q: int) -> int:
    return _k(p.shares * (1 - p.buyback) ** _years(q))


# Statements of one quarter: ~1.7 KiB (income), ~2.9 KiB (balance), ~5 KiB (cash flow);
# 2,048 of each are ~20 MiB in all (8,192 were up to ~80 MiB).
@lru_cache(maxsize=2048)
def income(p: Profile, q: int) -> dict[str, int | float]:
    season = _SEASONS[((q - p.fy_month + 1) % 12 // 3 + p.fy_month) % 4]  # by fiscal quarter
    revenue = _k(p.revenue / 4 * (1 + p.growth) ** _years(q) * season * _jitter(p, q, "rev",
                                                                                0.06))
    gross = _k(revenue * (p.gross_margin + 0.02 * (_jitter(p, q, "gm", 1) - 1)))
    operating = _k(revenue * (p.op_margin + 0.02 * (_jitter(p, q, "om", 1) - 1)))
    opex = gross - operating
    rd = _k(opex * p.rd_share)
    interest_income = _k(revenue * 0.01 * _jitter(p, q, "ii", 1))
    interest_expense = _k(revenue * 0.012 * _jitter(p, q, "ie", 1))
    net_interest = interest_income - interest_expense
    other = _k(revenue * 0.006 * (_jitter(p, q, "oie", 1) - 1))
    pretax = operating + net_interest + other
    tax = _k(max(pretax, 0) * p.tax_rate)
    net = pretax - tax
    da = _k(revenue * p.da_ratio)
    basic = _shares(p, q)
    diluted = _k(basic * 1.006)
    ebit = pretax + interest_expense
    return {
        "TotalRevenue": revenue, "OperatingRevenue": revenue, "CostOfRevenue": revenue - gross,
        "GrossProfit": gross, "OperatingExpense": opex,
        "SellingGeneralAndAdministration": opex - rd, "ResearchAndDevelopment": rd,
        "OperatingIncome": operating, "NetInterestIncome": net_interest,
        "InterestExpense": interest_expense, "InterestIncome": interest_income,
        "NetNonOperatingInterestIncomeExpense": net_interest, "OtherIncomeExpense": other,
        "PretaxIncome": pretax, "TaxProvision": tax, "NetIncomeCommonStockholders": net,
        "NetIncome": net, "DilutedEPS": round(net / diluted, 2),
        "BasicEPS": round(net / basic, 2), "DilutedAverageShares": diluted,
        "BasicAverageShares": basic, "EBIT": ebit, "EBITDA": ebit + da,
        "ReconciledCostOfRevenue": revenue - gross, "ReconciledDepreciation": da,
        "NetIncomeFromContinuingOperationNetMinorityInterest": net, "NormalizedEBITDA": ebit + da,
        "TotalExpenses": revenue - gross + opex, "TotalOperatingIncomeAsReported": operating,
    }


@lru_cache(maxsize=2048)
def balance(p: Profile, q: int) -> dict[str, int | float]:
    def part(total: int, share: float, name: str) -> int:
        return 0 if name in p.absent else _k(total * share * _jitter(p, q, name, 0.1))

    assets = _k(p.revenue * (1 + p.growth) ** _years(q) * p.assets_to_revenue
                * _jitter(p, q, "assets", 0.04))
    equity = _k(assets * p.equity_ratio * _jitter(p, q, "equity", 0.06))
    liabilities = assets - equity
    current = _k(assets * p.current_assets * _jitter(p, q, "ca", 0.05))
    non_current = assets - current
    cash_st = part(current, 0.4, "CashCashEquivalentsAndShortTermInvestments")
    cash = _k(cash_st * 0.55)
    receivables = part(current, 0.3, "Receivables")
    accounts_receivable = _k(receivables * 0.85)
    inventory = part(current, 0.12, "Inventory")
    prepaid = part(current, 0.03, "PrepaidAssets")
    net_ppe = part(non_current, 0.35, "NetPPE")
    gross_ppe = _k(net_ppe * 1.7)
    goodwill_intangibles = 0 if "Goodwill" in p.absent else part(non_current, 0.2, "GW")
    goodwill = _k(goodwill_intangibles * 0.7)
    investments = part(non_current, 0.22, "InvestmentsAndAdvances")
    equity_investment = 0 if "LongTermEquityInvestment" in p.absent else _k(investments * 0.2)
    current_liabilities = _k(liabilities * p.current_liabilities * _jitter(p, q, "cl", 0.05))
    non_current_liabilities = liabilities - current_liabilities
    payables = part(current_liabilities, 0.45, "PayablesAndAccruedExpenses")
    current_debt = part(current_liabilities, 0.15, "CurrentDebt")
    current_deferred = part(current_liabilities, 0.1, "CurrentDeferredRevenue")
    long_debt = part(non_current_liabilities, 0.55, "LongTermDebt")
    long_debt_leases = _k(long_debt * 1.06)
    deferred_revenue = part(non_current_liabilities, 0.04, "NonCurrentDeferredRevenue")
    deferred_taxes = part(non_current_liabilities, 0.04, "NonCurrentDeferredTaxesLiabilities")
    common = _k(equity * 0.35)
    paid_in = part(equity, 0.12, "AdditionalPaidInCapital")
    treasury = part(equity, 0.06, "TreasuryStock")
    total_debt = current_debt + long_debt_leases
    ordinary = _shares(p, q)
    treasury_shares = _k(ordinary * 0.03) if treasury else 0
    out: dict[str, int | float] = {
        "TotalAssets": assets, "CurrentAssets": current,
        "CashCashEquivalentsAndShortTermInvestments": cash_st, "CashAndCashEquivalents": cash,
        "CashFinancial": _k(cash * 0.8), "Receivables": receivables,
        "AccountsReceivable": accounts_receivable, "Inventory": inventory,
        "PrepaidAssets": prepaid,
        "OtherCurrentAssets": current - cash_st - receivables - inventory - prepaid,
        "TotalNonCurrentAssets": non_current, "NetPPE": net_ppe, "GrossPPE": gross_ppe,
        "AccumulatedDepreciation": net_ppe - gross_ppe, "Goodwill": goodwill,
        "GoodwillAndOtherIntangibleAssets": goodwill_intangibles,
        "OtherIntangibleAssets": goodwill_intangibles - goodwill,
        "InvestmentsAndAdvances": investments, "LongTermEquityInvestment": equity_investment,
        "OtherNonCurrentAssets": non_current - net_ppe - goodwill_intangibles - investments,
        "TotalLiabilitiesNetMinorityInterest": liabilities,
        "CurrentLiabilities": current_liabilities, "PayablesAndAccruedExpenses": payables,
        "AccountsPayable": _k(payables * 0.75), "CurrentDebt": current_debt,
        "CurrentDeferredRevenue": current_deferred,
        "OtherCurrentLiabilities": current_liabilities - payables - current_debt
        - current_deferred,
        "TotalNonCurrentLiabilitiesNetMinorityInterest": non_current_liabilities,
        "LongTermDebt": long_debt, "LongTermDebtAndCapitalLeaseObligation": long_debt_leases,
        "NonCurrentDeferredRevenue": deferred_revenue,
        "NonCurrentDeferredTaxesLiabilities": deferred_taxes,
        "OtherNonCurrentLiabilities": non_current_liabilities - long_debt_leases
        - deferred_revenue - deferred_taxes,
        "StockholdersEquity": equity, "CommonStockEquity": equity, "CommonStock": common,
        "RetainedEarnings": equity - common - paid_in + treasury,
        "AdditionalPaidInCapital": paid_in, "TreasuryStock": treasury,
        "TotalEquityGrossMinorityInterest": equity,
        "WorkingCapital": current - current_liabilities, "InvestedCapital": equity + total_debt,
        "TangibleBookValue": equity - goodwill_intangibles, "TotalDebt": total_debt,
        "NetDebt": total_debt - cash, "ShareIssued": ordinary + treasury_shares,
        "OrdinarySharesNumber": ordinary,
    }
    if out["NetDebt"] <= 0:
        del out["NetDebt"]  # Yahoo leaves net debt out when cash exceeds debt
    if not goodwill_intangibles:
        for name in ("Goodwill", "GoodwillAndOtherIntangibleAssets", "OtherIntangibleAssets"):
            del out[name]
    return _present(p, out)


@lru_cache(maxsize=2048)
def cash_flow(p: Profile, q: int) -> dict[str, int | float]:
    inc, now, before = income(p, q), balance(p, q), balance(p, q - 3)
    revenue, net = int(inc["TotalRevenue"]), int(inc["NetIncome"])

    def amount(share: float, name: str, signed: bool = False) -> int:
        if name in p.absent:
            return 0
        u = unit("fin", p.symbol, q, name)
        return _k(revenue * share * ((u - 0.5) if signed else u))

    def delta(name: str) -> int:
        return int(now.get(name, 0)) - int(before.get(name, 0))

    da = int(inc["ReconciledDepreciation"])
    deferred_tax = amount(0.01, "DeferredIncomeTax", signed=True)
    sbc = _k(revenue * p.sbc_ratio)
    other_non_cash = amount(0.006, "OtherNonCashItems", signed=True)
    change_receivables = -delta("Receivables")
    change_inventory = -delta("Inventory")
    change_payables = delta("AccountsPayable")
    change_other = amount(0.01, "ChangeInOtherWorkingCapital", signed=True)
    working_capital = change_receivables + change_inventory + change_payables + change_other
    operating = net + da + deferred_tax + sbc + other_non_cash + working_capital

    capex = -_k(revenue * p.capex_ratio)
    sale_ppe = amount(0.002, "SaleOfPPE")
    business = -amount(0.01, "PurchaseOfBusiness"), amount(0.002, "SaleOfBusiness")
    other_investing = amount(0.004, "NetOtherInvestingChanges", signed=True)

    debt_in, debt_out = amount(0.03, "LongTermDebtIssuance"), -amount(0.03, "LongTermDebtPay")
    short_debt = amount(0.01, "NetShortTermDebtIssuance", signed=True)
    stock_in = amount(0.002, "CommonStockIssuance")
    buyback = -_k(max(net, 0) * max(p.buyback, 0) * 20)
    dividends = -_k(max(net, 0) * p.payout)
    other_financing = amount(0.004, "NetOtherFinancingCharges", signed=True)
    financing = debt_in + debt_out + short_debt + stock_in + buyback + dividends \
        + other_financing

    fx = amount(0.003, "EffectOfExchangeRateChanges", signed=True) if p.currency != "USD" \
        else 0
    begin, end = int(before["CashAndCashEquivalents"]), int(now["CashAndCashEquivalents"])
    changes = end - begin - fx
    # Investments absorb whatever cash the other lines do not explain.
    investments = changes - operating - financing - (capex + sale_ppe + sum(business)
                                                     + other_investing)
    sales = _k(revenue * (0.05 + 0.2 * unit("fin", p.symbol, q, "SaleOfInvestment")))
    if investments - sales >= 0:
        sales = investments + _k(revenue * 0.01)
    investing = capex + sale_ppe + sum(business) + investments + other_investing
    out: dict[str, int | float] = {
        "OperatingCashFlow": operating, "CashFlowFromContinuingOperatingActivities": operating,
        "NetIncomeFromContinuingOperations": net, "DepreciationAndAmortization": da,
        "DeferredIncomeTax": deferred_tax, "ChangeInWorkingCapital": working_capital,
        "ChangeInReceivables": change_receivables,
        "ChangesInAccountReceivables": -delta("AccountsReceivable"),
        "ChangeInInventory": change_inventory, "ChangeInAccountPayable": change_payables,
        "ChangeInOtherWorkingCapital": change_other, "StockBasedCompensation": sbc,
        "OtherNonCashItems": other_non_cash, "InvestingCashFlow": investing,
        "CashFlowFromContinuingInvestingActivities": investing,
        "NetPPEPurchaseAndSale": capex + sale_ppe, "PurchaseOfPPE": capex,
        "SaleOfPPE": sale_ppe, "CapitalExpenditure": capex,
        "NetBusinessPurchaseAndSale": sum(business), "PurchaseOfBusiness": business[0],
        "SaleOfBusiness": business[1], "NetInvestmentPurchaseAndSale": investments,
        "PurchaseOfInvestment": investments - sales, "SaleOfInvestment": sales,
        "NetOtherInvestingChanges": other_investing, "FinancingCashFlow": financing,
        "CashFlowFromContinuingFinancingActivities": financing,
        "NetIssuancePaymentsOfDebt": debt_in + debt_out + short_debt,
        "NetLongTermDebtIssuance": debt_in + debt_out, "LongTermDebtIssuance": debt_in,
        "LongTermDebtPayments": debt_out, "NetShortTermDebtIssuance": short_debt,
        "NetCommonStockIssuance": stock_in + buyback, "CommonStockIssuance": stock_in,
        "CommonStockPayments": buyback, "RepurchaseOfCapitalStock": buyback,
        "CashDividendsPaid": dividends, "CommonStockDividendPaid": dividends,
        "NetOtherFinancingCharges": other_financing, "EndCashPosition": end,
        "BeginningCashPosition": begin, "ChangesInCash": changes,
        "EffectOfExchangeRateChanges": fx, "FreeCashFlow": operating + capex,
        "CapitalExpenditureReported": capex,
    }
    if p.currency == "USD":
        del out["EffectOfExchangeRateChanges"]
    if not dividends:
        del out["CashDividendsPaid"], out["CommonStockDividendPaid"]
    if not buyback:
        del out["CommonStockPayments"], out["RepurchaseOfCapitalStock"]
    if "Inventory" in p.absent:
        del out["ChangeInInventory"]
    return _present(p, out)


def _present(p: Profile, values: dict[str, int | float]) -> dict[str, int | float]:
    return {k: v for k, v in values.items() if k not in p.absent}


def annual(p: Profile, q: int) -> dict[str, int | float]:
    """The fiscal year ending with quarter ``q``: flows summed, balances at year end."""
    quarters = [q - 9, q - 6, q - 3, q]
    incomes = [income(p, x) for x in quarters]
    out: dict[str, int | float] = {name: sum(int(i[name]) for i in incomes)
                                   for name in incomes[-1] if name not in _PER_PERIOD}
    basic = _k(sum(int(i["BasicAverageShares"]) for i in incomes) / 4)
    diluted = _k(sum(int(i["DilutedAverageShares"]) for i in incomes) / 4)
    out.update(BasicAverageShares=basic, DilutedAverageShares=diluted,
               BasicEPS=round(out["NetIncome"] / basic, 2),
               DilutedEPS=round(out["NetIncome"] / diluted, 2))
    out.update(balance(p, q))
    flows = [cash_flow(p, x) for x in quarters]
    for name in dict.fromkeys(name for f in flows for name in f):
        out[name] = sum(int(f.get(name, 0)) for f in flows)
    out["BeginningCashPosition"] = flows[0]["BeginningCashPosition"]
    out["EndCashPosition"] = flows[-1]["EndCashPosition"]
    return out


def trailing(p: Profile, q: int) -> dict[str, int | float]:
    """The twelve months ending with quarter ``q``: the year's flows without its balances."""
    point_in_time = set(balance(p, q))
    return {k: v for k, v in annual(p, q).items() if k not in point_in_time}


def quarterly(p: Profile, q: int) -> dict[str, int | float]:
    return {**income(p, q), **balance(p, q), **cash_flow(p, q)}


# --- which periods exist ----------------------------------------------------------------------

def _quarter_id(day: date) -> int:
    return day.year * 12 + day.month - 1


def _epoch(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


def periods(p: Profile, prefix: str, today: date) -> list[int]:
    """Published quarters (oldest first) for ``annual`` or ``quarterly`` at ``today``."""
    q = _quarter_id(today)
    q -= (q - (p.fy_month - 1)) % 3
    while (_month_end(q) - today).days > -p.lag_days:
        q -= 3
    if prefix == "quarterly":
        found = [] if p.half_yearly else [q - 3 * i for i in range(p.quarters)]
    else:
        q -= (q - (p.fy_month - 1)) % 12
        found = [q - 12 * i for i in range(p.years)]
    return sorted(x for x in found if _month_end(x).year >= p.first_year)


def statements(p: Profile, prefix: str, today: date, period1: int,
               period2: int) -> dict[int, dict[str, int | float]]:
    """{quarter id: all fields} for the published periods inside [period1, period2]."""
    if prefix == "trailing":
        latest = periods(p, "quarterly", today)[-1:] or periods(p, "annual", today)[-1:]
        return {q: trailing(p, q) for q in latest
                if period1 <= _epoch(_month_end(q)) <= period2}
    published = periods(p, prefix, today)
    oldest_of_five = published[0] if prefix == "annual" and len(published) == 5 else None
    out: dict[int, dict[str, int | float]] = {}
    for q in published:
        if not period1 <= _epoch(_month_end(q)) <= period2:
            continue
        values = annual(p, q) if prefix == "annual" else quarterly(p, q)
        if q == oldest_of_five:
            values = {k: v for k, v in values.items()
                      if k in _CORE or unit("fin", p.symbol, "sparse", k) < 0.4}
        out[q] = values
    return out


# --- the answer -------------------------------------------------------------------------------

def _split(type_name: str) -> tuple[str, str] | None:
    for prefix in PREFIXES:
        rest = type_name[len(prefix):]
        if type_name.startswith(prefix) and rest[:1].isupper():
            return prefix, rest
    return None


def _formatted(value: int | float) -> str:
    return fmt.abbreviate(value) if abs(value) >= 1000 else f"{value:.2f}"


def _point(p: Profile, prefix: str, field: str, q: int, value: int | float) -> dict[str, Any]:
    return {"dataId": 20000 + stable_hash("dataId", field) % 10000,
            "asOfDate": _month_end(q).isoformat(), "periodType": PREFIXES[prefix],
            "currencyCode": p.currency,
            "reportedValue": {"raw": value, "fmt": _formatted(value)}}


def handle_timeseries(req: Request) -> SandboxResponse:
    symbol = req.params["symbol"].upper()
    requested = dict.fromkeys(t.strip() for value in req.query.get("type", [])
                              for t in value.split(",") if t.strip())
    types = {t: parts for t in requested if (parts := _split(t)) is not None}
    now = req.now()
    period1, period2 = req.int_arg("period1", 0), req.int_arg("period2", now)
    if period1 is None or period2 is None:
        return error_response("timeseries", "Bad Request", "Invalid period1 or period2", 400)
    pad = (req.arg("padTimeSeries") or "").lower() == "true"
    inst = get_instrument(symbol)
    prof = profile(inst) if inst is not None and inst.kind == EQUITY else None
    today = datetime.fromtimestamp(now, UTC).date()

    tables: dict[str, dict[int, dict[str, int | float]]] = {}
    series: dict[str, dict[int, int | float]] = {}
    for type_name, (prefix, field) in types.items():
        if prof is None:
            continue
        if prefix not in tables:
            tables[prefix] = statements(prof, prefix, today, period1, period2)
        found = {q: values[field] for q, values in tables[prefix].items() if field in values}
        if found:
            series[type_name] = found

    stamps = sorted({q for found in series.values() for q in found})
    result = []
    for type_name in sorted(types, key=lambda t: stable_hash("timeseries-order", t)):
        item: dict[str, Any] = {"meta": {"symbol": [symbol], "type": [type_name]}}
        by_quarter = series.get(type_name)
        if by_quarter and prof is not None:
            prefix, field = types[type_name]
            used = stamps if pad else sorted(by_quarter)
            item["timestamp"] = [_epoch(_month_end(q)) for q in used]
            item[type_name] = [_point(prof, prefix, field, q, by_quarter[q])
                               if q in by_quarter else None for q in used]
        result.append(item)
    return json_response({"timeseries": {"result": result, "error": None}})
