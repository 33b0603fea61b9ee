"""GET /v1/financials/{symbol}: statements from the recordings, display names, 404/422 bodies,
upstream failures, path safety, the cache and the sandbox."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.providers.yahoo.fundamentals import display_name, type_list
from marketdata.records.fundamentals import BALANCE_FIELDS, CASH_FLOW_FIELDS, INCOME_FIELDS
from tests.apps.payloads import FAILURES, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import QUERY1, calls_to

FOLDER = "yahoo/ws-fundamentals-timeseries"
AAPL_INCOME = f"{FOLDER}/AAPL-financials-annual.json"
AAPL_BALANCE_Q = f"{FOLDER}/AAPL-balance-sheet-quarterly.json"
AAPL_CASH = f"{FOLDER}/AAPL-cash-flow-annual.json"
AAPL_ALL = f"{FOLDER}/AAPL-all-annual.json"
BTC = f"{FOLDER}/BTC-USD-financials-quarterly.json"
OCDO = f"{FOLDER}/OCDO.L-financials-quarterly.json"
TIMESERIES = f"{QUERY1}/ws/fundamentals-timeseries/v1/finance/timeseries/"

STATEMENT_ERROR = "Input should be 'income', 'balance' or 'cashflow'"
FREQUENCY_ERROR = "Input should be 'annual' or 'quarterly'"


def timeseries_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "/ws/fundamentals-timeseries/")


def upstream_query(call) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(call.request.url).query).items()}


def one_value_payload(symbol: str, type_name: str, as_of: str, value: float,
                      currency: str = "USD") -> dict:
    """A timeseries answer in Yahoo's shape with one datapoint (and one empty item)."""
    return {"timeseries": {"result": [
        {"meta": {"symbol": [symbol], "type": [type_name.replace("Revenue", "Expense")]}},
        {"meta": {"symbol": [symbol], "type": [type_name]}, "timestamp": [1735603200],
         type_name: [{"dataId": 20100, "asOfDate": as_of, "periodType": "12M",
                      "currencyCode": currency,
                      "reportedValue": {"raw": value, "fmt": f"{value / 1e9:.2f}B"}}]},
    ], "error": None}}


# -- 200 from the recordings ---------------------------------------------------------------------
def test_income_annual_aapl(api, yahoo, recording):
    yahoo.get(TIMESERIES + "AAPL", recording(AAPL_INCOME))
    response = api.get("/v1/financials/AAPL?statement=income&frequency=annual")
    assert response.status_code == 200, response.content
    assert response["X-Cache"] == "MISS"
    body = response.json()
    assert {k: body[k] for k in ("symbol", "statement_type", "frequency")} == {
        "symbol": "AAPL", "statement_type": "income", "frequency": "annual"}
    assert list(body) == ["symbol", "statement_type", "frequency", "statement"]
    assert list(body["statement"]) == ["2024-09-30", "2023-09-30", "2022-09-30"]
    latest = body["statement"]["2024-09-30"]
    assert latest["Total Revenue"] == 391035000000
    assert latest["Cost Of Revenue"] == 210352000000
    assert latest["Gross Profit"] == 180683000000
    assert latest["Operating Income"] == 123216000000
    assert latest["Net Income"] == 93736000000
    assert latest["EBIT"] == 123216000000
    assert latest["EBITDA"] == 134661000000
    assert latest["Normalized EBITDA"] == 134661000000
    assert latest["Basic EPS"] == 6.11
    assert latest["Diluted EPS"] == 6.08
    assert latest["Net Income From Continuing Operation Net Minority Interest"] == 93736000000
    assert isinstance(latest["Total Revenue"], int)
    # Metrics follow the statement's order; the interest lines end in FY2023.
    assert list(latest) == [display_name(f) for f in INCOME_FIELDS if display_name(f) in latest]
    assert len(latest) == 25
    assert body["statement"]["2023-09-30"]["Interest Expense"] == 3933000000
    assert len(body["statement"]["2023-09-30"]) == 29
    # Only income metrics, although the recording answers more types.
    names = {display_name(f) for f in INCOME_FIELDS}
    assert all(set(period) <= names for period in body["statement"].values())


