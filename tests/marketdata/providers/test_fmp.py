"""Financial Modeling Prep: parsers, the real requests (URLs, ``apikey``), the status map,
the cache, and the secrecy of the key.

Recordings exist only for ``/stable/price-target-consensus`` (AAPL, MSFT): those tests use
exact recorded values. The other bodies (grades, price-target summary, press releases,
constituents, error bodies) are hand-written in FMP's documented shapes; each test says so.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses

from marketdata.errors import (
    BadRequest,
    CredentialsRejected,
    NotFound,
    UpstreamBadResponse,
    UpstreamRateLimited,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from marketdata.providers import fmp
from marketdata.providers.base import KEY_REFUSAL_MEMORY_SECONDS
from marketdata.providers.registry import PROVIDERS, provider_class
from tests.conftest import calls_to, capture_logs

KEY = "fmp-secret-key-0123456789abcdef"
STABLE = "https://financialmodelingprep.com/stable"
CONSENSUS = "fmp/stable-price-target-consensus"

# FMP's documented /stable/grades rows (hand-written in that shape).
GRADES_BODY = [
    {"symbol": "AAPL", "date": "2025-01-31", "gradingCompany": "Morgan Stanley",
     "previousGrade": "Overweight", "newGrade": "Overweight", "action": "maintain"},
    {"symbol": "AAPL", "date": "2025-02-03", "gradingCompany": "Jefferies",
     "previousGrade": "Underperform", "newGrade": "Hold", "action": "upgrade"},
    {"symbol": "AAPL", "date": "2025-01-31", "gradingCompany": "Citigroup",
     "previousGrade": "", "newGrade": "Buy", "action": "initialise"},
]
# FMP's documented /stable/price-target-summary row (hand-written in that shape).
SUMMARY_BODY = [{
    "symbol": "AAPL", "lastMonthCount": 1, "lastMonthAvgPriceTarget": 200.75,
    "lastQuarterCount": 3, "lastQuarterAvgPriceTarget": 204.2, "lastYearCount": 48,
    "lastYearAvgPriceTarget": 235.04, "allTimeCount": 167, "allTimeAvgPriceTarget": 201.21,
    "publishers": "[\"TheFly\",\"Benzinga\",\"StreetInsider\"]"}]
# FMP's documented /stable/news/press-releases rows (hand-written in that shape).
PRESS_BODY = [
    {"symbol": "AAPL", "publishedDate": "2025-01-30 16:30:00", "publisher": "Business Wire",
     "title": "Apple reports first quarter results", "image": "https://x.example/a.jpg",
     "site": "businesswire.com", "text": "CUPERTINO, CALIFORNIA  Apple today announced...",
     "url": "https://x.example/a"},
    {"symbol": "AAPL", "publishedDate": "2025-02-10 08:00:00", "publisher": "Business Wire",
     "title": "Apple announces date", "image": None, "site": "businesswire.com",
     "text": "Later one.", "url": "https://x.example/b"},
]
# FMP's documented /stable/sp500-constituent row, plus one in the older numeric style.
CONSTITUENTS_BODY = [
    {"symbol": "APO", "name": "Apollo Global Management", "sector": "Financial Services",
     "subSector": "Asset Management - Global", "headQuarter": "New York City, New York",
     "dateFirstAdded": "2024-12-23", "cik": "0001858681", "founded": "1990"},
    {"symbol": "AAPL", "name": "Apple Inc.", "sector": "Technology",
     "subSector": "Consumer Electronics", "headQuarter": "Cupertino, California",
     "dateFirstAdded": None, "cik": 320193, "founded": 1977},
    {"name": "no symbol: skipped"},
]
INVALID_KEY_BODY = {"Error Message": "Invalid API KEY. Feel free to create a Free API Key or "
                                     "visit https://site.financialmodelingprep.com/faqs?search="
                                     "why-is-my-api-key-invalid for more information."}
RESTRICTED_BODY = {"Error Message": "Restricted Endpoint: This endpoint is not available "
                                    "under your current subscription please visit our "
                                    "subscription page to upgrade your plan"}


@pytest.fixture(autouse=True)
def _key_and_fast_retries(settings, monkeypatch):
    settings.FMP_API_KEY = KEY
    fast = dataclasses.replace(fmp.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001)
    monkeypatch.setattr(fmp.FmpProvider, "config", fast)


@pytest.fixture
def upstream():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def serve(mock, path: str, body, status: int = 200):
    import re

    return mock.add(responses.GET, re.compile(re.escape(f"{STABLE}/{path}") + r"(\?.*)?$"),
                    body=json.dumps(body), status=status, content_type="application/json")


def query_of(call) -> dict[str, list[str]]:
    return parse_qs(urlsplit(call.request.url).query)


# -- registry -----------------------------------------------------------------------------------
def test_registered_with_its_host():
    assert provider_class("fmp") is fmp.FmpProvider
    assert PROVIDERS["fmp"] == "marketdata.providers.fmp:FmpProvider"
    assert fmp.PROVIDER.hosts == ("financialmodelingprep.com",)


# -- parsers ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("symbol", "expected"), [
    ("AAPL", {"symbol": "AAPL", "targetConsensus": 236.38, "targetHigh": 310,
              "targetLow": 173, "targetMedian": 227.5}),
    ("MSFT", {"symbol": "MSFT", "targetConsensus": 613.91, "targetHigh": 675,
              "targetLow": 515, "targetMedian": 630}),
])
def test_consensus_on_the_recordings(recording, symbol, expected):
    payload = recording(f"{CONSENSUS}/{symbol}_2025-09-23.json")
    parsed = fmp.parse_price_target_consensus(payload, symbol)
    assert parsed == expected
    # Numbers as FMP sent them: whole targets stay integers.
    assert json.dumps(parsed) == json.dumps(expected)


def test_consensus_without_rows_or_targets_is_not_found():
    with pytest.raises(NotFound):
        fmp.parse_price_target_consensus([], "ZZZZ")
    zeros = [{"symbol": "X", "targetHigh": 0, "targetLow": 0, "targetConsensus": 0,
              "targetMedian": 0}]
    with pytest.raises(NotFound):
        fmp.parse_price_target_consensus(zeros, "X")


def test_grades_newest_first_blank_is_null():
    """Hand-written in FMP's documented /stable/grades shape."""
    assert fmp.parse_grades(GRADES_BODY, "AAPL") == [
        {"date": "2025-02-03", "symbol": "AAPL", "gradingCompany": "Jefferies",
         "previousGrade": "Underperform", "newGrade": "Hold"},
        {"date": "2025-01-31", "symbol": "AAPL", "gradingCompany": "Morgan Stanley",
         "previousGrade": "Overweight", "newGrade": "Overweight"},
        {"date": "2025-01-31", "symbol": "AAPL", "gradingCompany": "Citigroup",
         "previousGrade": None, "newGrade": "Buy"},
    ]
    with pytest.raises(NotFound):
        fmp.parse_grades([], "AAPL")


