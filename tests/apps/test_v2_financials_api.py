"""GET /v2/financials/{symbol}/{statement} and /v2/financials: the recordings as rows (values
exact, metrics in the statement's order, periods oldest first), aliases, `metrics`,
`trailing`, `fields`, the batch, every error status, and the sandbox for an equity, an ETF
and a non-US listing."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.providers.yahoo.fundamentals import parse_timeseries, type_list
from marketdata.records.fundamentals import STATEMENT_FIELDS, statement_rows
from marketdata.records.members import as_json
from tests.apps.payloads import FAILURES, fail_url
from tests.apps.test_financials_api import (
    AAPL_BALANCE_Q,
    AAPL_CASH,
    AAPL_INCOME,
    BTC,
    OCDO,
    TIMESERIES,
    one_value_payload,
    timeseries_calls,
)

URL = "/v2/financials/{symbol}/{statement}"


def upstream_types(yahoo) -> list[str]:
    call = timeseries_calls(yahoo)[-1]
    return parse_qs(urlsplit(call.request.url).query)["type"][0].split(",")


def expected_rows(payload, statement: str) -> list[dict]:
    """The test's own reading of a recording: every metric with a reported value, in the
    statement's field order, its points by date ascending."""
    found: dict[str, dict[str, float]] = {}
    for item in payload["timeseries"]["result"]:
        type_name = item["meta"]["type"][0]
        for point in item.get(type_name) or []:
            if point and point.get("reportedValue") is not None:
                field = type_name.removeprefix("annual").removeprefix("quarterly")
                found.setdefault(field, {})[point["asOfDate"]] = point["reportedValue"]["raw"]
    return [{"metric": field, "values": [{"date": day, "value": found[field][day]}
                                         for day in sorted(found[field])]}
            for field in STATEMENT_FIELDS[statement] if field in found]


# -- 200 from the recordings -----------------------------------------------------------------------
@pytest.mark.parametrize(("path", "statement", "frequency"), [
    (AAPL_INCOME, "income", "annual"), (AAPL_CASH, "cashflow", "annual"),
    (AAPL_BALANCE_Q, "balance", "quarterly")])
def test_rows_exactly_as_recorded(api, yahoo, recording, path, statement, frequency):
    payload = recording(path)
    yahoo.get(TIMESERIES + "AAPL", payload)
    response = api.get(URL.format(symbol="aapl", statement=statement)
                       + f"?frequency={frequency}")
    assert response.status_code == 200, response.content
    rows = response.json()
    assert rows == expected_rows(payload, statement) and rows
    assert upstream_types(yahoo) == type_list(statement, frequency)
    for row in rows:
        dates = [v["date"] for v in row["values"]]
        assert dates == sorted(dates)


def test_aapl_income_by_hand(api, yahoo, recording):
    yahoo.get(TIMESERIES + "AAPL", recording(AAPL_INCOME))
    rows = api.get("/v2/financials/AAPL/income-statement?metrics=NetIncome,totalrevenue").json()
    # `metrics` filters; the rows keep the statement's order whatever order it asks in.
    assert [r["metric"] for r in rows] == ["TotalRevenue", "NetIncome"]
    assert rows[0]["values"] == [{"date": "2022-09-30", "value": 394328000000},
                                 {"date": "2023-09-30", "value": 383285000000},
                                 {"date": "2024-09-30", "value": 391035000000}]
    assert rows[1]["values"] == [{"date": "2022-09-30", "value": 99803000000},
                                 {"date": "2023-09-30", "value": 96995000000},
                                 {"date": "2024-09-30", "value": 93736000000}]


def test_aliases_and_fields(api, yahoo, recording):
    yahoo.get(TIMESERIES + "AAPL", recording(AAPL_CASH))
    base = api.get("/v2/financials/AAPL/cashflow").json()
    assert api.get("/v2/financials/AAPL/cash-flow?frequency=yearly").json() == base
    assert api.get("/v2/financials/AAPL/cash?frequency=year").json() == base
    assert api.get("/v2/financials/AAPL/cash?fields=metric").json() == [
        {"metric": row["metric"]} for row in base]
    assert len(timeseries_calls(yahoo)) == 1  # one cached statement