def test_balance_quarterly_aapl(api, yahoo, recording):
    yahoo.get(TIMESERIES + "AAPL", recording(AAPL_BALANCE_Q))
    response = api.get("/v1/financials/AAPL?statement=balance&frequency=quarterly")
    assert response.status_code == 200
    body = response.json()
    assert (body["statement_type"], body["frequency"]) == ("balance", "quarterly")
    assert list(body["statement"]) == ["2024-12-31", "2024-09-30", "2024-06-30", "2024-03-31"]
    q = body["statement"]["2024-12-31"]
    assert q["Total Assets"] == 344085000000
    assert q["Total Liabilities Net Minority Interest"] == 277327000000
    assert q["Stockholders Equity"] == 66758000000
    assert q["Net PPE"] == 46069000000
    assert q["Working Capital"] == -11125000000 == q["Current Assets"] - q["Current Liabilities"]
    assert q["Net Debt"] == 66500000000
    names = {display_name(f) for f in BALANCE_FIELDS}
    assert set(q) <= names
    [call] = timeseries_calls(yahoo)
    assert upstream_query(call)["type"] == ",".join(type_list("balance", "quarterly"))


def test_cashflow_annual_aapl(api, yahoo, recording):
    yahoo.get(TIMESERIES + "AAPL", recording(AAPL_CASH))
    body = api.get("/v1/financials/AAPL?statement=cashflow").json()
    year = body["statement"]["2024-09-30"]
    assert year["Operating Cash Flow"] == 118254000000
    assert year["Capital Expenditure"] == -9447000000
    assert year["Free Cash Flow"] == 108807000000
    assert year["Net PPE Purchase And Sale"] == -9447000000
    assert body["statement"]["2022-09-30"]["Changes In Cash"] == -10952000000
    assert set(year) <= {display_name(f) for f in CASH_FLOW_FIELDS}


def test_frequency_defaults_to_annual(api, yahoo, recording):
    yahoo.get(TIMESERIES + "AAPL", recording(AAPL_ALL))
    body = api.get("/v1/financials/aapl?statement=income").json()
    assert body["symbol"] == "AAPL"
    assert body["frequency"] == "annual"
    [call] = timeseries_calls(yahoo)
    assert urlsplit(call.request.url).path.endswith("/timeseries/AAPL")
    query = upstream_query(call)
    assert query["type"].split(",")[0] == "annualTotalRevenue"
    assert len(query["type"].split(",")) == 29
    assert (query["merge"], query["padTimeSeries"], query["lang"], query["region"]) == (
        "false", "true", "en-US", "US")
    assert query["crumb"]
    assert int(query["period2"]) - int(query["period1"]) in range(3652 * 86400,
                                                                   3654 * 86400)


@pytest.mark.parametrize(("symbol", "currency"), [
    ("0700.HK", "HKD"), ("HSBA.L", "GBP"), ("SMGR.JK", "IDR"), ("ocdo.l", "GBP"),
])
def test_exchange_suffix_symbols(api, yahoo, symbol, currency):
    canonical = symbol.upper()
    yahoo.get(TIMESERIES + canonical, one_value_payload(
        canonical, "annualTotalRevenue", "2024-12-31", 660257000000, currency))
    response = api.get(f"/v1/financials/{symbol}?statement=income")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "symbol": canonical, "statement_type": "income", "frequency": "annual",
        "statement": {"2024-12-31": {"Total Revenue": 660257000000}}}
    [call] = timeseries_calls(yahoo)
    assert call.request.url.split("?")[0] == TIMESERIES + canonical


def test_symbol_is_url_encoded_upstream(api, yahoo):
    yahoo.get(TIMESERIES + "M%26M.NS", one_value_payload("M&M.NS", "annualTotalRevenue",
                                                         "2024-03-31", 1e12))
    response = api.get("/v1/financials/M%26M.NS?statement=income")
    assert response.status_code == 200, response.content
    assert response.json()["symbol"] == "M&M.NS"
    assert response.json()["statement"] == {"2024-03-31": {"Total Revenue": 1000000000000}}
    [call] = timeseries_calls(yahoo)
    assert urlsplit(call.request.url).path.endswith("/timeseries/M%26M.NS")


# -- 404 -----------------------------------------------------------------------------------------
def test_crypto_has_no_statements_404(api, yahoo, recording):
    yahoo.get(TIMESERIES + "BTC-USD", recording(BTC))
    response = api.get("/v1/financials/BTC-USD?statement=income&frequency=quarterly")
    assert response.status_code == 404
    assert response.json() == {"detail": "No income data found for BTC-USD"}