def test_summary_maps_fmp_keys():
    """Hand-written in FMP's documented /stable/price-target-summary shape."""
    assert fmp.parse_price_target_summary(SUMMARY_BODY, "AAPL") == {
        "symbol": "AAPL", "lastMonthCount": 1, "lastMonthAvg": 200.75, "lastQuarterCount": 3,
        "lastQuarterAvg": 204.2, "lastYearCount": 48, "lastYearAvg": 235.04,
        "allTimeCount": 167, "allTimeAvg": 201.21}


def test_summary_zero_count_has_null_average():
    """FMP writes 0 as the average of an empty period (hand-written body)."""
    body = [{**SUMMARY_BODY[0], "lastMonthCount": 0, "lastMonthAvgPriceTarget": 0}]
    parsed = fmp.parse_price_target_summary(body, "AAPL")
    assert parsed["lastMonthCount"] == 0 and parsed["lastMonthAvg"] is None
    nothing = [{**SUMMARY_BODY[0], **{f"{p}Count": 0 for p in fmp._SUMMARY_PERIODS}}]
    with pytest.raises(NotFound):
        fmp.parse_price_target_summary(nothing, "AAPL")


def test_press_releases_iso_dates_newest_first():
    """Hand-written in FMP's documented /stable/news/press-releases shape."""
    assert fmp.parse_press_releases(PRESS_BODY, "AAPL") == [
        {"date": "2025-02-10T08:00:00", "symbol": "AAPL", "title": "Apple announces date",
         "text": "Later one."},
        {"date": "2025-01-30T16:30:00", "symbol": "AAPL",
         "title": "Apple reports first quarter results",
         "text": "CUPERTINO, CALIFORNIA  Apple today announced..."},
    ]