def test_trailing_asks_for_trailing_types(api, yahoo):
    yahoo.get(TIMESERIES + "AAPL", one_value_payload("AAPL", "trailingTotalRevenue",
                                                    "2024-12-31", 395760000000))
    rows = api.get("/v2/financials/AAPL/income?frequency=trailing").json()
    assert rows == [{"metric": "TotalRevenue",
                     "values": [{"date": "2024-12-31", "value": 395760000000}]}]
    assert upstream_types(yahoo) == type_list("income", "trailing")


def test_rows_order_is_the_statements_not_yahoos():
    """Yahoo lists its series in no order, and a metric can be missing from the newest
    period: the rows still follow the statement's list."""
    periods = {"2024-09-30": {"NetIncome": 3, "TotalRevenue": 10},
               "2023-09-30": {"GrossProfit": 4, "TotalRevenue": 9}}
    rows = as_json(statement_rows(periods, "income", None))
    assert [r["metric"] for r in rows] == ["TotalRevenue", "GrossProfit", "NetIncome"]
    assert rows[0]["values"] == [{"date": "2023-09-30", "value": 9},
                                 {"date": "2024-09-30", "value": 10}]


@pytest.mark.parametrize("path", [AAPL_INCOME, AAPL_CASH, AAPL_BALANCE_Q])
def test_rows_hold_what_the_parser_read(recording, path):
    payload = recording(path)
    statement = {AAPL_INCOME: "income", AAPL_CASH: "cashflow", AAPL_BALANCE_Q: "balance"}[path]
    periods = parse_timeseries(payload, STATEMENT_FIELDS[statement])
    rows = statement_rows(periods, statement, None)
    assert sum(len(r.values) for r in rows) == sum(len(v) for v in periods.values())


# -- 404 -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "symbol"), [(BTC, "BTC-USD"), (OCDO, "OCDO.L")])
def test_nothing_reported_is_a_404(api, yahoo, recording, path, symbol):
    yahoo.get(TIMESERIES + symbol, recording(path))
    response = api.get(f"/v2/financials/{symbol}/income?frequency=quarterly")
    assert response.status_code == 404, response.content
    assert response.json() == {"error": f"No income data found for {symbol}", "status": 404}


def test_asked_metrics_without_values_are_a_404(api, yahoo):
    yahoo.get(TIMESERIES + "AAPL", one_value_payload("AAPL", "annualTotalRevenue",
                                                    "2024-09-30", 1.0))
    assert api.get("/v2/financials/AAPL/income?metrics=EBITDA").status_code == 404


def test_malformed_symbol_is_a_404_without_a_call(api, yahoo):
    assert api.get("/v2/financials/%25%25/income").status_code == 404
    assert timeseries_calls(yahoo) == []


def test_one_cached_upstream_call_per_statement_and_frequency(api, yahoo):
    """The cache key holds every flag that changes Yahoo's answer (statement, frequency),
    not the spelling (aliases) nor ``metrics`` (applied to the cached statement)."""
    yahoo.get(TIMESERIES + "AAPL", {"timeseries": {"result": [
        one_value_payload("AAPL", f"annual{field}", "2024-09-30", 7.0)["timeseries"]
        ["result"][1] for field in ("TotalRevenue", "TotalAssets", "FreeCashFlow")],
        "error": None}})
    asked = [("income", "annual"), ("income", "quarterly"), ("income", "trailing"),
             ("balance", "annual"), ("balance", "quarterly"), ("cashflow", "annual")]
    for statement, frequency in asked:
        assert api.get(f"/v2/financials/AAPL/{statement}?frequency={frequency}"
                       ).status_code == 200
    for again in ("income-statement?frequency=year", "income?frequency=q",
                  "income?frequency=trailing&metrics=TotalRevenue", "balance-sheet",
                  "cash-flow?frequency=yearly&metrics=freecashflow"):
        assert api.get(f"/v2/financials/AAPL/{again}").status_code == 200, again
    calls = timeseries_calls(yahoo)
    assert [parse_qs(urlsplit(c.request.url).query)["type"][0].split(",") for c in calls] == [
        type_list(statement, frequency) for statement, frequency in asked]


