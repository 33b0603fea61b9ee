"""Sandbox fundamentals-timeseries: Yahoo's shape, statements that add up, which periods exist,
empty answers for non-equities and unknown symbols, padding, determinism."""

from __future__ import annotations

import itertools
import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from marketdata.providers.yahoo.fundamentals import (
    parse_timeseries,
    type_list,
)
from marketdata.records.fundamentals import (
    BALANCE_FIELDS,
    CASH_FLOW_FIELDS,
    INCOME_FIELDS,
)
from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.instruments import get_instrument
from marketdata.sandbox.yahoo import timeseries as ts

from .test_sandbox import Q1, body, crumb_for, get

RECORDINGS = Path(__file__).resolve().parents[2].parent / "shared" / "upstream" / "yahoo" / \
    "ws-fundamentals-timeseries"
PATH = "/ws/fundamentals-timeseries/v1/finance/timeseries/"
CLOCK = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)
ALL_FIELDS = INCOME_FIELDS + BALANCE_FIELDS + CASH_FLOW_FIELDS
EQUITIES = ["AAPL", "MSFT", "NVDA", "KO", "ACME", "0700.HK", "HSBA.L", "SMGR.JK", "SAP.DE",
            "7203.T", "BHP.AX", "M&M.NS"]


def epoch(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


class Client:
    """One sandbox at a fixed clock, with the crumb handshake done."""

    def __init__(self, clock: datetime = CLOCK) -> None:
        self.sb = UpstreamSandbox(clock=lambda: clock)
        self.cookie, self.crumb = crumb_for(self.sb)
        self.today = clock.date()

    def raw(self, symbol: str, types: list[str] | str, **query: str):
        params = {"type": types if isinstance(types, str) else ",".join(types),
                  "crumb": self.crumb, "merge": "false", **query}
        return get(self.sb, PATH + symbol, host=Q1, headers={"Cookie": self.cookie}, **params)

    def answer(self, symbol: str, types: list[str] | str, **query: str) -> dict[str, Any]:
        response = self.raw(symbol, types, **query)
        assert response.status == 200, response.body
        return body(response)

    def statement(self, symbol: str, statement: str, frequency: str, **query: str):
        fields = {"income": INCOME_FIELDS, "balance": BALANCE_FIELDS,
                  "cashflow": CASH_FLOW_FIELDS}[statement]
        query.setdefault("period1", str(epoch(self.today - timedelta(days=3653))))
        query.setdefault("period2", str(epoch(self.today)))
        return parse_timeseries(self.answer(symbol, type_list(statement, frequency), **query),
                                fields)

    def everything(self, symbol: str, frequency: str) -> dict[str, dict[str, Any]]:
        types = [f"{frequency}{f}" for f in ALL_FIELDS]
        return parse_timeseries(self.answer(symbol, types, period1="0",
                                            period2=str(epoch(self.today))))


@pytest.fixture(scope="module")
def client() -> Client:
    return Client()


# -- shape ---------------------------------------------------------------------------------------
def test_shape_matches_the_recording(client):
    recorded = json.loads((RECORDINGS / "AAPL-financials-annual.json").read_text()) \
        if RECORDINGS.is_dir() else None
    answer = client.answer("AAPL", type_list("income", "annual"), period1="0",
                           period2=str(epoch(client.today)))
    assert list(answer) == ["timeseries"]
    assert list(answer["timeseries"]) == ["result", "error"]
    assert answer["timeseries"]["error"] is None
    items = answer["timeseries"]["result"]
    assert len(items) == 29
    for item in items:
        type_name = item["meta"]["type"][0]
        assert item["meta"] == {"symbol": ["AAPL"], "type": [type_name]}
        assert list(item) == ["meta", "timestamp", type_name]
        points = item[type_name]
        assert len(points) == len(item["timestamp"])
        for stamp, point in zip(item["timestamp"], points, strict=True):
            assert list(point) == ["dataId", "asOfDate", "periodType", "currencyCode",
                                   "reportedValue"]
            assert stamp == epoch(date.fromisoformat(point["asOfDate"]))
            assert point["periodType"] == "12M"
            assert point["currencyCode"] == "USD"
            assert list(point["reportedValue"]) == ["raw", "fmt"]
    if recorded is not None:
        sample = next(i for i in recorded["timeseries"]["result"] if len(i) == 3)
        name = sample["meta"]["type"][0]
        ours = next(i for i in items if len(i) == 3)
        assert list(ours[ours["meta"]["type"][0]][0]) == list(sample[name][0])
        assert list(ours[ours["meta"]["type"][0]][0]["reportedValue"]) == \
            list(sample[name][0]["reportedValue"])


def test_formatted_values_look_like_yahoo(client):
    answer = client.answer("AAPL", ["annualTotalRevenue", "annualBasicEPS",
                                    "annualOtherIncomeExpense"], period1="0")
    for item in answer["timeseries"]["result"]:
        for point in item[item["meta"]["type"][0]]:
            value, text = point["reportedValue"]["raw"], point["reportedValue"]["fmt"]
            if abs(value) >= 1e12:
                assert text == f"{value / 1e12:.2f}T"
            elif abs(value) >= 1e9:
                assert text == f"{value / 1e9:.2f}B"
            elif abs(value) >= 1e6:
                assert text == f"{value / 1e6:.2f}M"
            elif abs(value) < 1000:
                assert text == f"{value:.2f}"


def test_answer_order_is_not_the_request_order_but_is_stable(client):
    types = type_list("balance", "annual")
    first = [i["meta"]["type"][0] for i in client.answer("AAPL", types)["timeseries"]["result"]]
    again = [i["meta"]["type"][0] for i in client.answer("AAPL", types)["timeseries"]["result"]]
    assert sorted(first) == sorted(types)
    assert first != types
    assert first == again


def test_crumb_is_required(client):
    response = get(client.sb, PATH + "AAPL", host=Q1, type="annualTotalRevenue")
    assert response.status == 401


def test_types_without_a_prefix_are_left_out_and_others_are_meta_only(client):
    answer = client.answer("AAPL", ["TotalRevenue", "annualTotalRevenue", "trailingTotalRevenue",
                                    "annualOtherGandA", "bogus", "annualTotalRevenue"],
                           period1="0")
    items = {i["meta"]["type"][0]: i for i in answer["timeseries"]["result"]}
    assert set(items) == {"annualTotalRevenue", "trailingTotalRevenue", "annualOtherGandA"}
    assert set(items["annualOtherGandA"]) == {"meta"}
    assert "timestamp" in items["annualTotalRevenue"]
    assert len(items["trailingTotalRevenue"]["timestamp"]) == 1  # one TTM point


def test_trailing_sums_the_last_four_quarters_and_has_no_balance(client):
    """TTM flows are the last published quarter's four quarters summed; balance-sheet
    fields have no trailing series, as on Yahoo."""
    quarters = client.answer("AAPL", ["quarterlyTotalRevenue"], period1="0")
    ttm = client.answer("AAPL", ["trailingTotalRevenue", "trailingTotalAssets"], period1="0")
    items = {i["meta"]["type"][0]: i for i in ttm["timeseries"]["result"]}
    assert set(items["trailingTotalAssets"]) == {"meta"}
    (point,) = items["trailingTotalRevenue"]["trailingTotalRevenue"]
    (series,) = quarters["timeseries"]["result"]
    last_four = series["quarterlyTotalRevenue"][-4:]
    assert point["asOfDate"] == last_four[-1]["asOfDate"] and point["periodType"] == "TTM"
    assert point["reportedValue"]["raw"] == sum(p["reportedValue"]["raw"] for p in last_four)


def test_no_type_and_bad_periods(client):
    assert client.answer("AAPL", "") == {"timeseries": {"result": [], "error": None}}
    response = client.raw("AAPL", "annualTotalRevenue", period1="yesterday")
    assert response.status == 400
    assert body(response)["timeseries"]["result"] is None
    assert body(response)["timeseries"]["error"]["code"] == "Bad Request"


# -- empty answers -------------------------------------------------------------------------------
@pytest.mark.parametrize("symbol", ["BTC-USD", "SPY", "VFIAX", "^GSPC", "EURUSD=X", "GC=F",
                                    "ZZZZ", "INVALIDX", "FOO-NOTFOUND"])
def test_non_equities_and_unknown_symbols_get_meta_only_items(client, symbol):
    types = type_list("income", "quarterly")
    answer = client.answer(symbol, types, period1="0", padTimeSeries="true")
    items = answer["timeseries"]["result"]
    assert sorted(i["meta"]["type"][0] for i in items) == sorted(types)
    assert all(i == {"meta": {"symbol": [symbol], "type": [i["meta"]["type"][0]]}}
               for i in items)
    assert parse_timeseries(answer) == {}


def test_recorded_crypto_answer_has_the_same_empty_item_shape(client):
    if not RECORDINGS.is_dir():
        pytest.skip("no shared/upstream")
    recorded = json.loads((RECORDINGS / "BTC-USD-financials-quarterly.json").read_text())
    ours = client.answer("BTC-USD", ["quarterlyTotalRevenue"])
    [item] = ours["timeseries"]["result"]
    assert list(item) == list(recorded["timeseries"]["result"][0])
    assert list(item["meta"]) == list(recorded["timeseries"]["result"][0]["meta"])


def test_london_listings_report_half_yearly(client):
    assert client.statement("HSBA.L", "income", "quarterly") == {}
    annual = client.statement("HSBA.L", "income", "annual")
    assert len(annual) in (4, 5)
    point = client.answer("HSBA.L", ["annualTotalRevenue"], period1="0")
    assert point["timeseries"]["result"][0]["annualTotalRevenue"][0]["currencyCode"] == "GBP"


@pytest.mark.parametrize(("symbol", "currency"), [
    ("AAPL", "USD"), ("0700.HK", "HKD"), ("SMGR.JK", "IDR"), ("SAP.DE", "EUR"),
])
def test_currency_from_the_instrument(client, symbol, currency):
    item = client.answer(symbol, ["annualTotalRevenue"], period1="0")["timeseries"]["result"][0]
    assert {p["currencyCode"] for p in item["annualTotalRevenue"]} == {currency}


# -- which periods -------------------------------------------------------------------------------
@pytest.mark.parametrize("symbol", EQUITIES)
def test_periods_like_yahoo(client, symbol):
    inst = get_instrument(symbol)
    prof = ts.profile(inst)
    annual = list(client.statement(symbol, "income", "annual"))
    quarterly = list(client.statement(symbol, "income", "quarterly"))
    assert len(annual) in (4, 5)
    assert len(quarterly) == (0 if symbol.endswith(".L") else prof.quarters)
    assert prof.quarters in (5, 6)
    for end in annual:
        day = date.fromisoformat(end)
        assert day.month == prof.fy_month
        assert (day + timedelta(days=1)).day == 1, "month end"
    newest = date.fromisoformat((quarterly or annual)[0])
    assert newest + timedelta(days=prof.lag_days) <= client.today
    assert date.fromisoformat(annual[0]).year >= client.today.year - 2
    if quarterly:  # the newest published quarter: the next one is still within its lag
        assert annual[0] in quarterly
        following = ts._quarter_id(newest) + 3
        assert ts._month_end(following) + timedelta(days=prof.lag_days) > client.today


def test_known_fiscal_years():
    assert ts.profile(get_instrument("AAPL")).fy_month == 9
    assert ts.profile(get_instrument("MSFT")).fy_month == 6
    assert ts.profile(get_instrument("NVDA")).fy_month == 1


def test_period1_and_period2_filter(client):
    full = client.statement("AAPL", "balance", "quarterly", period1="0")
    ends = list(full)
    middle = ends[2]
    window = client.statement("AAPL", "balance", "quarterly",
                              period1=str(epoch(date.fromisoformat(ends[3]))),
                              period2=str(epoch(date.fromisoformat(middle))))
    assert list(window) == ends[2:4]
    assert all(window[e] == full[e] for e in window)
    assert client.statement("AAPL", "balance", "quarterly", period1="0", period2="1") == {}


def test_oldest_of_five_years_is_sparse_and_padding_marks_it():
    symbol = next(s for s in EQUITIES if ts.profile(get_instrument(s)).years == 5)
    c = Client()
    types = type_list("income", "annual")
    padded = c.answer(symbol, types, period1="0", padTimeSeries="true")["timeseries"]["result"]
    plain = c.answer(symbol, types, period1="0")["timeseries"]["result"]
    stamps = {tuple(i["timestamp"]) for i in padded if "timestamp" in i}
    assert len(stamps) == 1 and len(next(iter(stamps))) == 5
    nulls = sum(p is None for i in padded if "timestamp" in i for p in i[i["meta"]["type"][0]])
    assert nulls > 0
    assert all(p is not None for i in plain if "timestamp" in i for p in i[i["meta"]["type"][0]])
    assert any(len(i["timestamp"]) == 4 for i in plain if "timestamp" in i)
    assert parse_timeseries({"timeseries": {"result": padded}}) == \
        parse_timeseries({"timeseries": {"result": plain}})
    oldest = min(parse_timeseries({"timeseries": {"result": plain}}))
    assert {"TotalRevenue", "NetIncome", "DilutedEPS"} <= set(
        parse_timeseries({"timeseries": {"result": plain}})[oldest])


# -- determinism ---------------------------------------------------------------------------------
def test_deterministic_and_independent_of_the_clock():
    now = Client().everything("KO", "quarterly")
    later = Client(CLOCK + timedelta(days=200)).everything("KO", "quarterly")
    assert now == Client().everything("KO", "quarterly")
    shared = set(now) & set(later)
    assert shared
    assert all(now[e] == later[e] for e in shared)
    assert max(later) > max(now)


def test_symbols_differ():
    c = Client()
    a = c.statement("AAPL", "income", "annual")
    b = c.statement("ACME", "income", "annual")
    assert next(iter(a.values()))["TotalRevenue"] != next(iter(b.values()))["TotalRevenue"]


# -- statements add up ---------------------------------------------------------------------------
def check_income(v: dict[str, Any]) -> None:
    assert v["OperatingRevenue"] == v["TotalRevenue"] > 0
    assert v["GrossProfit"] == v["TotalRevenue"] - v["CostOfRevenue"]
    assert v["OperatingIncome"] == v["GrossProfit"] - v["OperatingExpense"]
    assert v["OperatingExpense"] == v["SellingGeneralAndAdministration"] + \
        v["ResearchAndDevelopment"]
    assert v["NetInterestIncome"] == v["InterestIncome"] - v["InterestExpense"]
    assert v["PretaxIncome"] == v["OperatingIncome"] + v["NetInterestIncome"] + \
        v["OtherIncomeExpense"]
    assert v["NetIncome"] == v["PretaxIncome"] - v["TaxProvision"]
    assert v["EBIT"] == v["PretaxIncome"] + v["InterestExpense"]
    assert v["EBITDA"] == v["EBIT"] + v["ReconciledDepreciation"]
    assert v["TotalExpenses"] == v["CostOfRevenue"] + v["OperatingExpense"]
    assert v["BasicEPS"] == round(v["NetIncome"] / v["BasicAverageShares"], 2)
    assert v["DilutedAverageShares"] >= v["BasicAverageShares"]


def check_balance(v: dict[str, Any]) -> None:
    g = v.get
    assert v["TotalAssets"] == v["TotalLiabilitiesNetMinorityInterest"] + \
        v["TotalEquityGrossMinorityInterest"]
    assert v["TotalAssets"] == v["CurrentAssets"] + v["TotalNonCurrentAssets"]
    assert v["CurrentAssets"] == v["CashCashEquivalentsAndShortTermInvestments"] + \
        v["Receivables"] + g("Inventory", 0) + g("PrepaidAssets", 0) + v["OtherCurrentAssets"]
    assert v["TotalNonCurrentAssets"] == v["NetPPE"] + \
        g("GoodwillAndOtherIntangibleAssets", 0) + v["InvestmentsAndAdvances"] + \
        v["OtherNonCurrentAssets"]
    assert v["NetPPE"] == v["GrossPPE"] + v["AccumulatedDepreciation"]
    assert v["TotalLiabilitiesNetMinorityInterest"] == v["CurrentLiabilities"] + \
        v["TotalNonCurrentLiabilitiesNetMinorityInterest"]
    assert v["CurrentLiabilities"] == v["PayablesAndAccruedExpenses"] + v["CurrentDebt"] + \
        g("CurrentDeferredRevenue", 0) + v["OtherCurrentLiabilities"]
    assert v["WorkingCapital"] == v["CurrentAssets"] - v["CurrentLiabilities"]
    assert v["TotalDebt"] == v["CurrentDebt"] + v["LongTermDebtAndCapitalLeaseObligation"]
    assert g("NetDebt", 1) > 0
    if "NetDebt" in v:
        assert v["NetDebt"] == v["TotalDebt"] - v["CashAndCashEquivalents"]
    assert v["StockholdersEquity"] == v["CommonStockEquity"] == \
        v["TotalEquityGrossMinorityInterest"]
    assert v["InvestedCapital"] == v["StockholdersEquity"] + v["TotalDebt"]
    assert v["ShareIssued"] >= v["OrdinarySharesNumber"] > 0


def check_cash_flow(v: dict[str, Any]) -> None:
    g = v.get
    assert v["ChangeInWorkingCapital"] == v["ChangeInReceivables"] + \
        g("ChangeInInventory", 0) + v["ChangeInAccountPayable"] + v["ChangeInOtherWorkingCapital"]
    assert v["OperatingCashFlow"] == v["NetIncomeFromContinuingOperations"] + \
        v["DepreciationAndAmortization"] + v["DeferredIncomeTax"] + \
        v["StockBasedCompensation"] + v["OtherNonCashItems"] + v["ChangeInWorkingCapital"]
    assert v["InvestingCashFlow"] == v["NetPPEPurchaseAndSale"] + \
        v["NetBusinessPurchaseAndSale"] + v["NetInvestmentPurchaseAndSale"] + \
        v["NetOtherInvestingChanges"]
    assert v["NetInvestmentPurchaseAndSale"] == v["PurchaseOfInvestment"] + \
        v["SaleOfInvestment"]
    assert v["PurchaseOfInvestment"] < 0 < v["SaleOfInvestment"]
    assert v["FinancingCashFlow"] == v["NetIssuancePaymentsOfDebt"] + \
        v["NetCommonStockIssuance"] + g("CashDividendsPaid", 0) + v["NetOtherFinancingCharges"]
    assert v["ChangesInCash"] == v["OperatingCashFlow"] + v["InvestingCashFlow"] + \
        v["FinancingCashFlow"]
    assert v["EndCashPosition"] == v["BeginningCashPosition"] + v["ChangesInCash"] + \
        g("EffectOfExchangeRateChanges", 0)
    assert v["FreeCashFlow"] == v["OperatingCashFlow"] + v["CapitalExpenditure"]
    assert v["CapitalExpenditure"] < 0


@pytest.mark.parametrize("symbol", EQUITIES)
@pytest.mark.parametrize("frequency", ["annual", "quarterly"])
def test_statements_add_up(symbol, frequency):
    c = Client()
    if symbol.endswith(".L") and frequency == "quarterly":
        return
    data = c.everything(symbol, frequency)
    ends = sorted(data, reverse=True)
    complete = ends if frequency == "quarterly" or len(ends) == 4 else ends[:4]
    for end in complete:
        v = data[end]
        check_income(v)
        check_balance(v)
        check_cash_flow(v)
    # Balance sheets and cash flows agree between consecutive periods.
    for newer, older in itertools.pairwise(complete):
        assert data[newer]["BeginningCashPosition"] == data[older]["EndCashPosition"] == \
            data[older]["CashAndCashEquivalents"]
        if frequency == "quarterly":
            assert data[newer]["ChangeInReceivables"] == data[older]["Receivables"] - \
                data[newer]["Receivables"]


@pytest.mark.parametrize("symbol", ["AAPL", "0700.HK", "ACME"])
def test_annual_flows_are_the_sum_of_the_quarters(symbol):
    prof = ts.profile(get_instrument(symbol))
    q = ts._quarter_id(date(2024, prof.fy_month, 1))
    year = ts.annual(prof, q)
    quarters = [ts.quarterly(prof, q - 3 * i) for i in range(4)]
    for name in ("TotalRevenue", "NetIncome", "EBITDA", "OperatingCashFlow", "FreeCashFlow",
                 "ChangesInCash"):
        assert year[name] == sum(x[name] for x in quarters), name
    assert year["TotalAssets"] == quarters[0]["TotalAssets"]
    assert year["EndCashPosition"] == quarters[0]["EndCashPosition"]
    assert year["BeginningCashPosition"] == quarters[3]["BeginningCashPosition"]
    check_income(year)
    check_balance(year)
    check_cash_flow(year)


def test_scale_follows_the_quote_summary_fundamentals():
    inst = get_instrument("AAPL")
    prof = ts.profile(inst)
    year = ts.annual(prof, ts._quarter_id(date(2024, 9, 1)))
    eps = inst.anchor_price / inst.pe
    assert 0.5 < year["NetIncome"] / (eps * inst.shares_outstanding) < 2.0
    assert 0.5 < year["BasicAverageShares"] / inst.shares_outstanding < 1.5
