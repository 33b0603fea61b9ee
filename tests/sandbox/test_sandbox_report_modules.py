"""Sandbox quoteSummary modules of reports and fund portfolios (statement histories, trends,
SEC filings; top holdings, fund performance): keys and kinds against the recordings'
``_all-modules`` answers, who has them, and what today's Yahoo adds that the recordings
predate (all-time high/low, the earnings chart's quarter labels), through ``/v2/quote``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.sandbox.test_sandbox_analysis_holders import (
    UPSTREAM,
    make,
    modules_of,
    needs_recordings,
    summary,
)

EQUITY_MODULES = ("incomeStatementHistory", "incomeStatementHistoryQuarterly",
                  "balanceSheetHistory", "balanceSheetHistoryQuarterly",
                  "cashflowStatementHistory", "cashflowStatementHistoryQuarterly",
                  "indexTrend", "industryTrend", "sectorTrend", "secFilings")
FUND_MODULES = ("topHoldings", "fundPerformance")


def all_modules(symbol: str) -> dict[str, Any]:
    path = UPSTREAM / "v10-quoteSummary" / "_all-modules" / f"{symbol}.json"
    return json.loads(path.read_text())["quoteSummary"]["result"][0]


def kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, dict) and ("raw" in value or not value):
        return "number-or-empty"
    return type(value).__name__


def assert_like(got: Any, want: Any, where: str) -> None:
    """``got`` has the recorded keys (recursively into objects and the first list row),
    each of the recorded kind; a value Yahoo sends empty may be a number and vice versa."""
    if isinstance(want, dict) and not ({"raw"} & set(want)) and want:
        assert isinstance(got, dict), where
        assert set(want) <= set(got), (where, set(want) - set(got))
        for key, value in want.items():
            assert_like(got[key], value, f"{where}.{key}")
    elif isinstance(want, list) and want and isinstance(want[0], dict):
        assert isinstance(got, list), where
        if not got:  # e.g. an equity fund's bond ratings
            return
        for i, row in enumerate(got):  # each row like a recorded row of its keys
            like = [w for w in want if set(w) <= set(row)]
            assert like, (where, i, set(row))
            assert_like(row, like[0], f"{where}[{i}]")
    elif want is not None and got is not None:
        kinds = {kind(want), kind(got)}
        assert len(kinds) == 1 or kinds <= {"number", "number-or-empty"}, (where, kinds)


@needs_recordings
@pytest.mark.parametrize("module", EQUITY_MODULES)
def test_equity_modules_are_shaped_like_the_recording(module):
    assert_like(modules_of(make(), "AAPL", module)[module], all_modules("AAPL")[module], module)


@needs_recordings
@pytest.mark.parametrize("module", FUND_MODULES)
def test_fund_modules_are_shaped_like_the_recording(module):
    got = modules_of(make(), "QQQ", module)[module]
    want = all_modules("QQQ")[module]
    shared = {k: v for k, v in want.items() if k in got}  # Yahoo has more return tables
    assert_like(got, shared, module)
    assert {"performanceOverview", "trailingReturns"} <= set(got) if module == \
        "fundPerformance" else {"holdings", "stockPosition", "cashPosition"} <= set(got)


@pytest.mark.parametrize(("symbol", "has"), [
    ("AAPL", EQUITY_MODULES), ("SPY", FUND_MODULES), ("VFIAX", FUND_MODULES),
    ("SAP.DE", tuple(m for m in EQUITY_MODULES if m != "secFilings")),  # EDGAR: US only
    ("BTC-USD", ()), ("^GSPC", ())])
def test_who_has_the_modules(symbol, has):
    for module in (*EQUITY_MODULES, *FUND_MODULES):
        status, _ = summary(make(), symbol, module)
        assert status == (200 if module in has else 404), (symbol, module)


def test_holdings_are_sandbox_instruments_by_weight():
    holdings = modules_of(make(), "QQQ", "topHoldings")["topHoldings"]["holdings"]
    weights = [h["holdingPercent"] for h in holdings]
    assert len(holdings) == 10 and weights == sorted(weights, reverse=True)
    for holding in holdings:
        status, _ = summary(make(), holding["symbol"], "price")
        assert status == 200, holding


def test_filings_newest_first_and_reports_match_their_periods():
    filings = modules_of(make(), "AAPL", "secFilings")["secFilings"]["filings"]
    assert [f["epochDate"] for f in filings] == sorted((f["epochDate"] for f in filings),
                                                       reverse=True)
    assert {"10-K", "10-Q", "8-K"} <= {f["type"] for f in filings}


# -- through the service ----------------------------------------------------------------------
def test_quote_object_members_filled_for_a_fund_and_an_equity(api, sandbox_upstream):
    spy = api.get("/v2/quote/SPY?fields=topHoldings,fundPerformance").json()
    assert spy["topHoldings"]["holdings"] and spy["fundPerformance"]["trailingReturns"]
    aapl = api.get("/v2/quote/AAPL?fields=secFilings,incomeStatementHistory,indexTrend,"
                   "allTimeHigh,allTimeLow,fiftyTwoWeekHigh,earnings").json()
    assert aapl["secFilings"]["filings"] and aapl["indexTrend"]["estimates"]
    assert aapl["incomeStatementHistory"]["incomeStatementHistory"]
    assert aapl["allTimeHigh"] >= aapl["fiftyTwoWeekHigh"] and aapl["allTimeLow"] > 0
    quarter = aapl["earnings"]["earningsChart"]["quarterly"][-1]
    assert {"fiscalQuarter", "calendarQuarter", "difference", "surprisePct"} <= set(quarter)
    assert aapl["earnings"]["earningsChart"]["currentFiscalQuarter"]


def test_batch_quotes_carry_all_time_range_and_derived_members(api, sandbox_upstream):
    body = api.get("/v2/quotes?symbols=AAPL,SPY,SAP.DE").json()
    by_symbol = {q["symbol"]: q for q in body["quotes"]}
    for quote in by_symbol.values():
        assert quote["allTimeHigh"] >= quote["fiftyTwoWeekHigh"]
        assert isinstance(quote["firstTradeDateEpochUtc"], int)
        assert quote["week52Change"] is not None and abs(quote["week52Change"]) < 5
    assert by_symbol["AAPL"]["recommendationMean"] is not None
    assert by_symbol["SPY"]["totalAssets"] > 0
