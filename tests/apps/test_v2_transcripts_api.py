"""GET /v2/earnings-transcript/{symbol}, /v2/transcripts/{symbol} and
/v2/transcripts/{symbol}/all: the real xhr recording through the endpoints (values exact),
call selection, paging and fields, every error status, and the sandbox for an equity, an
ETF and non-US listings.

The earnings-calls page and the quoteType answer have no recordings: they are the
hand-written bodies of the v1 tests (Yahoo's shapes, our values).
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
import responses
from responses import matchers

from tests.apps.payloads import FAILURES, fail_url
from tests.apps.test_transcripts_api import (
    FINANCE,
    LISTED,
    TRANSCRIPT,
    XHR,
    page,
    quote_type,
    requested_events,
    setup_aapl,
    transcript_for,
)
from tests.conftest import QUERY1, calls_to

ROUTES = ("/v2/earnings-transcript/{}", "/v2/transcripts/{}", "/v2/transcripts/{}/all")
CALL_URL = f"{FINANCE}/quote/AAPL/earnings/AAPL-{{}}-{{}}-earnings_call-{{}}.html"


def recorded_document(recording) -> dict:
    """What /v2/transcripts answers for the recording, built from it member by member."""
    payload = recording(TRANSCRIPT)
    content, meta = payload["transcriptContent"], payload["transcriptMetadata"]
    return {
        "transcriptContent": {
            "companyId": content["company_id"], "eventId": content["event_id"],
            "version": content["version"],
            "speakerMapping": [{"speaker": m["speaker"], "speakerData": m["speaker_data"]}
                               for m in content["speaker_mapping"]],
            "transcript": {"numberOfSpeakers": content["transcript"]["number_of_speakers"],
                           "text": content["transcript"]["text"]}},
        "transcriptMetadata": {
            "date": meta["date"], "eventId": meta["eventId"], "eventType": meta["eventType"],
            "fiscalPeriod": meta["fiscalPeriod"], "fiscalYear": meta["fiscalYear"],
            "isLatest": meta["isLatest"], "s3Url": meta["s3Url"], "title": meta["title"],
            "transcriptId": meta["transcriptId"], "transcriptType": meta["type"],
            "updated": meta["updated"]},
    }


# CALLS_PAGE also links two calls without a fiscal period (listed last): no transcript.
UNLABELLED = (999001, 999002)


def unlabelled_calls_have_no_transcript(yahoo) -> None:
    for event_id in UNLABELLED:
        match = [matchers.query_param_matcher({"eventId": str(event_id)}, strict_match=False)]
        yahoo.mock.add(responses.GET, XHR, status=404, match=match, json={"finance": {
            "result": None, "error": {"code": "Not Found", "description": "Not found"}}})


def recorded_aapl(yahoo, recording) -> None:
    page(yahoo)
    quote_type(yahoo)
    yahoo.get(XHR, recording(TRANSCRIPT))


def xhr_fails(yahoo, recording, failing: dict[int, int]) -> None:
    """An xhr answer per listed call; ``failing`` maps event ids to the status they get."""
    for event_id, quarter, year in LISTED:
        match = [matchers.query_param_matcher({"eventId": str(event_id)}, strict_match=False)]
        if event_id in failing:
            yahoo.mock.add(responses.GET, XHR, status=failing[event_id], match=match,
                           json={"finance": {"result": None, "error": {
                               "code": "Not Found", "description": "Transcript not found"}}})
        else:
            yahoo.mock.add(responses.GET, XHR, match=match,
                           json=transcript_for(recording, event_id, quarter, year))


# -- /v2/earnings-transcript ------------------------------------------------------------------
def test_earnings_transcript_from_the_recording(api, yahoo, recording):
    recorded_aapl(yahoo, recording)
    response = api.get("/v2/earnings-transcript/aapl")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == ["symbol", "quarter", "year", "date", "text"]
    assert {k: body[k] for k in ("symbol", "quarter", "year", "date")} == {
        "symbol": "AAPL", "quarter": "Q2", "year": 2026, "date": "2026-04-30T21:00:00Z"}
    text = recording(TRANSCRIPT)["transcriptContent"]["transcript"]["text"]
    assert body["text"] == text and len(text) == 51837
    assert requested_events(yahoo) == ["548666"]


def test_earnings_transcript_fields(api, yahoo, recording):
    recorded_aapl(yahoo, recording)
    response = api.get("/v2/earnings-transcript/AAPL?fields=quarter,year,nope")
    assert response.json() == {"quarter": "Q2", "year": 2026}


@pytest.mark.parametrize("query, event, period", [
    ("", "548666", ("Q2", 2026)),
    ("?quarter=Q4&year=2025", "377001", ("Q4", 2025)),
    ("?quarter=q1", "401122", ("Q1", 2026)),  # any case: the newest Q1
    ("?year=2025", "377001", ("Q4", 2025)),  # the latest call of that year only
])
def test_call_selection(api, yahoo, recording, query, event, period):
    setup_aapl(yahoo, recording)
    body = api.get(f"/v2/earnings-transcript/AAPL{query}").json()
    assert (body["quarter"], body["year"]) == period
    assert requested_events(yahoo) == [event]
    document = api.get(f"/v2/transcripts/AAPL{query}").json()
    assert document["transcriptMetadata"]["eventId"] == int(event)
    assert requested_events(yahoo) == [event]  # the same cached transcript


def test_latest_skips_a_call_whose_transcript_is_not_out_yet(api, yahoo, recording):
    setup_aapl(yahoo, recording, missing=(548666,))
    body = api.get("/v2/earnings-transcript/AAPL").json()
    assert (body["quarter"], body["year"]) == ("Q1", 2026)
    assert requested_events(yahoo) == ["548666", "401122"]


def test_year_only_takes_the_next_call_of_that_year_with_a_transcript(api, yahoo, recording):
    setup_aapl(yahoo, recording, missing=(377001,))
    body = api.get("/v2/earnings-transcript/AAPL?year=2025").json()
    assert (body["quarter"], body["year"]) == ("Q3", 2025)


# -- /v2/transcripts ------------------------------------------------------------------------
def test_transcript_document_from_the_recording(api, yahoo, recording):
    recorded_aapl(yahoo, recording)
    response = api.get("/v2/transcripts/AAPL")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body == recorded_document(recording)
    content = body["transcriptContent"]
    assert (content["companyId"], content["eventId"], content["version"]) == (4742, 548666,
                                                                              "1.0.0")
    assert content["speakerMapping"][0] == {"speaker": 0, "speakerData": {
        "company": "Wells Fargo", "name": "Aaron Rakers",
        "role": "Managing Director and Technology & Services Senior Equity Analyst"}}
    assert content["transcript"]["numberOfSpeakers"] == 13
    assert "paragraphs" not in content["transcript"]  # timings are not served
    assert body["transcriptMetadata"] == {
        "date": 1777582800, "eventId": 548666, "eventType": "Earnings call",
        "fiscalPeriod": "Q2", "fiscalYear": 2026, "isLatest": True,
        "s3Url": "s3://890742573995-market-data-service-prod-us-east-1/shared/transcripts/"
                 "2026/4/30/3281095.json",
        "title": "Q2 2026", "transcriptId": 3281095, "transcriptType": "IN_HOUSE",
        "updated": 1778932822}


def test_transcript_without_a_body_is_null(api, yahoo, recording):
    page(yahoo)
    quote_type(yahoo)
    payload = copy.deepcopy(recording(TRANSCRIPT))
    del payload["transcriptContent"]["transcript"]
    yahoo.get(XHR, payload)
    content = api.get("/v2/transcripts/AAPL").json()["transcriptContent"]
    assert content["transcript"] is None
    assert len(content["speakerMapping"]) == 13


def test_transcript_fields_and_lang(api, yahoo, recording):
    recorded_aapl(yahoo, recording)
    meta = api.get("/v2/transcripts/AAPL?fields=transcriptMetadata").json()
    assert list(meta) == ["transcriptMetadata"]
    # `lang` is accepted and changes nothing: no translation, Yahoo is asked in en-US.
    translated = api.get("/v2/transcripts/AAPL?lang=de-DE",
                         HTTP_ACCEPT_LANGUAGE="fr-FR").json()
    assert translated == recorded_document(recording)
    for call in calls_to(yahoo.mock, "/xhr/transcript"):
        assert parse_qs(urlsplit(call.request.url).query)["lang"] == ["en-US"]


# -- /v2/transcripts/{symbol}/all -----------------------------------------------------------
def test_all_calls_newest_first(api, yahoo, recording):
    setup_aapl(yahoo, recording)
    unlabelled_calls_have_no_transcript(yahoo)
    response = api.get("/v2/transcripts/AAPL/all")
    assert response.status_code == 200, response.content
    items = response.json()
    assert [list(i) for i in items] == [["eventId", "quarter", "year", "title", "url",
                                         "transcript"]] * 4
    assert [(i["eventId"], i["quarter"], i["year"], i["title"]) for i in items] == [
        ("548666", "Q2", 2026, "Q2 2026 Earnings Call"),
        ("401122", "Q1", 2026, "Q1 2026 Earnings Call"),
        ("377001", "Q4", 2025, "Q4 2025 Earnings Call"),
        ("352200", "Q3", 2025, "Q3 2025 Earnings Call")]
    assert items[1]["url"] == CALL_URL.format("Q1", 2026, 401122)
    assert items[0]["url"] == CALL_URL.format("Q2", 2026, 548666) + "?a=1&b=2"
    first = recorded_document(recording)
    first["transcriptMetadata"]["transcriptId"] = 548667  # as transcript_for relabels it
    assert items[0]["transcript"] == first
    assert response.get("Cache-Control") != "no-store"  # complete: no upstream failure
    assert items[2]["transcript"]["transcriptMetadata"]["eventId"] == 377001
    assert items[2]["transcript"]["transcriptContent"]["transcript"] == \
        first["transcriptContent"]["transcript"]
    assert sorted(requested_events(yahoo)) == ["352200", "377001", "401122", "548666",
                                               "999001", "999002"]
    assert len(calls_to(yahoo.mock, "/v1/finance/quoteType/")) == 1


def test_all_pages_fetch_only_their_calls(api, yahoo, recording):
    setup_aapl(yahoo, recording)
    first = api.get("/v2/transcripts/AAPL/all?limit=2&fields=eventId,title").json()
    assert first["nodes"] == [{"eventId": "548666", "title": "Q2 2026 Earnings Call"},
                              {"eventId": "401122", "title": "Q1 2026 Earnings Call"}]
    assert [e["node"] for e in first["edges"]] == first["nodes"]
    assert first["pageInfo"]["hasNextPage"] is True
    assert sorted(requested_events(yahoo)) == ["401122", "548666"]
    after = first["pageInfo"]["endCursor"]
    second = api.get(f"/v2/transcripts/AAPL/all?limit=2&cursor={after}&fields=eventId").json()
    assert second["nodes"] == [{"eventId": "377001"}, {"eventId": "352200"}]
    assert second["pageInfo"] == {"startCursor": second["edges"][0]["cursor"],
                                  "endCursor": second["edges"][1]["cursor"],
                                  "hasNextPage": True, "hasPreviousPage": True}
    assert len(requested_events(yahoo)) == 4


def test_all_empty_page_asks_for_no_transcript(api, yahoo, recording):
    setup_aapl(yahoo, recording)
    body = api.get("/v2/transcripts/AAPL/all?limit=0").json()
    assert body["nodes"] == [] and body["edges"] == []
    assert body["pageInfo"]["hasNextPage"] is True
    assert calls_to(yahoo.mock, "/v1/finance/quoteType/") == []
    assert requested_events(yahoo) == []


def test_all_leaves_out_calls_whose_transcript_cannot_be_had(api, yahoo, recording):
    xhr_fails(yahoo, recording, {401122: 404, 352200: 500})
    unlabelled_calls_have_no_transcript(yahoo)
    page(yahoo)
    quote_type(yahoo)
    response = api.get("/v2/transcripts/AAPL/all?fields=eventId")
    assert response.status_code == 200, response.content
    assert response.json() == [{"eventId": "548666"}, {"eventId": "377001"}]
    assert response["Cache-Control"] == "no-store"  # partial after an upstream failure
    paged = api.get("/v2/transcripts/AAPL/all?limit=2&fields=eventId").json()
    assert paged["nodes"] == [{"eventId": "548666"}]
    assert paged["pageInfo"]["endCursor"] == "MQ"  # still after the second listed call


def test_all_none_available_404(api, yahoo, recording):
    setup_aapl(yahoo, recording, missing=tuple(e for e, _, _ in LISTED))
    unlabelled_calls_have_no_transcript(yahoo)
    response = api.get("/v2/transcripts/AAPL/all")
    assert response.status_code == 404
    assert response.json() == {"error": "No transcript available for AAPL", "status": 404}


def test_all_none_served_because_of_upstream_failures_is_that_failure(api, yahoo, recording):
    xhr_fails(yahoo, recording, {e: 500 for e, _, _ in LISTED})
    page(yahoo)
    quote_type(yahoo)
    response = api.get("/v2/transcripts/AAPL/all?limit=2")
    assert response.status_code == 502
    assert response.json()["provider"] == "yahoo"


# -- 400 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("route", ROUTES[:2])
@pytest.mark.parametrize("query, param", [
    ("quarter=Q5", "quarter"), ("quarter=1", "quarter"), ("quarter=", "quarter"),
    ("year=abc", "year"), ("year=2025.5", "year"), ("year=1989", "year"), ("year=", "year"),
])
def test_bad_quarter_or_year_400_before_any_upstream_call(api, yahoo, route, query, param):
    response = api.get(route.format("AAPL") + "?" + query)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["status"] == 400 and param in body["error"]
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("route", ROUTES[:2])
def test_year_above_next_year_400(api, yahoo, route):
    bound = datetime.now(UTC).year + 1
    response = api.get(route.format("AAPL") + f"?year={bound + 1}")
    assert response.status_code == 400
    assert response.json() == {
        "error": f"year: Input should be less than or equal to {bound}", "status": 400}


@pytest.mark.parametrize("path", [
    "/v2/transcripts/AAPL?lang=not%20a%20tag", "/v2/transcripts/AAPL/all?lang=12",
    "/v2/transcripts/AAPL/all?limit=-1", "/v2/transcripts/AAPL/all?limit=x",
    "/v2/transcripts/AAPL/all?cursor=!!", "/v2/transcripts/AAPL/all?limit=5000",
])
def test_bad_lang_limit_or_cursor_400(api, yahoo, path):
    response = api.get(path)
    assert response.status_code == 400 and response.json()["status"] == 400
    assert len(yahoo.mock.calls) == 0


# -- 404 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("route", ROUTES)
def test_unknown_symbol_404(api, yahoo, route):
    page(yahoo, "ZZZZ", "<html>Sorry, we couldn't find ZZZZ</html>", 404)
    response = api.get(route.format("ZZZZ"))
    assert response.status_code == 404
    assert response.json() == {"error": "No earnings calls found for ZZZZ", "status": 404}


@pytest.mark.parametrize("route", ROUTES)
def test_symbol_without_calls_404(api, yahoo, route):
    page(yahoo, "SPY", "<html><body><h1>SPY</h1></body></html>")
    response = api.get(route.format("SPY"))
    assert response.status_code == 404
    assert response.json() == {"error": "No earnings calls found for SPY", "status": 404}


@pytest.mark.parametrize("route", ROUTES[:2])
@pytest.mark.parametrize("query, detail", [
    ("?quarter=Q3&year=2019", "No earnings call found for AAPL Q3 2019"),
    ("?year=2024", "No earnings call found for AAPL 2024"),
    ("?quarter=Q4&year=2026", "No earnings call found for AAPL Q4 2026"),
])
def test_no_such_call_404_not_500(api, yahoo, route, query, detail):
    page(yahoo)
    response = api.get(route.format("AAPL") + query)
    assert response.status_code == 404
    assert response.json() == {"error": detail, "status": 404}
    assert calls_to(yahoo.mock, "quoteType") == [] and calls_to(yahoo.mock, "xhr") == []


@pytest.mark.parametrize("route", ROUTES[:2])
def test_call_without_transcript_404(api, yahoo, recording, route):
    setup_aapl(yahoo, recording, missing=(377001,))
    response = api.get(route.format("AAPL") + "?quarter=Q4&year=2025")
    assert response.status_code == 404
    assert response.json() == {"error": "No transcript available for AAPL Q4 2025",
                               "status": 404}


@pytest.mark.parametrize("route", ROUTES)
def test_no_quartr_id_404(api, yahoo, route):
    from tests.marketdata.providers.test_yahoo_transcripts import QUOTE_TYPE

    page(yahoo)
    payload = copy.deepcopy(QUOTE_TYPE)
    del payload["quoteType"]["result"][0]["quartrId"]
    quote_type(yahoo, body=payload)
    response = api.get(route.format("AAPL"))
    assert response.status_code == 404
    assert response.json() == {"error": "No company ID (quartrId) found for AAPL",
                               "status": 404}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("symbol", ["..", "AA PL", "x" * 300])
def test_malformed_symbol_404_without_an_upstream_call(api, yahoo, route, symbol):
    response = api.get(route.format(symbol))
    assert response.status_code == 404 and response.json()["status"] == 404
    assert len(yahoo.mock.calls) == 0


# -- upstream failures ----------------------------------------------------------------------
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("failing", ["page", "quoteType", "transcript"])
@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, recording, route, failing, kind):
    urls = {"page": f"{FINANCE}/quote/AAPL/earnings-calls/",
            "quoteType": f"{QUERY1}/v1/finance/quoteType/AAPL", "transcript": XHR}
    fail_url(yahoo.mock, urls[failing], kind)
    if failing != "page":
        page(yahoo)
    if failing == "transcript":
        quote_type(yahoo)
    response = api.get(route.format("AAPL"))
    status, _ = FAILURES[kind]
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and body["provider"] == "yahoo" and body["error"]


# -- the sandbox -----------------------------------------------------------------------------
@pytest.mark.parametrize("symbol", ["AAPL", "SAP.DE", "7203.T"])
def test_sandbox_serves_every_route_for_equities(api, sandbox_upstream, symbol):
    text = api.get(f"/v2/earnings-transcript/{symbol}")
    assert text.status_code == 200, text.content
    body = text.json()
    assert body["symbol"] == symbol and body["quarter"] in ("Q1", "Q2", "Q3", "Q4")
    assert body["text"].startswith("Good day, and welcome to the ")
    document = api.get(f"/v2/transcripts/{symbol}").json()
    meta = document["transcriptMetadata"]
    assert (meta["fiscalPeriod"], meta["fiscalYear"]) == (body["quarter"], body["year"])
    assert meta["isLatest"] is True and meta["transcriptType"] == "IN_HOUSE"
    content = document["transcriptContent"]
    assert content["transcript"]["text"] == body["text"]
    assert content["transcript"]["numberOfSpeakers"] == len(content["speakerMapping"])
    items = api.get(f"/v2/transcripts/{symbol}/all").json()
    assert len(items) == 8
    years = [(i["year"], i["quarter"]) for i in items]
    assert years == sorted(years, reverse=True)
    assert items[0]["transcript"] == document
    assert all(i["title"] == f"{i['quarter']} {i['year']} Earnings Call" for i in items)
    previous = api.get(f"/v2/transcripts/{symbol}?quarter={items[1]['quarter']}"
                       f"&year={items[1]['year']}").json()
    assert previous == items[1]["transcript"]
    assert previous["transcriptMetadata"]["isLatest"] is False


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("symbol, detail", [("SPY", "No earnings calls found for SPY"),
                                            ("ZZZZ", "No earnings calls found for ZZZZ")])
def test_sandbox_etf_and_unknown_symbol_404(api, sandbox_upstream, route, symbol, detail):
    response = api.get(route.format(symbol))
    assert response.status_code == 404
    assert response.json() == {"error": detail, "status": 404}


# -- docs ------------------------------------------------------------------------------------
def test_documented_in_openapi(api):
    paths = api.get("/openapi.json").json()["paths"]
    for route in ROUTES:
        operation = paths[route.format("{symbol}")]["get"]
        params = {p["name"]: p for p in operation["parameters"]}
        assert "fields" in params and params["symbol"]["in"] == "path"
        assert {"200", "400", "404", "502"} <= set(operation["responses"])
    for route in ROUTES[:2]:
        params = {p["name"]: p for p in paths[route.format("{symbol}")]["get"]["parameters"]}
        assert params["quarter"]["schema"]["enum"] == ["Q1", "Q2", "Q3", "Q4"]
        assert params["year"]["schema"]["minimum"] == 1990
        assert params["year"]["schema"]["maximum"] == datetime.now(UTC).year + 1
    every = {p["name"] for p in paths["/v2/transcripts/{symbol}/all"]["get"]["parameters"]}
    assert {"limit", "cursor", "lang", "fields"} <= every
    single = {p["name"] for p in paths["/v2/transcripts/{symbol}"]["get"]["parameters"]}
    assert "lang" in single