def test_every_metric_empty_404(api, yahoo, recording):
    yahoo.get(TIMESERIES + "OCDO.L", recording(OCDO))
    response = api.get("/v1/financials/OCDO.L?statement=income&frequency=quarterly")
    assert response.status_code == 404
    assert response.json() == {"detail": "No income data found for OCDO.L"}


def test_empty_result_list_404(api, yahoo):
    yahoo.get(TIMESERIES + "ZZZZ", {"timeseries": {"result": [], "error": None}})
    response = api.get("/v1/financials/zzzz?statement=cashflow")
    assert response.status_code == 404
    assert response.json() == {"detail": "No cashflow data found for ZZZZ"}


def test_yahoo_404_is_404(api, yahoo):
    yahoo.get(TIMESERIES + "NOPE", {"finance": {"result": None, "error": {
        "code": "Not Found", "description": "HTTP 404 Not Found"}}}, status=404)
    response = api.get("/v1/financials/NOPE?statement=balance")
    assert response.status_code == 404
    assert response.json() == {"detail": "No balance data found for NOPE"}


def test_malformed_symbol_404_without_upstream_call(api, yahoo):
    response = api.get("/v1/financials/AA%20PL?statement=income")
    assert response.status_code == 404
    assert response.json() == {"detail": "Symbol not found: 'AA PL'"}
    assert len(yahoo.mock.calls) == 0


# -- 422 -----------------------------------------------------------------------------------------
def test_invalid_statement_and_frequency_422(api, yahoo):
    response = api.get("/v1/financials/AAPL?statement=foo&frequency=weekly")
    assert response.status_code == 422
    assert response.json() == {"errors": {"statement": [STATEMENT_ERROR],
                                          "frequency": [FREQUENCY_ERROR]}}
    assert len(yahoo.mock.calls) == 0


def test_missing_statement_422(api, yahoo):
    response = api.get("/v1/financials/AAPL")
    assert response.status_code == 422
    assert response.json() == {"errors": {"statement": ["Field required"]}}
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize(("query", "expected"), [
    ("statement=", {"statement": [STATEMENT_ERROR]}),
    ("statement=INCOME", {"statement": [STATEMENT_ERROR]}),
    ("statement=income&frequency=ttm", {"frequency": [FREQUENCY_ERROR]}),
    ("frequency=quarterly", {"statement": ["Field required"]}),
])
def test_other_invalid_values_422(api, yahoo, query, expected):
    response = api.get(f"/v1/financials/AAPL?{query}")
    assert response.status_code == 422
    assert response.json() == {"errors": expected}
    assert len(yahoo.mock.calls) == 0


def test_empty_frequency_is_422_not_the_default(api, yahoo):
    # The OpenAPI enum has no "": an empty value is invalid; leaving it out gives annual.
    response = api.get("/v1/financials/AAPL?statement=income&frequency=")
    assert response.status_code == 422
    assert response.json() == {"errors": {"frequency": [FREQUENCY_ERROR]}}
    assert len(yahoo.mock.calls) == 0


def test_parameters_are_checked_before_the_symbol(api, yahoo):
    response = api.get("/v1/financials/AA%20PL?statement=foo")
    assert response.status_code == 422
    assert response.json() == {"errors": {"statement": [STATEMENT_ERROR]}}


# -- upstream failures ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(FAILURES))
def test_upstream_failures(api, yahoo, kind):
    fail_url(yahoo.mock, TIMESERIES + "AAPL", kind)
    response = api.get("/v1/financials/AAPL?statement=income")
    status, code = FAILURES[kind]
    assert response.status_code == status
    body = response.json()
    assert body["provider"] == "yahoo"
    assert body["code"] == code
    assert set(body) == {"detail", "provider", "code"}


def test_garbage_answer_is_a_bad_gateway(api, yahoo):
    yahoo.get(TIMESERIES + "AAPL", {"quoteResponse": {"result": []}})
    response = api.get("/v1/financials/AAPL?statement=income")
    assert response.status_code == 502
    assert response.json()["code"] == "upstream_bad_response"


