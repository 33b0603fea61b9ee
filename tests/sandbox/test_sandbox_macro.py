"""The simulated FRED and Treasury: same requests, shapes and errors as the real ones
(the FRED API recordings in shared/upstream/fred), deterministic data, one yield curve
shared by both providers, publication by the sandbox clock."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, date, datetime

import pytest

from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.fred import series
from marketdata.sandbox.prices import series_for
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.treasury import curve

CLOCK = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)  # a Friday afternoon
API_HOST, SITE_HOST, TREASURY_HOST = "api.stlouisfed.org", "fred.stlouisfed.org", \
    "home.treasury.gov"
OBSERVATIONS = "/fred/series/observations"
GRAPH = "/graph/fredgraph.csv"
RATES = "/resource-center/data-chart-center/interest-rates/daily-treasury-rates.csv/{}/all"
RECORDING = "fred/series-observations/SOFR_2024-06-01_2024-06-06.json"


@pytest.fixture(scope="module")
def sandbox() -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: CLOCK)


def get(sb: UpstreamSandbox, host: str, path: str, **query: str) -> SandboxResponse:
    return sb.handle("GET", host, path, {k: [v] for k, v in query.items()}, {})


def api(sb: UpstreamSandbox, series_id: str | None = "DGS10", key: str | None = "k",
        **query: str) -> SandboxResponse:
    params = {"file_type": "json", **query}
    if series_id is not None:
        params["series_id"] = series_id
    if key is not None:
        params["api_key"] = key
    return get(sb, API_HOST, OBSERVATIONS, **params)


def treasury_rows(sb: UpstreamSandbox, year: int, **query: str) -> list[list[str]]:
    params = {"type": "daily_treasury_yield_curve", "field_tdr_date_value": str(year),
              "submit": "time series 1", **query}
    answer = get(sb, TREASURY_HOST, RATES.format(year), **params)
    assert answer.status == 200
    assert answer.headers["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(answer.body.decode())))


# ---- routing ----------------------------------------------------------------------------------

def test_hosts(sandbox):
    for host in (API_HOST, SITE_HOST):
        assert sandbox.provider_for_host(host).name == "fred"
    assert sandbox.provider_for_host(TREASURY_HOST).name == "treasury"
    lost = get(sandbox, API_HOST, "/fred/series/nothing")
    assert lost.status == 404 and json.loads(lost.body)["error_code"] == 404
    page = get(sandbox, TREASURY_HOST, "/resource-center/nothing")
    assert page.status == 404 and b"Page Not Found" in page.body


# ---- FRED API ---------------------------------------------------------------------------------

def test_api_shape_follows_the_recording(sandbox, recording):
    recorded = recording(RECORDING)
    answer = api(sandbox, "sofr", observation_start="2024-06-01",
                 observation_end="2024-06-06", limit="100000")
    assert answer.status == 200 and answer.headers["Content-Type"].startswith(
        "application/json")
    body = json.loads(answer.body)
    assert list(body) == list(recorded)
    assert [o["date"] for o in body["observations"]] == [
        o["date"] for o in recorded["observations"]]  # the same business days
    assert all(list(o) == list(recorded["observations"][0]) for o in body["observations"])
    assert body["count"] == 4 and body["realtime_start"] == "2026-11-20"
    assert all(isinstance(o["value"], str) and len(o["value"].split(".")[1]) == 2
               for o in body["observations"])


def test_api_missing_values_order_and_windows(sandbox):
    full = json.loads(api(sandbox, "DGS10").body)
    rows = full["observations"]
    assert rows[0]["date"] == "1990-01-02"
    assert rows[-1]["date"] == "2026-11-19"  # today's curve is out in the evening
    by_date = {o["date"]: o["value"] for o in rows}
    assert by_date["2024-07-04"] == by_date["2024-12-25"] == "."
    assert "2024-07-06" not in by_date  # weekdays only
    desc = json.loads(api(sandbox, "DGS10", sort_order="desc", limit="3", offset="1").body)
    assert [o["date"] for o in desc["observations"]] == ["2026-11-18", "2026-11-17",
                                                         "2026-11-16"]
    assert desc["count"] == full["count"] and desc["limit"] == 3 and desc["offset"] == 1
    xml = api(sandbox, "DGS10", file_type="xml", observation_start="2024-01-02",
              observation_end="2024-01-03")
    assert xml.headers["Content-Type"].startswith("text/xml")
    assert xml.body.count(b"<observation ") == 2


@pytest.mark.parametrize(("params", "message"), [
    ({"key": None}, "Bad Request.  Variable api_key has not been set."),
    ({"key": "my-INVALID-key"}, "Bad Request.  The value for variable api_key is not "
                                "registered.  Read https://fred.stlouisfed.org/docs/api/"
                                "api_key.html for more information."),
    ({"series_id": None}, "Bad Request.  Variable series_id is not set."),
    ({"series_id": "NOTFOUNDX"}, "Bad Request.  The series does not exist."),
    ({"series_id": "xunknown"}, "Bad Request.  The series does not exist."),
    ({"series_id": "ZZZZ1"}, "Bad Request.  The series does not exist."),
    ({"series_id": "DGS-10"}, "Bad Request.  The series does not exist."),
    ({"series_id": "x" * 41}, "Bad Request.  The series does not exist."),
])
def test_api_errors_in_freds_shape(sandbox, params, message):
    answer = api(sandbox, params.get("series_id", "DGS10"), params.get("key", "k"))
    assert answer.status == 400
    assert json.loads(answer.body) == {"error_code": 400, "error_message": message}


def test_api_bad_parameters(sandbox):
    for query in ({"observation_start": "2024-13-01"}, {"sort_order": "up"},
                  {"limit": "0"}, {"offset": "-1"}):
        assert api(sandbox, "GDP", **query).status == 400, query
    xml = api(sandbox, None, file_type="xml")
    assert xml.status == 400 and b'<error code="400"' in xml.body


# ---- fredgraph.csv ----------------------------------------------------------------------------

def test_graph_csv_matches_the_api(sandbox):
    answer = get(sandbox, SITE_HOST, GRAPH, id="dgs10")
    assert answer.status == 200 and answer.headers["Content-Type"].startswith("text/csv")
    lines = answer.body.decode().splitlines()
    assert lines[0] == "observation_date,DGS10"
    csv_rows = [line.split(",") for line in lines[1:]]
    api_rows = json.loads(api(sandbox, "DGS10").body)["observations"]
    assert [(o["date"], "" if o["value"] == "." else o["value"]) for o in api_rows] == [
        tuple(r) for r in csv_rows]
    window = get(sandbox, SITE_HOST, GRAPH, id="DGS10", cosd="2024-07-03",
                 coed="2024-07-05").body.decode().splitlines()
    assert window[1:] == [f"2024-07-03,{dict(csv_rows)['2024-07-03']}", "2024-07-04,",
                          f"2024-07-05,{dict(csv_rows)['2024-07-05']}"]


def test_graph_unknown_and_missing_id(sandbox):
    unknown = get(sandbox, SITE_HOST, GRAPH, id="INVALIDSERIES")
    assert unknown.status == 404 and unknown.headers["Content-Type"].startswith("text/html")
    assert b"series does not exist" in unknown.body
    assert get(sandbox, SITE_HOST, GRAPH).status == 400


# ---- series -----------------------------------------------------------------------------------

def test_deterministic_and_prefix_stable():
    early = UpstreamSandbox(clock=lambda: datetime(2025, 3, 3, tzinfo=UTC), seed=1)
    late = UpstreamSandbox(clock=lambda: CLOCK, seed=99)
    for series_id in ("GDP", "UNRATE", "T10YIE", "DFF", "VIXCLS"):
        a = [(o["date"], o["value"]) for o in json.loads(api(early, series_id).body)[
            "observations"]]
        b = [(o["date"], o["value"]) for o in json.loads(api(late, series_id).body)[
            "observations"]]
        assert a and len(b) > len(a)
        assert b[:len(a)] == a, series_id


def test_publication_lags(sandbox):
    def last(series_id: str) -> str:
        return json.loads(api(sandbox, series_id).body)["observations"][-1]["date"]

    assert last("UNRATE") == "2026-10-01"  # monthly: two weeks after the month
    assert last("GDP") == "2026-07-01"  # quarterly: four weeks after the quarter
    assert last("ICSA") == "2026-11-14"  # weekly, Saturdays: five days after
    assert last("DFF") == "2026-11-19"


def test_famous_series_start_and_levels(sandbox):
    gdp = json.loads(api(sandbox, "GDP").body)["observations"]
    assert gdp[0] == {"realtime_start": "2026-11-20", "realtime_end": "2026-11-20",
                      "date": "1947-01-01", "value": "243.164"}
    unrate = [float(o["value"]) for o in json.loads(api(sandbox, "UNRATE").body)[
        "observations"]]
    assert 2.5 <= min(unrate) and max(unrate) <= 11.0
    dff = {o["date"]: o["value"] for o in json.loads(api(sandbox, "DFF").body)["observations"]}
    assert dff["2024-07-06"] == dff["2024-07-05"]  # the weekend keeps Friday's rate
    fedfunds = json.loads(api(sandbox, "FEDFUNDS", observation_start="2024-07-01",
                              observation_end="2024-07-01").body)["observations"]
    july = [float(v) for d, v in dff.items() if d.startswith("2024-07")]
    assert float(fedfunds[0]["value"]) == pytest.approx(sum(july) / len(july), abs=0.006)


def test_dgs_series_are_the_treasury_curve(sandbox):
    rows = treasury_rows(sandbox, 2024)
    header, data = rows[0], rows[1:]
    ten = header.index("10 Yr")
    curve_10y = {datetime.strptime(r[0], "%m/%d/%Y").date().isoformat(): r[ten] for r in data}
    dgs10 = {o["date"]: o["value"] for o in json.loads(api(
        sandbox, "DGS10", observation_start="2024-01-01",
        observation_end="2024-12-31").body)["observations"] if o["value"] != "."}
    assert dgs10 == curve_10y
    spread = json.loads(api(sandbox, "T10Y2Y", observation_start="2024-06-03",
                            observation_end="2024-06-03").body)["observations"][0]
    on = curve.yields_on(date(2024, 6, 3))
    assert float(spread["value"]) == pytest.approx(on["10 Yr"] - on["2 Yr"], abs=1e-9)


def test_price_series_are_the_yahoo_sandbox_closes(sandbox):
    vix = json.loads(api(sandbox, "VIXCLS", observation_start="2024-06-03",
                         observation_end="2024-06-07").body)["observations"]
    prices = series_for("^VIX")
    closes = {str(d): c for d, c in zip(prices.days, prices.c, strict=True)}
    assert [float(o["value"]) for o in vix] == [closes[o["date"]] for o in vix]


@pytest.mark.parametrize(("series_id", "known"), [
    ("DGS10", True), ("gdp", True), ("T10YIE", True), (" walcl ", True),
    ("SOME_NEW_SERIES_1", False), ("0ABC", False), ("DGS11", False), ("INVALID", False),
    ("XNOTFOUNDX", False), ("ZZZZ", False), ("A.B", False), ("", False), ("x" * 40, False)])
def test_unknown_series_rule(series_id, known):
    assert series.is_known_series(series_id) is known


# ---- Treasury CSV -----------------------------------------------------------------------------

def test_treasury_csv_shape_and_order(sandbox):
    answer = get(sandbox, TREASURY_HOST, RATES.format(2025),
                 type="daily_treasury_yield_curve", field_tdr_date_value="2025")
    text = answer.body.decode()
    assert text.startswith('Date,"1 Mo","1.5 Month","2 Mo","3 Mo","4 Mo","6 Mo","1 Yr",'
                           '"2 Yr","3 Yr","5 Yr","7 Yr","10 Yr","20 Yr","30 Yr"\r\n')
    assert "attachment" in answer.headers["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(text)))[1:]
    days = [datetime.strptime(r[0], "%m/%d/%Y").date() for r in rows]
    assert days == sorted(days, reverse=True) and days[0] == date(2025, 12, 31)
    assert all(d.weekday() < 5 for d in days)
    assert date(2025, 7, 4) not in days and date(2025, 12, 25) not in days
    assert 245 <= len(days) <= 252
    before = [r for r, d in zip(rows, days, strict=True) if d < date(2025, 2, 18)]
    assert before and all(r[2] == "" for r in before)  # 1.5 Month from 2025-02-18
    values = [float(v) for r in rows for v in r[1:] if v]
    assert all(0 <= v < 20 and v == round(v, 2) for v in values)


@pytest.mark.parametrize(("year", "header"), [
    (1990, ["Date", "3 Mo", "6 Mo", "1 Yr", "2 Yr", "3 Yr", "5 Yr", "7 Yr", "10 Yr",
            "30 Yr"]),
    (2004, ["Date", "1 Mo", "3 Mo", "6 Mo", "1 Yr", "2 Yr", "3 Yr", "5 Yr", "7 Yr", "10 Yr",
            "20 Yr"]),
    (2022, ["Date", "1 Mo", "2 Mo", "3 Mo", "4 Mo", "6 Mo", "1 Yr", "2 Yr", "3 Yr", "5 Yr",
            "7 Yr", "10 Yr", "20 Yr", "30 Yr"]),
])
def test_treasury_maturities_by_year(sandbox, year, header):
    rows = treasury_rows(sandbox, year)
    assert rows[0] == header
    if year == 2022:  # 4 Mo is a column of the 2022 file, blank before 2022-10-19
        four = header.index("4 Mo")
        first = date(2022, 10, 19)
        pairs = {(datetime.strptime(r[0], "%m/%d/%Y").date() < first, r[four] == "")
                 for r in rows[1:]}
        assert pairs == {(True, True), (False, False)}


def test_treasury_current_year_is_published_through_yesterday_evening(sandbox):
    rows = treasury_rows(sandbox, 2026)
    assert rows[1][0] == "11/19/2026"


@pytest.mark.parametrize("year", [1989, 2027, 2040])
def test_treasury_years_without_data_are_the_header_alone(sandbox, year):
    rows = treasury_rows(sandbox, year)
    assert len(rows) == 1 and rows[0][0] == "Date"


def test_treasury_other_types_are_not_simulated(sandbox):
    assert treasury_rows(sandbox, 2024, type="daily_treasury_real_yield_curve") == [["Date"]]
    assert treasury_rows(sandbox, 2024, field_tdr_date_value="2023") == [["Date"]]


def test_faults_in_each_providers_shape():
    sb = UpstreamSandbox(clock=lambda: CLOCK, fail_rate=1.0)
    fred_fault = api(sb, "GDP")
    assert fred_fault.status == 503
    assert json.loads(fred_fault.body)["error_code"] == 503
    page = get(sb, TREASURY_HOST, RATES.format(2024), type="daily_treasury_yield_curve")
    assert page.status == 503 and page.headers["Content-Type"].startswith("text/html")
    graph = get(sb, SITE_HOST, GRAPH, id="GDP")
    assert graph.status == 503 and graph.headers["Content-Type"].startswith("text/html")
