"""FRED: the keyed API and the keyless fredgraph.csv, parsing, requests, errors, the key.

The API parser runs on the real recordings (shared/upstream/fred/series-observations,
values exactly as recorded) and on the recorded series-metadata body (fred/series), which
is not an observations answer. No fredgraph.csv answer was recorded: the CSV bodies here
are hand-made in the download's real shape (``observation_date,{ID}`` today, ``DATE,{ID}``
on older answers, ``.`` or an empty cell for a missing value).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from marketdata.errors import (
    CredentialsRejected,
    NotFound,
    UpstreamBadResponse,
    UpstreamRateLimited,
)
from marketdata.providers import fred
from marketdata.providers.base import KEY_REFUSAL_MEMORY_SECONDS
from marketdata.providers.fred import (
    API_URL,
    GRAPH_URL,
    FredProvider,
    Observation,
    normalize_series_id,
    parse_api_observations,
    parse_graph_csv,
    parse_value,
    series_from_api,
    series_from_graph,
)
from tests.conftest import capture_logs, load_recording
from tests.marketdata.providers.helpers import recordings

KEY = "0123456789abcdef0123456789abcdef"
OBSERVATIONS = "fred/series-observations"
NOT_FOUND_BODY = {"error_code": 400,
                  "error_message": "Bad Request.  The series does not exist."}
UNREGISTERED_KEY = {"error_code": 400, "error_message": (
    "Bad Request.  The value for variable api_key is not registered.  Read "
    "https://fred.stlouisfed.org/docs/api/api_key.html for more information.")}
CSV_TODAY = "observation_date,DGS10\n2024-06-03,4.41\n2024-06-04,4.33\n2024-06-05,\n" \
            "2024-06-06,4.29\n"
CSV_OLDER = "DATE,DGS10\r\n2024-06-03,4.41\r\n2024-06-04,4.33\r\n2024-06-05,.\r\n" \
            "2024-06-06,4.29\r\n"
EXPECTED_CSV = [Observation("2024-06-03", 4.41), Observation("2024-06-04", 4.33),
                Observation("2024-06-05", None), Observation("2024-06-06", 4.29)]


@pytest.fixture(autouse=True)
def _fast(monkeypatch, settings):
    monkeypatch.setattr(FredProvider, "config", dataclasses.replace(
        fred.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001))
    settings.FRED_API_KEY = KEY


@pytest.fixture
def mock():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as m:
        yield m


def _url(url: str) -> re.Pattern[str]:
    return re.compile(re.escape(url) + r"(\?.*)?$")


def _api(mock, body, status: int = 200) -> None:
    mock.add(responses.GET, _url(API_URL), body=json.dumps(body), status=status,
             content_type="application/json; charset=UTF-8")


def _graph(mock, body: str, status: int = 200, content_type: str = "text/csv") -> None:
    mock.add(responses.GET, _url(GRAPH_URL), body=body, status=status,
             content_type=content_type)


# ---- parsing ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", recordings(OBSERVATIONS))
def test_api_recordings_parse_exactly(name):
    payload = load_recording(name)
    parsed = parse_api_observations(payload)
    assert parsed == [Observation(o["date"], float(o["value"]))
                      for o in payload["observations"]]


def test_sofr_recording_values():
    payload = load_recording(f"{OBSERVATIONS}/SOFR90DAYAVG_2024-06-01_2024-06-06.json")
    assert parse_api_observations(payload) == [
        Observation("2024-06-03", 5.350569999999999), Observation("2024-06-04", 5.35102),
        Observation("2024-06-05", 5.35125), Observation("2024-06-06", 5.35147)]
    sofr = load_recording(f"{OBSERVATIONS}/SOFR_2024-06-01_2024-06-06.json")
    assert [o.value for o in parse_api_observations(sofr)] == [5.35, 5.33, 5.33, 5.33]


def test_the_series_metadata_body_is_no_observations_answer():
    """fred/series/SOFR75.json is FRED's /fred/series answer (a ``seriess`` list): a body of
    the wrong endpoint must be a 502, never an empty series."""
    with pytest.raises(UpstreamBadResponse):
        parse_api_observations(load_recording("fred/series/SOFR75.json"))


def test_missing_values_and_order():
    payload = {"observations": [
        {"date": "2024-06-05", "value": "."}, {"date": "2024-06-03", "value": "1.5"},
        {"date": "2024-06-04", "value": ""}, {"date": "bad", "value": "2"},
        {"date": "2024-06-06", "value": "NaN"}, "junk"]}
    assert parse_api_observations(payload) == [
        Observation("2024-06-03", 1.5), Observation("2024-06-04", None),
        Observation("2024-06-05", None), Observation("2024-06-06", None)]


@pytest.mark.parametrize(("text", "value"), [
    ("4.41", 4.41), ("-0.25", -0.25), ("1912.0", 1912.0), (".5", 0.5), ("1e3", 1000.0),
    (".", None), ("", None), (" ", None), ("N/A", None), ("nan", None), ("inf", None),
    ("1_0", None), (None, None), (True, None), (3, 3.0)])
def test_parse_value(text, value):
    assert parse_value(text) == value


@pytest.mark.parametrize("body", [CSV_TODAY, CSV_OLDER, "\ufeff" + CSV_TODAY])
def test_graph_csv_both_headers(body):
    assert parse_graph_csv(body, "DGS10") == EXPECTED_CSV


def test_graph_csv_maps_columns_by_header():
    body = "DGS10,observation_date\n4.41,2024-06-03\n,2024-06-04\n"
    assert parse_graph_csv(body, "DGS10") == [Observation("2024-06-03", 4.41),
                                              Observation("2024-06-04", None)]
    # A decorated value header is still the only other column.
    assert parse_graph_csv("observation_date,DGS10_PCH\n2024-06-03,1.5\n", "DGS10") == [
        Observation("2024-06-03", 1.5)]
    with pytest.raises(UpstreamBadResponse):  # two candidate columns: no guessing
        parse_graph_csv("observation_date,A,B\n2024-06-03,1,2\n", "DGS10")


def test_graph_page_that_says_not_found_is_not_found():
    page = ("<!DOCTYPE html><html><head><title>FRED | St. Louis Fed</title></head><body>"
            "<p>Error: the series does not exist.</p></body></html>")
    with pytest.raises(NotFound, match="NOPE"):
        parse_graph_csv(page, "NOPE")
    with pytest.raises(NotFound):
        parse_graph_csv("<html><head><title>404 Not Found</title></head></html>", "NOPE")


def test_any_other_page_is_a_bad_answer():
    with pytest.raises(UpstreamBadResponse):
        parse_graph_csv("<html><head><title>Maintenance</title></head><body>Back soon"
                        "</body></html>", "DGS10")
    with pytest.raises(UpstreamBadResponse):
        parse_graph_csv("", "DGS10")


@pytest.mark.parametrize(("text", "expected"), [
    ("dgs10", "DGS10"), (" GDP ", "GDP"), ("00XALCATM086NEST", "00XALCATM086NEST"),
    ("bamlh0a0hym2", "BAMLH0A0HYM2"), ("A_B", "A_B"), ("x" * 40, "X" * 40),
    ("x" * 41, None), ("", None), ("DGS-10", None), ("DGS10.", None), ("DG S10", None),
    ("../x", None), ("ſpy", None), ("DGS10%", None), ("DGS\x0010", None)])
def test_series_id_rules(text, expected):
    assert normalize_series_id(text) == expected


# ---- the API call -----------------------------------------------------------------------------

def test_api_request_and_answer(mock, recording):
    payload = recording(f"{OBSERVATIONS}/SOFRINDEX_2024-06-01_2024-06-06.json")
    _api(mock, payload)
    assert series_from_api("SOFRINDEX")[0] == Observation("2024-06-03", 1.14075319)
    (call,) = mock.calls
    parts = urlsplit(call.request.url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == API_URL
    assert parse_qs(parts.query) == {"series_id": ["SOFRINDEX"], "file_type": ["json"],
                                     "api_key": [KEY]}
    # Cached: a second ask makes no call.
    series_from_api("SOFRINDEX")
    assert len(mock.calls) == 1


@pytest.mark.parametrize(("status", "body"), [(400, NOT_FOUND_BODY), (
    404, {"error_code": 404, "error_message": "Not Found.  The series does not exist."})])
def test_unknown_series_is_not_found(mock, status, body):
    _api(mock, body, status)
    with pytest.raises(NotFound) as info:
        series_from_api("NOPE")
    assert info.value.detail == "Series not found: 'NOPE'"


@pytest.mark.parametrize(("status", "body"), [
    (400, UNREGISTERED_KEY),
    (400, {"error_code": 400, "error_message": "Bad Request.  The value for variable "
                                               "api_key is not a 32 character alpha-numeric "
                                               "lower-case string."}),
    (401, {"error_code": 401, "error_message": "Unauthorized"}),
    (403, {"error_code": 403, "error_message": "Forbidden"})])
def test_a_refused_key_is_credentials_rejected(mock, status, body):
    _api(mock, body, status)
    with pytest.raises(CredentialsRejected) as info:
        series_from_api("DGS10")
    assert info.value.provider == "fred" and info.value.upstream_status == status


def test_a_refused_key_is_not_sent_again_for_a_while(mock):
    _api(mock, UNREGISTERED_KEY, 400)
    provider = fred.fred_provider()
    now = [1000.0]
    provider.monotonic = lambda: now[0]
    with pytest.raises(CredentialsRejected):
        provider.observations_from_api("DGS10")
    now[0] += KEY_REFUSAL_MEMORY_SECONDS - 1
    with pytest.raises(CredentialsRejected, match="recently"):
        provider.observations_from_api("GDP")
    assert len(mock.calls) == 1
    now[0] += 2
    with pytest.raises(CredentialsRejected):
        provider.observations_from_api("CPIAUCSL")
    assert len(mock.calls) == 2


def test_locked_is_rate_limited_and_other_400s_are_bad_answers(mock):
    _api(mock, {"error_code": 423, "error_message": "Locked"}, 423)
    with pytest.raises(UpstreamRateLimited) as info:
        series_from_api("DGS10")
    assert info.value.status_code == 429
    mock.reset()
    _api(mock, {"error_code": 400, "error_message": "Bad Request.  Variable file_type is "
                                                    "not one of the values: 'xml', 'json'"},
         400)
    with pytest.raises(UpstreamBadResponse) as bad:
        series_from_api("GDP")
    assert not isinstance(bad.value, CredentialsRejected)


def test_the_key_never_reaches_logs_or_errors(mock, settings):
    body = dict(UNREGISTERED_KEY, error_message=UNREGISTERED_KEY["error_message"] + KEY)
    _api(mock, body, 400)
    with capture_logs("", logging.DEBUG) as logs:
        with pytest.raises(CredentialsRejected) as info:
            series_from_api("DGS10")
    assert KEY not in json.dumps(info.value.to_dict())
    text = logs.text()
    assert "fred" in text and "/fred/series/observations" in text
    assert KEY not in text


# ---- the keyless CSV --------------------------------------------------------------------------

def test_graph_request_and_answer(mock):
    _graph(mock, CSV_TODAY)
    assert series_from_graph("DGS10") == EXPECTED_CSV
    (call,) = mock.calls
    assert parse_qs(urlsplit(call.request.url).query) == {"id": ["DGS10"]}
    assert "api_key" not in call.request.url and KEY not in call.request.url


def test_graph_404_is_not_found(mock):
    _graph(mock, "<html><body>Not Found</body></html>", 404, "text/html")
    with pytest.raises(NotFound, match="NOPE"):
        series_from_graph("NOPE")


def test_graph_other_4xx_is_a_bad_answer(mock):
    _graph(mock, "<html>Forbidden</html>", 403, "text/html")
    with pytest.raises(UpstreamBadResponse) as info:
        series_from_graph("DGS10")
    assert not isinstance(info.value, CredentialsRejected)