def test_every_unknown_metric_is_named(api, yahoo):
    response = api.get("/v2/financials/AAPL/cashflow?metrics=FreeCashFlow,Foo,TotalRevenue")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error.startswith("metrics: unknown metrics for the cashflow statement: 'Foo', "
                            "'TotalRevenue'. Metrics: OperatingCashFlow, "), error
    assert timeseries_calls(yahoo) == []


# -- 400 before any upstream call ------------------------------------------------------------------
@pytest.mark.parametrize(("target", "words"), [
    ("/v2/financials/AAPL/cashflows", "statement: Input should be"),
    ("/v2/financials/AAPL/income?frequency=monthly", "frequency: Input should be"),
    ("/v2/financials/AAPL/balance?frequency=trailing", "frequency: trailing is only"),
    ("/v2/financials/AAPL/income?metrics=TotalAssets", "metrics: unknown metric"),
    ("/v2/financials/AAPL/income?metrics=,", "metrics: unknown metric"),
    ("/v2/financials?symbols=AAPL", "statement: Field required"),
    ("/v2/financials?statement=income", "symbols: Field required"),
    ("/v2/financials?symbols=AAPL&statement=balance&metrics=Foo", "metrics: unknown"),
])
def test_bad_input_is_a_400_before_any_call(api, yahoo, target, words):
    response = api.get(target)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["status"] == 400 and body["error"].startswith(words), body
    assert timeseries_calls(yahoo) == []


# -- upstream failures -----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, TIMESERIES + "AAPL", kind)
    status, _ = FAILURES[kind]
    for path in ("/v2/financials/AAPL/income", "/v2/financials?symbols=AAPL&statement=income"):
        response = api.get(path)
        assert response.status_code == status, path
        body = response.json()
        assert body["status"] == status and body["provider"] == "yahoo" and body["error"]


# -- the batch -------------------------------------------------------------------------------------
def test_batch_in_request_order_with_errors(api, yahoo, recording):
    yahoo.get(TIMESERIES + "AAPL", recording(AAPL_BALANCE_Q))
    yahoo.get(TIMESERIES + "BTC-USD", recording(BTC))
    response = api.get("/v2/financials?symbols=btc-usd,AAPL,%25&statement=balance-sheet"
                       "&frequency=quarter&metrics=TotalAssets&fields=values")
    assert response.status_code == 200, response.content
    body = response.json()
    assert [item["symbol"] for item in body["financials"]] == ["AAPL"]
    (row,) = body["financials"][0]["statement"]
    assert list(row) == ["values"] and row["values"]
    assert [e["symbol"] for e in body["errors"]] == ["BTC-USD", "%"]


# -- the sandbox -----------------------------------------------------------------------------------
COMBINATIONS = [("income", "annual"), ("income", "quarterly"), ("income", "trailing"),
                ("balance", "annual"), ("balance", "quarterly"),
                ("cashflow", "annual"), ("cashflow", "quarterly"), ("cashflow", "trailing")]
# What a sandbox company may leave unreported (chosen per symbol, as real filers differ):
# the optional lines, the totals made only of them, net debt when cash exceeds debt, the
# currency effect of a USD filer, dividends and buybacks of a company without either.
MAY_BE_UNREPORTED = {
    "PrepaidAssets", "Inventory", "Goodwill", "GoodwillAndOtherIntangibleAssets",
    "OtherIntangibleAssets", "LongTermEquityInvestment", "CurrentDeferredRevenue",
    "NonCurrentDeferredRevenue", "NonCurrentDeferredTaxesLiabilities",
    "AdditionalPaidInCapital", "TreasuryStock", "NetDebt", "SaleOfPPE", "PurchaseOfBusiness",
    "SaleOfBusiness", "CommonStockIssuance", "CapitalExpenditureReported", "ChangeInInventory",
    "EffectOfExchangeRateChanges", "CashDividendsPaid", "CommonStockDividendPaid",
    "CommonStockPayments", "RepurchaseOfCapitalStock"}


