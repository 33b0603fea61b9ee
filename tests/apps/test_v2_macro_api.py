"""GET /v2/macro/series/{id} and /v2/macro/treasury-yields.

FRED's API is mocked with the real recordings (values exactly as recorded); fredgraph.csv
and the Treasury CSV, of which no answer was recorded, with hand-made bodies in their real
shapes. The sandbox tests run the real client and parsers against the in-process
simulator; the hypothesis properties page through sandbox answers.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import responses
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.macro import serializers as macro_serializers
from marketdata import capabilities
from marketdata.providers import fred, treasury
from marketdata.providers.fred import API_URL, GRAPH_URL, FredProvider
from marketdata.providers.treasury import CSV_URL, TreasuryProvider
from tests.apps.payloads import FAILURES, fail_url
from tests.conftest import capture_logs

KEY = "0123456789abcdef0123456789abcdef"
YEAR = 2026  # "now" for the year rules
SOFR = "fred/series-observations/SOFR_2024-06-01_2024-06-06.json"
SOFR_OBSERVATIONS = [{"date": "2024-06-03", "value": 5.35}, {"date": "2024-06-04", "value": 5.33},
                     {"date": "2024-06-05", "value": 5.33}, {"date": "2024-06-06", "value": 5.33}]
GRAPH_CSV = "observation_date,SOFR\n2024-06-03,5.35\n2024-06-04,5.33\n2024-06-05,\n" \
            "2024-06-06,5.33\n"
GRAPH_OBSERVATIONS = [{"date": "2024-06-03", "value": 5.35},
                      {"date": "2024-06-04", "value": 5.33},
                      {"date": "2024-06-05", "value": None},
                      {"date": "2024-06-06", "value": 5.33}]
UNKNOWN_SERIES = {"error_code": 400, "error_message": "Bad Request.  The series does not exist."}
UNREGISTERED_KEY = {"error_code": 400, "error_message": (
    "Bad Request.  The value for variable api_key is not registered.  Read "
    "https://fred.stlouisfed.org/docs/api/api_key.html for more information.")}
# A hand-made 2022 Treasury CSV in the real shape (the 02/01 values are the recorded XML
# fragment's; 4 Mo is a column of the 2022 file, blank before October).
TREASURY_2022 = (
    'Date,"1 Mo","2 Mo","3 Mo","4 Mo","6 Mo","1 Yr","2 Yr","3 Yr","5 Yr","7 Yr","10 Yr",'
    '"20 Yr","30 Yr"\r\n'
    "12/30/2022,4.12,4.41,4.42,4.69,4.76,4.73,4.41,4.22,3.99,3.96,3.88,4.14,3.97\r\n"
    "12/29/2022,4.04,4.39,4.45,4.66,4.73,4.71,4.34,4.16,3.94,3.91,3.83,4.09,3.92\r\n"
    "02/01/2022,0.04,0.10,0.19,,0.48,0.78,1.18,1.39,1.63,1.76,1.81,2.19,2.12\r\n")
ROW_MEMBERS = ("date", "y1M", "y2M", "y3M", "y4M", "y6M", "y1", "y2", "y3", "y5", "y7", "y10",
               "y20", "y30")  # the spec's row, in its order
ROW_2022_02_01 = {"date": "2022-02-01", "y1M": 0.04, "y2M": 0.10, "y3M": 0.19, "y4M": None,
                  "y6M": 0.48, "y1": 0.78, "y2": 1.18, "y3": 1.39, "y5": 1.63, "y7": 1.76,
                  "y10": 1.81, "y20": 2.19, "y30": 2.12}


@pytest.fixture(autouse=True)
def _setup(monkeypatch, settings):
    """No FRED key unless a test sets one; fast retries; the current year pinned."""
    settings.FRED_API_KEY = ""
    capabilities.reset_warnings()
    for cls, config in ((FredProvider, fred.PROVIDER), (TreasuryProvider, treasury.PROVIDER)):
        monkeypatch.setattr(cls, "config", dataclasses.replace(
            config, backoff_seconds=0.001, backoff_max_seconds=0.001))
    monkeypatch.setattr(macro_serializers, "current_year", lambda: YEAR)


@pytest.fixture
def mock():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as m:
        yield m


def _pattern(url: str) -> re.Pattern[str]:
    return re.compile(re.escape(url) + r"(\?.*)?$")


def api_answers(mock, body: Any, status: int = 200) -> None:
    mock.add(responses.GET, _pattern(API_URL), body=json.dumps(body), status=status,
             content_type="application/json; charset=UTF-8")


def graph_answers(mock, body: str, status: int = 200, content_type: str = "text/csv") -> None:
    mock.add(responses.GET, _pattern(GRAPH_URL), body=body, status=status,
             content_type=content_type)


def treasury_answers(mock, year: int, body: str, status: int = 200) -> None:
    mock.add(responses.GET, _pattern(CSV_URL.format(year=year)), body=body, status=status,
             content_type="text/csv; charset=utf-8")


def calls(mock, url: str) -> list[Any]:
    return [c for c in mock.calls if c.request.url.split("?")[0] == url]


# ---- /v2/macro/series/{id} ------------------------------------------------------------------

def test_series_from_the_api_exactly_as_recorded(api, mock, settings, recording):
    settings.FRED_API_KEY = KEY
    api_answers(mock, recording(SOFR))
    response = api.get("/v2/macro/series/sofr")
    assert response.status_code == 200, response.content
    assert response.json() == {"id": "SOFR", "observations": SOFR_OBSERVATIONS}
    (call,) = calls(mock, API_URL)
    assert parse_qs(urlsplit(call.request.url).query) == {
        "series_id": ["SOFR"], "api_key": [KEY], "file_type": ["json"]}
    assert not calls(mock, GRAPH_URL)
    assert KEY not in response.content.decode()


def test_series_without_a_key_from_the_csv(api, mock):
    graph_answers(mock, GRAPH_CSV)
    response = api.get("/v2/macro/series/SOFR")
    assert response.status_code == 200, response.content
    assert response.json() == {"id": "SOFR", "observations": GRAPH_OBSERVATIONS}
    assert not calls(mock, API_URL)
    (call,) = calls(mock, GRAPH_URL)
    assert parse_qs(urlsplit(call.request.url).query) == {"id": ["SOFR"]}


def test_paging_and_fields(api, mock):
    graph_answers(mock, GRAPH_CSV)
    first = api.get("/v2/macro/series/SOFR?limit=3").json()
    assert first["id"] == "SOFR"
    page = first["observations"]
    assert page["nodes"] == GRAPH_OBSERVATIONS[:3]
    assert [e["node"] for e in page["edges"]] == page["nodes"]
    assert page["pageInfo"]["hasNextPage"] is True
    cursor = page["pageInfo"]["endCursor"]
    second = api.get(f"/v2/macro/series/SOFR?limit=3&cursor={cursor}").json()
    assert second["observations"]["nodes"] == GRAPH_OBSERVATIONS[3:]
    assert second["observations"]["pageInfo"]["hasNextPage"] is False
    assert api.get("/v2/macro/series/SOFR?fields=id").json() == {"id": "SOFR"}
    assert api.get("/v2/macro/series/SOFR?fields=observations,bogus").json() == {
        "observations": GRAPH_OBSERVATIONS}
    assert api.get("/v2/macro/series/SOFR?fields=bogus").json()["id"] == "SOFR"
    assert len(calls(mock, GRAPH_URL)) == 1  # one upstream call, cached for the rest


@pytest.mark.parametrize("series_id", ["DGS-10", "x" * 41, "%C5%BFpy", "A%2FB", "..",
                                       "DG%20S10", "GDP%00"])
def test_malformed_id_is_404_without_upstream_call(api, mock, settings, series_id):
    settings.FRED_API_KEY = KEY
    response = api.get(f"/v2/macro/series/{series_id}")
    assert response.status_code == 404
    body = response.json()
    assert body["status"] == 404 and body["error"]  # A/B never reaches the view
    assert not mock.calls


def test_unknown_series_from_the_api_is_404_and_ends_the_search(api, mock, settings):
    settings.FRED_API_KEY = KEY
    api_answers(mock, UNKNOWN_SERIES, 400)
    graph_answers(mock, GRAPH_CSV)
    response = api.get("/v2/macro/series/nope")
    assert response.status_code == 404
    assert response.json() == {"error": "Series not found: 'NOPE'", "status": 404}
    assert not calls(mock, GRAPH_URL)


def test_unknown_series_from_the_csv_is_404(api, mock):
    graph_answers(mock, "<html><title>Not Found</title></html>", 404, "text/html")
    response = api.get("/v2/macro/series/NOPE")
    assert response.status_code == 404
    assert response.json() == {"error": "Series not found: 'NOPE'", "status": 404}


@pytest.mark.parametrize(("query", "message"), [
    ("limit=-1", "limit: Input should be greater than or equal to 0"),
    ("limit=1001", "limit: Input should be less than or equal to 1000"),
    ("limit=abc", "limit: Input should be a valid integer, unable to parse string as an "
                  "integer"),
    ("cursor=!!", "cursor: Invalid cursor"),
])
def test_series_bad_query_is_400_before_any_upstream_call(api, mock, query, message):
    response = api.get(f"/v2/macro/series/DGS10?{query}")
    assert response.status_code == 400
    assert response.json() == {"error": message, "status": 400}
    assert not mock.calls


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_series_upstream_failures(api, mock, kind):
    fail_url(mock, GRAPH_URL, kind)
    status, _ = FAILURES[kind]
    response = api.get("/v2/macro/series/DGS10")
    assert response.status_code == status
    body = response.json()
    assert body["status"] == status and body["provider"] == "fred" and body["error"]


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_a_failing_api_falls_back_to_the_csv(api, mock, settings, kind):
    settings.FRED_API_KEY = KEY
    fail_url(mock, API_URL, kind)
    graph_answers(mock, GRAPH_CSV)
    response = api.get("/v2/macro/series/SOFR")
    assert response.status_code == 200, response.content
    assert response.json()["observations"] == GRAPH_OBSERVATIONS


def test_both_failing_reports_the_apis_failure(api, mock, settings):
    settings.FRED_API_KEY = KEY
    fail_url(mock, API_URL, "timeout")
    fail_url(mock, GRAPH_URL, "yahoo_500")
    response = api.get("/v2/macro/series/SOFR")
    assert response.status_code == 504 and response.json()["provider"] == "fred"


@pytest.mark.parametrize(("status", "body"), [
    (400, UNREGISTERED_KEY),
    (401, {"error_code": 401, "error_message": "Unauthorized"}),
    (403, {"error_code": 403, "error_message": "Forbidden"})])
def test_refused_key_falls_back_warns_once_and_never_leaks(api, mock, settings, status, body):
    settings.FRED_API_KEY = KEY
    api_answers(mock, {**body, "error_message": body["error_message"] + " " + KEY}, status)
    graph_answers(mock, GRAPH_CSV)
    with capture_logs("", logging.DEBUG) as logs:
        responses_ = [api.get(f"/v2/macro/series/{sid}") for sid in ("SOFR", "DGS10", "SOFR")]
    assert [r.status_code for r in responses_] == [200, 200, 200]
    assert responses_[0].json() == {"id": "SOFR", "observations": GRAPH_OBSERVATIONS}
    warnings = [r for r in logs.records() if r.get("message") == "provider_key_rejected"]
    assert len(warnings) == 1 and warnings[0]["level"] == "WARNING"
    assert warnings[0]["setting"] == "FRED_API_KEY"
    # The refused key is not sent again for a while: one API call in all.
    assert len(calls(mock, API_URL)) == 1
    assert KEY not in logs.text()
    assert all(KEY not in r.content.decode() for r in responses_)


def test_refused_key_and_no_csv_is_a_502_without_the_key(api, mock, settings):
    settings.FRED_API_KEY = KEY
    api_answers(mock, UNREGISTERED_KEY, 400)
    fail_url(mock, GRAPH_URL, "yahoo_500")
    response = api.get("/v2/macro/series/DGS10")
    assert response.status_code == 502
    body = response.json()
    assert body["provider"] == "fred" and "API key" in body["error"]
    assert KEY not in response.content.decode()


# ---- /v2/macro/treasury-yields --------------------------------------------------------------

def test_treasury_year_rows_in_treasury_order(api, mock):
    treasury_answers(mock, 2022, TREASURY_2022)
    response = api.get("/v2/macro/treasury-yields?year=2022")
    assert response.status_code == 200, response.content
    rows = response.json()
    assert [r["date"] for r in rows] == ["2022-12-30", "2022-12-29", "2022-02-01"]
    assert rows[2] == ROW_2022_02_01
    assert all(list(r) == list(ROW_MEMBERS) for r in rows)
    (call,) = mock.calls
    assert parse_qs(urlsplit(call.request.url).query)["field_tdr_date_value"] == ["2022"]


def test_treasury_default_year_is_the_current_one(api, mock):
    treasury_answers(mock, YEAR, 'Date,"1 Mo"\r\n')
    response = api.get("/v2/macro/treasury-yields")
    assert response.status_code == 200 and response.json() == []
    (call,) = mock.calls
    assert f"/daily-treasury-rates.csv/{YEAR}/all" in call.request.url


def test_treasury_paging_and_fields(api, mock):
    treasury_answers(mock, 2022, TREASURY_2022)
    page = api.get("/v2/macro/treasury-yields?year=2022&limit=2&fields=date,y10").json()
    assert page["nodes"] == [{"date": "2022-12-30", "y10": 3.88},
                             {"date": "2022-12-29", "y10": 3.83}]
    cursor = page["pageInfo"]["endCursor"]
    rest = api.get(f"/v2/macro/treasury-yields?year=2022&limit=2&cursor={cursor}").json()
    assert rest["nodes"] == [ROW_2022_02_01]
    assert rest["pageInfo"] == {"startCursor": rest["edges"][0]["cursor"],
                                "endCursor": rest["edges"][0]["cursor"],
                                "hasNextPage": False, "hasPreviousPage": True}
    assert api.get("/v2/macro/treasury-yields?year=2022&fields=y4M,bogus").json()[2] == {
        "y4M": None}
    assert len(mock.calls) == 1


@pytest.mark.parametrize(("query", "message"), [
    ("year=1989", "year: Input should be greater than or equal to 1990"),
    (f"year={YEAR + 1}", f"year: Input should be less than or equal to {YEAR}"),
    ("year=abc", "year: Input should be a valid integer, unable to parse string as an "
                 "integer"),
    ("year=2020.0", "year: Input should be a valid integer, unable to parse string as an "
                    "integer"),
    ("year=", "year: Input should be a valid integer, unable to parse string as an integer"),
    ("limit=-5", "limit: Input should be greater than or equal to 0"),
    ("cursor=%%%", "cursor: Invalid cursor"),
])
def test_treasury_bad_query_is_400_before_any_upstream_call(api, mock, query, message):
    response = api.get(f"/v2/macro/treasury-yields?{query}")
    assert response.status_code == 400
    assert response.json() == {"error": message, "status": 400}
    assert not mock.calls


def test_the_year_bound_follows_the_calendar(api, mock, monkeypatch):
    monkeypatch.setattr(macro_serializers, "current_year", lambda: YEAR + 1)
    treasury_answers(mock, YEAR + 1, 'Date,"1 Mo"\r\n')
    assert api.get(f"/v2/macro/treasury-yields?year={YEAR + 1}").status_code == 200
    assert api.get("/v2/macro/treasury-yields?year=1990").status_code != 400


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_treasury_upstream_failures(api, mock, kind):
    fail_url(mock, CSV_URL.format(year=2022), kind)
    status, _ = FAILURES[kind]
    response = api.get("/v2/macro/treasury-yields?year=2022")
    assert response.status_code == status
    body = response.json()
    assert body["status"] == status and body["provider"] == "treasury" and body["error"]


def test_treasury_404_or_a_page_is_502(api, mock):
    treasury_answers(mock, 2021, "<html>Page Not Found</html>", 404)
    treasury_answers(mock, 2020, "<!DOCTYPE html><html>Maintenance</html>")
    for year in (2021, 2020):
        response = api.get(f"/v2/macro/treasury-yields?year={year}")
        assert response.status_code == 502 and response.json()["provider"] == "treasury"


# ---- through the sandbox --------------------------------------------------------------------

def test_sandbox_series_both_sources_agree(api, sandbox_upstream, settings):
    keyless = api.get("/v2/macro/series/cpiaucsl")
    assert keyless.status_code == 200, keyless.content
    body = keyless.json()
    assert body["id"] == "CPIAUCSL"
    observations = body["observations"]
    assert observations[0] == {"date": "1947-01-01", "value": 21.48}
    assert [o["date"] for o in observations] == sorted(o["date"] for o in observations)
    assert sandbox_upstream.requests_matching("/graph/fredgraph.csv", provider="fred")
    settings.FRED_API_KEY = "sandbox-key"
    keyed = api.get("/v2/macro/series/CPIAUCSL")
    assert keyed.json() == body
    assert sandbox_upstream.requests_matching("/fred/series/observations", provider="fred")


def test_sandbox_refused_key_falls_back(api, sandbox_upstream, settings):
    settings.FRED_API_KEY = "INVALID-key"
    response = api.get("/v2/macro/series/UNRATE")
    assert response.status_code == 200
    (refused,) = sandbox_upstream.requests_matching("/fred/series/observations")
    assert refused["status"] == 400
    assert sandbox_upstream.requests_matching("/graph/fredgraph.csv")[0]["status"] == 200


@pytest.mark.parametrize("key", ["", "sandbox-key"])
def test_sandbox_unknown_series_is_404(api, sandbox_upstream, settings, key):
    settings.FRED_API_KEY = key
    response = api.get("/v2/macro/series/NOTFOUND_SERIES")
    assert response.status_code == 404
    assert response.json()["error"] == "Series not found: 'NOTFOUND_SERIES'"


def test_sandbox_dgs10_agrees_with_the_treasury_curve(api, sandbox_upstream):
    dgs10 = api.get("/v2/macro/series/DGS10").json()["observations"]
    rows = api.get("/v2/macro/treasury-yields?year=2024").json()
    assert len(rows) > 240
    assert [r["date"] for r in rows] == sorted((r["date"] for r in rows), reverse=True)
    by_date = {o["date"]: o["value"] for o in dgs10}
    assert all(by_date[r["date"]] == r["y10"] for r in rows)
    holidays = [o for o in dgs10 if o["date"].startswith("2024") and o["value"] is None]
    assert {o["date"] for o in holidays} >= {"2024-01-01", "2024-07-04", "2024-12-25"}
    assert all(r["y4M"] is not None and r["y20"] is not None for r in rows)


# ---- paging properties (sandbox) -------------------------------------------------------------

_SETTINGS = settings(max_examples=10, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])
# url, where the paged list sits (None: the body), page sizes to draw
PAGED = [("/v2/macro/series/FYFSD", "observations", (1, 9)),
         ("/v2/macro/treasury-yields?year=1990", None, (20, 90))]


def _items(body: Any, member: str | None) -> Any:
    return body if member is None else body[member]


@pytest.mark.parametrize(("url", "member", "sizes"), PAGED, ids=[p[0] for p in PAGED])
@_SETTINGS
@given(data=st.data())
def test_following_end_cursor_visits_every_item_once(api, sandbox_upstream, url, member,
                                                     sizes, data):
    limit = data.draw(st.integers(*sizes))
    everything = _items(api.get(url).json(), member)
    assert isinstance(everything, list) and len(everything) > sizes[0]
    joiner = "&" if "?" in url else "?"
    seen: list[Any] = []
    cursor = None
    for _ in range(len(everything) + 2):
        query = f"limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        connection = _items(api.get(url + joiner + query).json(), member)
        assert [edge["node"] for edge in connection["edges"]] == connection["nodes"]
        assert len(connection["nodes"]) <= limit
        assert connection["pageInfo"]["hasPreviousPage"] is (cursor is not None)
        seen.extend(connection["nodes"])
        if not connection["pageInfo"]["hasNextPage"]:
            break
        cursor = connection["pageInfo"]["endCursor"]
    assert seen == everything


@_SETTINGS
@given(asked=st.lists(st.sampled_from((*ROW_MEMBERS, "bogus", "")), min_size=1, max_size=6))
def test_treasury_fields_never_return_an_unrequested_member(api, sandbox_upstream, asked):
    rows = api.get("/v2/macro/treasury-yields?year=2023&fields=" + ",".join(asked)).json()
    known = set(asked) & set(ROW_MEMBERS)
    assert rows
    for row in rows:
        assert set(row) == (known or set(ROW_MEMBERS))