@pytest.mark.parametrize(("sent", "expected"), [
    ("2025-01-30 16:30:00", "2025-01-30T16:30:00"),  # no zone: kept as sent
    ("2025-01-30T16:30:00", "2025-01-30T16:30:00"),
    ("2025-09-22T05:03:37.000Z", "2025-09-22T05:03:37Z"),  # a zone: UTC with Z
    ("2025-09-22T01:03:37-04:00", "2025-09-22T05:03:37Z"),
    ("yesterday", None), ("", None), (None, None), (1738252800, None),
])
def test_published_at(sent, expected):
    assert fmp.published_at(sent) == expected


def test_constituents_rename_and_stringify():
    """FMP's documented row, plus one with the older numeric cik/founded (hand-written)."""
    assert fmp.parse_constituents(CONSTITUENTS_BODY, "sp500") == [
        {"symbol": "APO", "name": "Apollo Global Management", "sector": "Financial Services",
         "subSector": "Asset Management - Global", "headquarters": "New York City, New York",
         "dateFirstAdded": "2024-12-23", "cik": "0001858681", "founded": "1990"},
        {"symbol": "AAPL", "name": "Apple Inc.", "sector": "Technology",
         "subSector": "Consumer Electronics", "headquarters": "Cupertino, California",
         "dateFirstAdded": None, "cik": "320193", "founded": "1977"},
    ]
    with pytest.raises(NotFound):
        fmp.parse_constituents([], "sp500")


@pytest.mark.parametrize("body", [{"Error Message": "Invalid API KEY. Feel free..."},
                                  RESTRICTED_BODY])
def test_refusal_in_a_200_body_is_credentials_rejected(body):
    with pytest.raises(CredentialsRejected) as caught:
        fmp.parse_grades(body, "AAPL")
    assert "FMP_API_KEY" in caught.value.detail and "apikey" not in caught.value.detail


@pytest.mark.parametrize("body", [{"Error Message": "Something else"}, {"a": 1}, "text", None])
def test_other_bodies_are_bad_responses(body):
    with pytest.raises(UpstreamBadResponse) as caught:
        fmp.parse_price_target_summary(body, "AAPL")
    assert not isinstance(caught.value, CredentialsRejected)


# -- requests -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("fetch", "path", "params"), [
    (lambda: fmp.grades("AAPL"), "grades", {"symbol": ["AAPL"]}),
    (lambda: fmp.price_target_consensus("AAPL"), "price-target-consensus",
     {"symbol": ["AAPL"]}),
    (lambda: fmp.price_target_summary("AAPL"), "price-target-summary", {"symbol": ["AAPL"]}),
    (lambda: fmp.press_releases("AAPL", 7), "news/press-releases",
     {"symbols": ["AAPL"], "limit": ["7"]}),
    (lambda: fmp.index_constituents("sp500"), "sp500-constituent", {}),
    (lambda: fmp.index_constituents("nasdaq100"), "nasdaq-constituent", {}),
    (lambda: fmp.index_constituents("dowjones"), "dowjones-constituent", {}),
])
def test_each_fetch_calls_its_url_with_the_key(upstream, fetch, path, params):
    bodies = {"grades": GRADES_BODY, "price-target-consensus": [
        {"symbol": "AAPL", "targetHigh": 1, "targetLow": 1, "targetConsensus": 1,
         "targetMedian": 1}], "price-target-summary": SUMMARY_BODY,
        "news/press-releases": PRESS_BODY}
    serve(upstream, path, bodies.get(path, CONSTITUENTS_BODY))
    fetch()
    fetch()  # cached
    calls = calls_to(upstream, f"/stable/{path}")
    assert len(calls) == 1
    assert urlsplit(calls[0].request.url).path == f"/stable/{path}"
    assert query_of(calls[0]) == {**params, "apikey": [KEY]}


def test_press_releases_limit_cuts_and_keys_the_cache(upstream):
    serve(upstream, "news/press-releases", PRESS_BODY)
    assert len(fmp.press_releases("AAPL", 1)) == 1
    assert len(fmp.press_releases("AAPL", 5)) == 2
    assert len(calls_to(upstream, "press-releases")) == 2


def test_unknown_index_is_bad_request_without_a_call(upstream):
    with pytest.raises(BadRequest):
        fmp.index_constituents("ftse100")
    assert not upstream.calls