@pytest.mark.parametrize("symbol", ["AAPL", "SAP.DE", "7203.T"])
@pytest.mark.parametrize(("statement", "frequency"), COMBINATIONS)
def test_sandbox_equities(api, sandbox_upstream, symbol, statement, frequency):
    response = api.get(f"/v2/financials/{symbol}/{statement}?frequency={frequency}")
    assert response.status_code == 200, response.content
    rows = response.json()
    metrics = [row["metric"] for row in rows]
    assert metrics == [f for f in STATEMENT_FIELDS[statement] if f in metrics] and rows
    assert set(STATEMENT_FIELDS[statement]) - set(metrics) <= MAY_BE_UNREPORTED
    for row in rows:
        dates = [v["date"] for v in row["values"]]
        assert dates == sorted(set(dates)) and row["values"]
    if frequency == "trailing":
        assert all(len(row["values"]) == 1 for row in rows)


@pytest.mark.parametrize(("statement", "frequency"), COMBINATIONS)
def test_sandbox_answers_every_metric_of_every_statement(api, sandbox_upstream, statement,
                                                         frequency):
    """Each metric of the statement is reported by some of a handful of companies (US,
    European, Japanese), so a client sees every one in sandbox mode."""
    seen: set[str] = set()
    for symbol in ("AAPL", "SAP.DE", "7203.T", "MSFT", "KO", "JPM", "NVDA"):
        response = api.get(f"/v2/financials/{symbol}/{statement}?frequency={frequency}")
        assert response.status_code == 200, (symbol, response.content)
        seen.update(row["metric"] for row in response.json())
    assert set(STATEMENT_FIELDS[statement]) == seen


def test_sandbox_trailing_is_the_last_four_quarters(api, sandbox_upstream):
    quarters = api.get("/v2/financials/AAPL/income?frequency=quarterly"
                       "&metrics=TotalRevenue").json()[0]["values"]
    (ttm,) = api.get("/v2/financials/AAPL/income?frequency=trailing"
                     "&metrics=TotalRevenue").json()[0]["values"]
    assert ttm["date"] == quarters[-1]["date"]
    assert ttm["value"] == sum(v["value"] for v in quarters[-4:])


@pytest.mark.parametrize(("statement", "frequency"), COMBINATIONS)
def test_sandbox_fund_has_no_statements(api, sandbox_upstream, statement, frequency):
    """Yahoo keeps no statements for an ETF (every series empty), so neither does the
    sandbox: a 404, like crypto in the recordings."""
    response = api.get(f"/v2/financials/SPY/{statement}?frequency={frequency}")
    assert response.status_code == 404
    assert response.json() == {"error": f"No {statement} data found for SPY", "status": 404}


def test_sandbox_batch_equity_fund_and_foreign_listing(api, sandbox_upstream):
    response = api.get("/v2/financials?symbols=SAP.DE,SPY,AAPL&statement=cash-flow"
                       "&frequency=trailing&metrics=FreeCashFlow,OperatingCashFlow")
    assert response.status_code == 200, response.content
    body = response.json()
    assert [item["symbol"] for item in body["financials"]] == ["SAP.DE", "AAPL"]
    for item in body["financials"]:
        assert [row["metric"] for row in item["statement"]] == ["OperatingCashFlow",
                                                                "FreeCashFlow"]
        single = api.get(f"/v2/financials/{item['symbol']}/cashflow?frequency=trailing"
                         "&metrics=OperatingCashFlow,FreeCashFlow").json()
        assert item["statement"] == single
    assert body["errors"] == [{"symbol": "SPY", "message": "No cashflow data found for SPY"}]
