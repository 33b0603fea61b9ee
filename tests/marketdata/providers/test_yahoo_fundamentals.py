"""fundamentals-timeseries: every recording through parse_timeseries, the field lists, the
display names, the request (URL, parameters, window) and the cache."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers.yahoo.fundamentals import (
    STATEMENT_FIELDS,
    display_name,
    fetch_statement,
    field_of,
    parse_timeseries,
    type_list,
    window,
)
from marketdata.records.fundamentals import (
    BALANCE_FIELDS,
    CASH_FLOW_FIELDS,
    INCOME_FIELDS,
)
from tests.conftest import QUERY1, UPSTREAM_DIR, calls_to

from .helpers import recordings

FOLDER = "yahoo/ws-fundamentals-timeseries"
ALL_RECORDINGS = recordings(FOLDER)
AAPL_INCOME = f"{FOLDER}/AAPL-financials-annual.json"
AAPL_BALANCE_Q = f"{FOLDER}/AAPL-balance-sheet-quarterly.json"
AAPL_CASH = f"{FOLDER}/AAPL-cash-flow-annual.json"
AAPL_ALL = f"{FOLDER}/AAPL-all-annual.json"
BTC = f"{FOLDER}/BTC-USD-financials-quarterly.json"
OCDO = f"{FOLDER}/OCDO.L-financials-quarterly.json"
TIMESERIES = f"{QUERY1}/ws/fundamentals-timeseries/v1/finance/timeseries/"


def recorded_points(payload: dict) -> list[tuple[str, str, object]]:
    """(field, asOfDate, raw) for every datapoint, walked independently of the parser."""
    out = []
    for item in payload["timeseries"]["result"]:
        type_name = item["meta"]["type"][0]
        field = type_name.removeprefix("annual").removeprefix("quarterly")
        for point in item.get(type_name) or []:
            if point is not None:
                out.append((field, point["asOfDate"], point["reportedValue"]["raw"]))
    return out


def item(type_name: str, points: list, stamps: list | None = None) -> dict:
    body = {"meta": {"symbol": ["TEST"], "type": [type_name]}, type_name: points}
    if stamps is not None:
        body["timestamp"] = stamps
    return body


def point(as_of: str | None, reported: object, period: str = "12M") -> dict:
    out = {"dataId": 20100, "periodType": period, "currencyCode": "USD",
           "reportedValue": reported}
    if as_of is not None:
        out["asOfDate"] = as_of
    return out


def payload(*items: dict) -> dict:
    return {"timeseries": {"result": list(items), "error": None}}


# -- recordings -------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ALL_RECORDINGS)
def test_every_recorded_value_is_parsed(recording, path):
    body = recording(path)
    parsed = parse_timeseries(body)
    points = recorded_points(body)
    for field, as_of, raw in points:
        assert parsed[as_of][field] == raw, (field, as_of)
    assert sum(len(metrics) for metrics in parsed.values()) == len(points)
    assert list(parsed) == sorted(parsed, reverse=True), "newest period first"


def test_aapl_income_annual(recording):
    parsed = parse_timeseries(recording(AAPL_INCOME), INCOME_FIELDS)
    assert list(parsed) == ["2024-09-30", "2023-09-30", "2022-09-30"]
    latest = parsed["2024-09-30"]
    assert latest["TotalRevenue"] == 391035000000
    assert latest["CostOfRevenue"] == 210352000000
    assert latest["GrossProfit"] == 180683000000
    assert latest["NetIncome"] == 93736000000
    assert latest["EBITDA"] == 134661000000
    assert latest["BasicEPS"] == 6.11 and isinstance(latest["BasicEPS"], float)
    assert latest["DilutedAverageShares"] == 15408095000
    assert parsed["2022-09-30"]["TotalRevenue"] == 394328000000
    # Interest lines stop after FY2023 in this recording: present there, absent in 2024.
    assert parsed["2023-09-30"]["InterestExpense"] == 3933000000
    assert "InterestExpense" not in latest
    # Statement order, not Yahoo's shuffled answer order.
    assert list(latest) == [f for f in INCOME_FIELDS if f in latest]
    assert list(latest)[:4] == ["TotalRevenue", "OperatingRevenue", "CostOfRevenue",
                                "GrossProfit"]


def test_fields_filter_keeps_only_the_statement(recording):
    body = recording(AAPL_INCOME)
    everything = parse_timeseries(body)
    income = parse_timeseries(body, INCOME_FIELDS)
    assert "NetIncomeContinuousOperations" in everything["2024-09-30"]  # not one of ours
    assert set(income["2024-09-30"]) <= set(INCOME_FIELDS)
    # The four interest lines end in FY2023 in this recording.
    assert len(income["2024-09-30"]) == 25
    assert {"NetInterestIncome", "InterestExpense", "InterestIncome",
            "NetNonOperatingInterestIncomeExpense"}.isdisjoint(income["2024-09-30"])
    assert len(income["2023-09-30"]) == 29


def test_aapl_balance_sheet_quarterly(recording):
    parsed = parse_timeseries(recording(AAPL_BALANCE_Q), BALANCE_FIELDS)
    assert list(parsed) == ["2024-12-31", "2024-09-30", "2024-06-30", "2024-03-31"]
    q = parsed["2024-12-31"]
    assert q["TotalAssets"] == 344085000000
    assert q["TotalLiabilitiesNetMinorityInterest"] == 277327000000
    assert q["StockholdersEquity"] == 66758000000
    assert q["TotalAssets"] == q["TotalLiabilitiesNetMinorityInterest"] + \
        q["TotalEquityGrossMinorityInterest"]
    assert parsed["2024-03-31"]["TotalAssets"] == 337411000000


def test_aapl_cash_flow_annual(recording):
    parsed = parse_timeseries(recording(AAPL_CASH), CASH_FLOW_FIELDS)
    assert list(parsed) == ["2024-09-30", "2023-09-30", "2022-09-30"]
    year = parsed["2024-09-30"]
    assert year["OperatingCashFlow"] == 118254000000
    assert year["CapitalExpenditure"] == -9447000000
    assert year["FreeCashFlow"] == 108807000000 == year["OperatingCashFlow"] + \
        year["CapitalExpenditure"]
    assert parsed["2022-09-30"]["ChangesInCash"] == -10952000000


def test_aapl_all_annual_has_all_three_statements(recording):
    body = recording(AAPL_ALL)
    year = parse_timeseries(body)["2024-09-30"]
    assert year["TotalRevenue"] == 391035000000
    assert year["TotalAssets"] == 364980000000
    assert year["FreeCashFlow"] == 108807000000
    for statement, fields in STATEMENT_FIELDS.items():
        parsed = parse_timeseries(body, fields)
        assert set(parsed["2024-09-30"]) <= set(fields), statement
        assert list(parsed) == ["2024-09-30", "2023-09-30", "2022-09-30"]


@pytest.mark.parametrize("path", [BTC, OCDO])
def test_recordings_without_values_parse_to_nothing(recording, path):
    body = recording(path)
    assert len(body["timeseries"]["result"]) == 140
    assert all(set(i) == {"meta"} for i in body["timeseries"]["result"])
    assert parse_timeseries(body) == {}
    assert parse_timeseries(body, INCOME_FIELDS) == {}


# -- parser robustness --------------------------------------------------------------------------
def test_reported_value_shapes():
    parsed = parse_timeseries(payload(
        item("annualTotalRevenue", [point("2024-12-31", {"raw": 1000, "fmt": "1.00k"})]),
        item("annualGrossProfit", [point("2024-12-31", 400)]),
        item("annualNetIncome", [point("2024-12-31", {"raw": {"parsedValue": 90,
                                                                "source": "10-K"}})]),
        item("annualBasicEPS", [point("2024-12-31", {"raw": 1.25, "fmt": "1.25"})]),
        item("annualDilutedEPS", [point("2024-12-31", {"raw": 2.0, "fmt": "2.00"})]),
    ))
    assert parsed == {"2024-12-31": {"TotalRevenue": 1000, "GrossProfit": 400,
                                     "NetIncome": 90, "BasicEPS": 1.25, "DilutedEPS": 2}}
    assert isinstance(parsed["2024-12-31"]["DilutedEPS"], int), "integral floats -> int"


def test_unusable_values_and_null_padding_are_skipped():
    parsed = parse_timeseries(payload(
        item("quarterlyTotalRevenue", [None, point("2024-06-30", {"raw": 5}), None],
             [1704067200, 1719705600, 1727654400]),
        item("quarterlyGrossProfit", [point("2024-06-30", {"raw": float("nan")})]),
        item("quarterlyNetIncome", [point("2024-06-30", {"raw": True})]),
        item("quarterlyEBIT", [point("2024-06-30", {"raw": "12", "fmt": "12"})]),
        item("quarterlyEBITDA", [point("2024-06-30", {})]),
        item("quarterlyPretaxIncome", []),
        {"meta": {"symbol": ["TEST"], "type": ["quarterlyTaxProvision"]}},
        {"meta": {}}, {"unexpected": 1}, "not an item",
    ))
    assert parsed == {"2024-06-30": {"TotalRevenue": 5}}


def test_missing_as_of_date_falls_back_to_the_timestamp():
    parsed = parse_timeseries(payload(
        item("annualTotalRevenue", [point(None, 7), point("2024-13-45", 8), point("x", 9)],
             [1727654400, 1696032000]),
    ))
    # 2024-09-30 from the first stamp, 2023-09-30 from the second, the third has none.
    assert parsed == {"2024-09-30": {"TotalRevenue": 7}, "2023-09-30": {"TotalRevenue": 8}}


def test_series_split_over_two_items_are_merged():
    parsed = parse_timeseries(payload(
        item("annualTotalRevenue", [point("2023-12-31", 1)]),
        item("annualTotalRevenue", [point("2024-12-31", 2)]),
    ))
    assert parsed == {"2024-12-31": {"TotalRevenue": 2}, "2023-12-31": {"TotalRevenue": 1}}


@pytest.mark.parametrize("body", [
    None, [], "text", {}, {"timeseries": None}, {"timeseries": {"result": "x"}},
    {"timeseries": {"result": None, "error": {"code": "Bad Request",
                                              "description": "Invalid type"}}},
])
def test_bad_payloads_are_a_bad_upstream_answer(body):
    with pytest.raises(UpstreamBadResponse):
        parse_timeseries(body)


@pytest.mark.parametrize("body", [
    {"timeseries": {"result": [], "error": None}},
    {"timeseries": {"result": None, "error": None}},
    {"timeseries": {"result": None, "error": {"code": "Not Found", "description": "x"}}},
])
def test_empty_answers_are_no_data(body):
    assert parse_timeseries(body) == {}


# -- field lists and names ----------------------------------------------------------------------
def test_field_list_sizes():
    assert (len(INCOME_FIELDS), len(BALANCE_FIELDS), len(CASH_FLOW_FIELDS)) == (29, 47, 46)
    every = INCOME_FIELDS + BALANCE_FIELDS + CASH_FLOW_FIELDS
    assert len(set(every)) == len(every)
    assert all(f[:1].isupper() and f.isalpha() for f in every)


def test_every_field_is_a_type_yahoo_was_asked_for_in_the_recordings():
    manifest = UPSTREAM_DIR / "MANIFEST.json"
    if not manifest.exists():
        pytest.skip("no shared/upstream")
    requested = set()
    for record in json.loads(manifest.read_text()):
        if record["path"].startswith(FOLDER):
            for type_name in parse_qs(urlsplit(record["url"]).query)["type"][0].split(","):
                requested.add(field_of(type_name))
    every = INCOME_FIELDS + BALANCE_FIELDS + CASH_FLOW_FIELDS
    assert [f for f in every if f not in requested] == []


def test_type_list_prefixes_the_frequency():
    assert type_list("income", "annual")[:2] == ["annualTotalRevenue", "annualOperatingRevenue"]
    assert type_list("cashflow", "quarterly")[-1] == "quarterlyCapitalExpenditureReported"
    assert len(type_list("balance", "quarterly")) == 47


@pytest.mark.parametrize(("type_name", "field"), [
    ("annualTotalRevenue", "TotalRevenue"), ("quarterlyEBIT", "EBIT"),
    ("trailingDilutedEPS", "DilutedEPS"), ("TotalRevenue", "TotalRevenue"),
    ("annualized", "annualized"),
])
def test_field_of(type_name, field):
    assert field_of(type_name) == field


@pytest.mark.parametrize(("field", "name"), [
    ("TotalRevenue", "Total Revenue"),
    ("GrossProfit", "Gross Profit"),
    ("NetIncome", "Net Income"),
    ("EBIT", "EBIT"),
    ("EBITDA", "EBITDA"),
    ("NormalizedEBITDA", "Normalized EBITDA"),
    ("DilutedEPS", "Diluted EPS"),
    ("NetPPE", "Net PPE"),
    ("NetPPEPurchaseAndSale", "Net PPE Purchase And Sale"),
    ("PurchaseOfPPE", "Purchase Of PPE"),
    ("NetIncomeFromContinuingOperations", "Net Income From Continuing Operations"),
    ("CashCashEquivalentsAndShortTermInvestments",
     "Cash Cash Equivalents And Short Term Investments"),
    ("TotalOperatingIncomeAsReported", "Total Operating Income As Reported"),
    ("DilutedNIAvailtoComStockholders", "Diluted NI Availto Com Stockholders"),
])
def test_display_names(field, name):
    assert display_name(field) == name


def test_display_names_are_reversible_and_unique():
    every = INCOME_FIELDS + BALANCE_FIELDS + CASH_FLOW_FIELDS
    names = [display_name(f) for f in every]
    assert [n.replace(" ", "") for n in names] == list(every)
    assert len(set(names)) == len(names)
    assert all("  " not in n and n == n.strip() for n in names)


# -- window, request and cache ------------------------------------------------------------------
def _midnight(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())


def test_window_is_ten_years_aligned_on_the_day():
    assert window(date(2025, 2, 21)) == (_midnight(date(2015, 2, 21)),
                                         _midnight(date(2025, 2, 21)))
    assert window(date(2024, 2, 29)) == (_midnight(date(2014, 2, 28)),
                                         _midnight(date(2024, 2, 29)))
    today = datetime.now(UTC).date()
    assert window() == window(today)


def test_fetch_sends_yahoo_parameters_and_crumb(yahoo, recording):
    yahoo.get(TIMESERIES + "AAPL", recording(AAPL_INCOME))
    statement = fetch_statement("AAPL", "income", "annual", today=date(2025, 2, 21))
    assert statement["2024-09-30"]["TotalRevenue"] == 391035000000
    calls = calls_to(yahoo.mock, "/ws/fundamentals-timeseries/")
    assert len(calls) == 1
    url = urlsplit(calls[0].request.url)
    assert url.netloc == "query1.finance.yahoo.com"
    assert url.path == "/ws/fundamentals-timeseries/v1/finance/timeseries/AAPL"
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert query == {
        "merge": "false", "padTimeSeries": "true",
        "period1": str(_midnight(date(2015, 2, 21))),
        "period2": str(_midnight(date(2025, 2, 21))),
        "type": ",".join(type_list("income", "annual")),
        "lang": "en-US", "region": "US", "crumb": "haT3oykhHqZ",
    }


@pytest.mark.parametrize(("symbol", "path"), [
    ("0700.HK", "0700.HK"), ("HSBA.L", "HSBA.L"), ("SMGR.JK", "SMGR.JK"),
    ("M&M.NS", "M%26M.NS"), ("BRK-B", "BRK-B"),
])
def test_symbol_is_url_encoded_into_the_path(yahoo, symbol, path):
    yahoo.get(TIMESERIES + path, payload(item("quarterlyTotalRevenue",
                                              [point("2024-12-31", 10, "3M")])))
    assert fetch_statement(symbol, "income", "quarterly") == {
        "2024-12-31": {"TotalRevenue": 10}}
    [call] = calls_to(yahoo.mock, "/ws/fundamentals-timeseries/")
    assert call.request.url.split("?")[0] == TIMESERIES + path
    assert parse_qs(urlsplit(call.request.url).query)["type"][0].startswith(
        "quarterlyTotalRevenue,")


def test_no_data_is_not_found_and_cached(yahoo, recording):
    yahoo.get(TIMESERIES + "BTC-USD", recording(BTC))
    for _ in range(2):
        with pytest.raises(NotFound) as caught:
            fetch_statement("BTC-USD", "income", "quarterly")
        assert caught.value.detail == "No income data found for BTC-USD"
    assert len(calls_to(yahoo.mock, "/ws/fundamentals-timeseries/")) == 1


def test_yahoo_404_is_not_found(yahoo):
    yahoo.get(TIMESERIES + "AAPL", {"finance": {"result": None, "error": {
        "code": "Not Found", "description": "HTTP 404 Not Found"}}}, status=404)
    with pytest.raises(NotFound) as caught:
        fetch_statement("AAPL", "balance", "annual")
    assert caught.value.detail == "No balance data found for AAPL"


def test_answers_are_cached_per_statement_and_frequency(yahoo, recording):
    yahoo.get(TIMESERIES + "AAPL", recording(AAPL_ALL))
    first = fetch_statement("AAPL", "income", "annual")
    assert fetch_statement("AAPL", "income", "annual") == first
    assert len(calls_to(yahoo.mock, "/ws/fundamentals-timeseries/")) == 1
    balance = fetch_statement("AAPL", "balance", "annual")
    assert balance["2024-09-30"]["TotalAssets"] == 364980000000
    assert "TotalRevenue" not in balance["2024-09-30"]
    assert len(calls_to(yahoo.mock, "/ws/fundamentals-timeseries/")) == 2