@pytest.mark.parametrize(("status", "body"), [(401, INVALID_KEY_BODY), (402, RESTRICTED_BODY),
                                              (403, RESTRICTED_BODY),
                                              (400, INVALID_KEY_BODY)])
def test_refused_key_is_credentials_rejected_without_the_key(upstream, status, body):
    serve(upstream, "grades", body, status)
    with capture_logs("", logging.DEBUG) as logs, pytest.raises(CredentialsRejected) as caught:
        fmp.grades("AAPL")
    error = caught.value
    assert error.provider == "fmp" and error.status_code == 502
    for text in (error.detail, str(error), json.dumps(error.to_dict()), logs.text()):
        assert KEY not in text and "apikey" not in text
        assert "financialmodelingprep.com/stable" not in text


def test_no_key_is_refused_without_a_call(upstream, settings):
    settings.FMP_API_KEY = ""
    with pytest.raises(CredentialsRejected):
        fmp.price_target_consensus("AAPL")
    assert not upstream.calls


def test_empty_list_is_not_found_and_cached(upstream):
    serve(upstream, "price-target-summary", [])
    for _ in range(2):
        with pytest.raises(NotFound):
            fmp.price_target_summary("ZZZZ")
    assert len(upstream.calls) == 1


def test_404_is_not_found(upstream):
    serve(upstream, "grades", {"Error Message": "Not Found"}, 404)
    with pytest.raises(NotFound):
        fmp.grades("AAPL")


@pytest.mark.parametrize(("kind", "error"), [
    ("500", UpstreamBadResponse), ("429", UpstreamRateLimited),
    ("timeout", UpstreamTimeout), ("connection", UpstreamUnavailable),
])
def test_upstream_failures(upstream, kind, error):
    import re

    url = re.compile(re.escape(f"{STABLE}/grades") + r"(\?.*)?$")
    if kind == "500":
        upstream.add(responses.GET, url, status=500, body="oops")
    elif kind == "429":
        upstream.add(responses.GET, url, status=429,
                     json={"Error Message": "Limit Reach . Please upgrade your plan"})
    elif kind == "timeout":
        upstream.add(responses.GET, url, body=requests.exceptions.ReadTimeout("slow"))
    else:
        upstream.add(responses.GET, url, body=requests.exceptions.ConnectionError("down"))
    with pytest.raises(error) as caught:
        fmp.grades("AAPL")
    assert caught.value.provider == "fmp" and KEY not in caught.value.detail


def test_the_key_is_never_logged(upstream):
    serve(upstream, "grades", GRADES_BODY)
    with capture_logs("", logging.DEBUG) as logs:
        fmp.grades("AAPL")
    assert "/stable/grades" in logs.text()
    assert KEY not in logs.text() and "apikey" not in logs.text()


def test_a_refused_key_is_not_sent_again_for_a_while(upstream):
    """The keyed base's refusal memory, as FRED has it: one refused call, then none."""
    serve(upstream, "grades", INVALID_KEY_BODY, 401)
    serve(upstream, "price-target-summary", SUMMARY_BODY)
    provider = fmp.fmp_provider()
    now = [1000.0]
    provider.monotonic = lambda: now[0]
    with pytest.raises(CredentialsRejected):
        fmp.grades("AAPL")
    with pytest.raises(CredentialsRejected, match="recently"):
        fmp.price_target_summary("AAPL")
    assert len(upstream.calls) == 1
    now[0] += KEY_REFUSAL_MEMORY_SECONDS + 1
    serve(upstream, "news/press-releases", PRESS_BODY)  # a key with no error cached
    assert fmp.press_releases("AAPL", 1)
    assert len(upstream.calls) == 2


@pytest.mark.parametrize("status", [200, 402])
def test_a_plan_refusal_keeps_the_key_for_other_data(upstream, status):
    """FMP's "Restricted Endpoint" refuses one endpoint under the key's plan; the key itself
    is good, so the next endpoint is still asked."""
    serve(upstream, "grades", RESTRICTED_BODY, status)
    serve(upstream, "price-target-summary", SUMMARY_BODY)
    with pytest.raises(CredentialsRejected, match="plan"):
        fmp.grades("AAPL")
    assert fmp.price_target_summary("AAPL")["symbol"] == "AAPL"
    assert len(upstream.calls) == 2