# -- path safety ---------------------------------------------------------------------------------
@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbols_never_reach_yahoo(api, yahoo, raw):
    response = api.get(f"/v1/financials/{raw}?statement=income")
    assert response.status_code in (404, 422), response.content
    body = response.json()
    assert set(body) == {"detail"} and isinstance(body["detail"], str)
    assert len(body["detail"]) < 200
    assert len(yahoo.mock.calls) == 0


# -- cache ---------------------------------------------------------------------------------------
def test_second_request_is_a_cache_hit(api, yahoo, recording):
    yahoo.get(TIMESERIES + "AAPL", recording(AAPL_INCOME))
    first = api.get("/v1/financials/AAPL?statement=income")
    second = api.get("/v1/financials/aapl?statement=income&frequency=annual")
    assert second.status_code == 200
    assert second["X-Cache"] == "HIT"
    assert second.json() == first.json()
    assert len(timeseries_calls(yahoo)) == 1


def test_statements_and_frequencies_are_separate_entries(api, yahoo, recording):
    yahoo.get(TIMESERIES + "AAPL", recording(AAPL_ALL))
    api.get("/v1/financials/AAPL?statement=income")
    api.get("/v1/financials/AAPL?statement=balance")
    api.get("/v1/financials/AAPL?statement=balance&frequency=quarterly")
    types = [upstream_query(c)["type"].split(",")[0] for c in timeseries_calls(yahoo)]
    assert types == ["annualTotalRevenue", "annualTotalAssets", "quarterlyTotalAssets"]


# -- sandbox -------------------------------------------------------------------------------------
@pytest.fixture
def sandbox(sandbox_upstream):
    return sandbox_upstream


@pytest.mark.parametrize("statement", ["income", "balance", "cashflow"])
@pytest.mark.parametrize("frequency", ["annual", "quarterly"])
def test_sandbox_answers_every_statement(api, sandbox, statement, frequency):
    response = api.get(f"/v1/financials/AAPL?statement={statement}&frequency={frequency}")
    assert response.status_code == 200, response.content
    body = response.json()
    periods = list(body["statement"])
    assert periods == sorted(periods, reverse=True)
    assert len(periods) in ((4, 5) if frequency == "annual" else (5, 6))
    latest = body["statement"][periods[0]]
    if statement == "income":
        assert latest["Gross Profit"] == latest["Total Revenue"] - latest["Cost Of Revenue"]
    elif statement == "balance":
        assert latest["Total Assets"] == latest["Total Liabilities Net Minority Interest"] + \
            latest["Total Equity Gross Minority Interest"]
    else:
        assert latest["Free Cash Flow"] == latest["Operating Cash Flow"] + \
            latest["Capital Expenditure"]
    logged = sandbox.requests_matching("/ws/fundamentals-timeseries/v1/finance/timeseries/")
    assert [e["path"] for e in logged] == ["/ws/fundamentals-timeseries/v1/finance/timeseries/AAPL"]
    assert logged[0]["status"] == 200


@pytest.mark.parametrize("symbol", ["0700.HK", "HSBA.L", "SMGR.JK"])
def test_sandbox_exchange_suffixes(api, sandbox, symbol):
    response = api.get(f"/v1/financials/{symbol}?statement=balance")
    assert response.status_code == 200, response.content
    assert response.json()["symbol"] == symbol
    assert sandbox.requests_matching(
        f"/ws/fundamentals-timeseries/v1/finance/timeseries/{symbol}")


@pytest.mark.parametrize(("symbol", "query"), [
    ("ZZZZ", "statement=income"), ("INVALIDX", "statement=balance"),
    ("BTC-USD", "statement=income"), ("SPY", "statement=cashflow"),
    ("HSBA.L", "statement=income&frequency=quarterly"),
])
def test_sandbox_no_data_404(api, sandbox, symbol, query):
    response = api.get(f"/v1/financials/{symbol}?{query}")
    assert response.status_code == 404
    statement = query.split("&")[0].split("=")[1]
    assert response.json() == {"detail": f"No {statement} data found for {symbol}"}


def test_sandbox_malformed_symbol_makes_no_request(api, sandbox):
    response = api.get("/v1/financials/..%2F..%2Fv7%2Ffinance%2Fquote?statement=income")
    assert response.status_code == 404
    assert sandbox.requests_matching("/") == []
