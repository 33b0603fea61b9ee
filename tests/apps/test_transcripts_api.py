"""GET /v1/earnings-transcript/{symbol}: call selection, the TranscriptItem shape, 404/422
bodies, upstream failures, caching and path safety.

Transcripts come from the real xhr recording; the earnings-calls page and quoteType answers
are hand-written in Yahoo's shape (no recordings exist), as in the provider tests.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from urllib.parse import parse_qs, quote, urlsplit

import pytest
import requests
import responses
from responses import matchers

from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import QUERY1, calls_to
from tests.marketdata.providers.test_yahoo_transcripts import CALLS_PAGE, QUOTE_TYPE

TRANSCRIPT = "yahoo/xhr-transcript/transcript-finance-query-2026.json"
FINANCE = "https://finance.yahoo.com"
XHR = f"{FINANCE}/xhr/transcript"
# The calls CALLS_PAGE lists, newest first: (event id, quarter, year)
LISTED = [(548666, "Q2", 2026), (401122, "Q1", 2026), (377001, "Q4", 2025),
          (352200, "Q3", 2025)]


def page(yahoo, symbol: str = "AAPL", body: str = CALLS_PAGE, status: int = 200):
    return yahoo.get(f"{FINANCE}/quote/{quote(symbol, safe='')}/earnings-calls/", body, status,
                     content_type="text/html")


def quote_type(yahoo, symbol: str = "AAPL", body=QUOTE_TYPE, status: int = 200):
    return yahoo.get(f"{QUERY1}/v1/finance/quoteType/{quote(symbol, safe='')}", body, status)


def transcript_for(recording, event_id: int, quarter: str, year: int) -> dict:
    """The recording re-labelled as another call (same text, other event and period)."""
    payload = copy.deepcopy(recording(TRANSCRIPT))
    payload["transcriptMetadata"].update(eventId=event_id, fiscalPeriod=quarter,
                                         fiscalYear=year, title=f"{quarter} {year}",
                                         transcriptId=event_id + 1)
    payload["transcriptContent"]["event_id"] = event_id
    return payload


def transcripts(yahoo, recording, missing: tuple[int, ...] = ()) -> None:
    """An xhr answer per listed event id; ``missing`` ones answer Yahoo's 404."""
    for event_id, quarter, year in LISTED:
        match = [matchers.query_param_matcher({"eventId": str(event_id)}, strict_match=False)]
        if event_id in missing:
            yahoo.mock.add(responses.GET, XHR, status=404, match=match, json={"finance": {
                "result": None, "error": {"code": "Not Found", "description": "Not found"}}})
        else:
            yahoo.mock.add(responses.GET, XHR, match=match,
                           json=transcript_for(recording, event_id, quarter, year))


def requested_events(yahoo) -> list[str]:
    return [parse_qs(urlsplit(c.request.url).query)["eventId"][0]
            for c in calls_to(yahoo.mock, "/xhr/transcript")]


def setup_aapl(yahoo, recording, missing: tuple[int, ...] = ()) -> None:
    page(yahoo)
    quote_type(yahoo)
    transcripts(yahoo, recording, missing)


# -- 200 -----------------------------------------------------------------------------------
def test_latest_transcript_from_recording(api, yahoo, recording):
    page(yahoo)
    quote_type(yahoo)
    yahoo.get(XHR, recording(TRANSCRIPT))
    response = api.get("/v1/earnings-transcript/aapl")
    assert response.status_code == 200, response.content
    assert response["X-Correlation-ID"]
    body = response.json()
    assert set(body) == {"symbol", "transcripts"}
    assert body["symbol"] == "AAPL"
    [item] = body["transcripts"]
    assert set(item) == {"symbol", "quarter", "year", "date", "transcript", "participants",
                         "metadata"}
    assert (item["symbol"], item["quarter"], item["year"]) == ("AAPL", "Q2", 2026)
    assert item["date"] == "2026-04-30T21:00:00Z"
    text = item["transcript"]
    assert text.startswith("Suhasini Chandramouli: Good afternoon, welcome to the Apple Q2 "
                           "fiscal year 2026 earnings conference call.")
    blocks = text.split("\n\n")
    # One block per speaker turn: the IR director's two paragraphs are one block.
    assert blocks[1].startswith("Tim Cook: Thank you, Suhasini.")
    assert blocks[0].count("\n") == 1
    assert blocks[2].startswith("John Ternus: Thanks, Tim, and thanks to everyone on the call.")
    # Yahoo's flat text past the last attributed paragraph: a final block, no speaker.
    flat = recording(TRANSCRIPT)["transcriptContent"]["transcript"]["text"]
    assert blocks[-1].startswith("All right. Awesome. Thank you very much for that color")
    assert flat.endswith(blocks[-1])
    assert blocks[-2].startswith("Tim Cook: ")
    assert item["participants"][:4] == ["Suhasini Chandramouli", "Tim Cook", "John Ternus",
                                        "Kevan Parekh"]
    assert len(item["participants"]) == 13
    assert "Operator" in item["participants"] and "Wamsi Mohan" in item["participants"]
    meta = item["metadata"]
    assert meta["source"] == "Yahoo Finance"
    assert meta["transcripts_id"] == 3281095
    assert datetime.fromisoformat(meta["retrieved_at"]).tzinfo is not None
    assert {k: meta[k] for k in ("eventId", "eventType", "fiscalYear", "fiscalPeriod", "title",
                                 "isLatest", "updated", "quartrId", "url")} == {
        "eventId": 548666, "eventType": "Earnings call", "fiscalYear": 2026,
        "fiscalPeriod": "Q2", "title": "Q2 2026", "isLatest": True,
        "updated": "2026-05-16T12:00:22Z", "quartrId": "4742",
        "url": f"{FINANCE}/quote/AAPL/earnings/AAPL-Q2-2026-earnings_call-548666.html?a=1&b=2"}
    assert {"name": "Tim Cook", "role": "CEO", "company": "Apple"} in meta["speakers"]
    assert {"name": "Operator", "role": None, "company": None} in meta["speakers"]
    assert requested_events(yahoo) == ["548666"]


def test_quarter_and_year_pick_that_call(api, yahoo, recording):
    setup_aapl(yahoo, recording)
    response = api.get("/v1/earnings-transcript/AAPL?quarter=Q4&year=2025")
    assert response.status_code == 200, response.content
    [item] = response.json()["transcripts"]
    assert (item["quarter"], item["year"], item["metadata"]["eventId"]) == ("Q4", 2025, 377001)
    assert requested_events(yahoo) == ["377001"]


def test_year_only_returns_every_call_of_that_year_newest_first(api, yahoo, recording):
    setup_aapl(yahoo, recording)
    response = api.get("/v1/earnings-transcript/AAPL?year=2025")
    assert response.status_code == 200, response.content
    items = response.json()["transcripts"]
    assert [(i["quarter"], i["year"], i["metadata"]["eventId"]) for i in items] == [
        ("Q4", 2025, 377001), ("Q3", 2025, 352200)]
    assert sorted(requested_events(yahoo)) == ["352200", "377001"]


def test_year_only_leaves_out_calls_without_a_transcript(api, yahoo, recording):
    setup_aapl(yahoo, recording, missing=(377001,))
    response = api.get("/v1/earnings-transcript/AAPL?year=2025")
    assert response.status_code == 200
    assert [i["metadata"]["eventId"] for i in response.json()["transcripts"]] == [352200]


def test_quarter_only_is_the_most_recent_call_of_that_quarter(api, yahoo, recording):
    setup_aapl(yahoo, recording)
    response = api.get("/v1/earnings-transcript/AAPL?quarter=q1")  # any case
    assert response.status_code == 200, response.content
    [item] = response.json()["transcripts"]
    assert (item["quarter"], item["year"]) == ("Q1", 2026)
    assert requested_events(yahoo) == ["401122"]


def test_latest_skips_a_call_whose_transcript_is_not_out_yet(api, yahoo, recording):
    setup_aapl(yahoo, recording, missing=(548666,))
    response = api.get("/v1/earnings-transcript/AAPL")
    assert response.status_code == 200
    [item] = response.json()["transcripts"]
    assert (item["quarter"], item["year"]) == ("Q1", 2026)
    assert requested_events(yahoo) == ["548666", "401122"]


def test_empty_parameters_are_invalid_not_absent(api, yahoo):
    # As the OpenAPI schema says (enum Q1..Q4, an integer year): leave them out instead.
    response = api.get("/v1/earnings-transcript/AAPL?quarter=&year=")
    assert response.status_code == 422
    assert set(response.json()["errors"]) == {"quarter", "year"}
    assert len(yahoo.mock.calls) == 0


def test_second_request_is_served_from_the_cache(api, yahoo, recording):
    setup_aapl(yahoo, recording)
    first = api.get("/v1/earnings-transcript/AAPL?quarter=Q2&year=2026")
    upstream = len(yahoo.mock.calls)
    second = api.get("/v1/earnings-transcript/aapl?quarter=Q2&year=2026")
    assert second.status_code == 200
    assert second["X-Cache"] == "HIT"
    assert len(yahoo.mock.calls) == upstream
    assert second.json() == first.json()


def test_upstream_paths_carry_the_encoded_symbol(api, yahoo, recording):
    symbol = "M&M.NS"
    encoded = quote(symbol, safe="")
    page(yahoo, symbol, CALLS_PAGE.replace("/quote/AAPL/earnings/AAPL-",
                                           f"/quote/{encoded}/earnings/{encoded}-"))
    quote_type(yahoo, symbol)
    transcripts(yahoo, recording)
    response = api.get(f"/v1/earnings-transcript/{encoded}")
    assert response.status_code == 200, response.content
    assert response.json()["symbol"] == symbol
    paths = [urlsplit(c.request.url).path for c in yahoo.mock.calls]
    assert f"/quote/{encoded}/earnings-calls/" in paths
    assert f"/v1/finance/quoteType/{encoded}" in paths


# -- 404 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("query, detail", [
    ("?quarter=Q3&year=2019", "No earnings call found for AAPL Q3 2019"),
    ("?year=2024", "No earnings call found for AAPL 2024"),
    ("?quarter=Q4&year=2026", "No earnings call found for AAPL Q4 2026"),
])
def test_no_matching_call_404(api, yahoo, query, detail):
    page(yahoo)
    response = api.get(f"/v1/earnings-transcript/AAPL{query}")
    assert response.status_code == 404
    assert response.json() == {"detail": detail}
    assert calls_to(yahoo.mock, "quoteType") == [] and calls_to(yahoo.mock, "xhr") == []


@pytest.mark.parametrize("status, body", [(404, "<html>Sorry, we couldn't find it</html>"),
                                          (200, "<html><body><h1>SPY</h1></body></html>")])
def test_symbol_without_calls_404(api, yahoo, status, body):
    page(yahoo, "SPY", body, status)
    response = api.get("/v1/earnings-transcript/SPY")
    assert response.status_code == 404
    assert response.json() == {"detail": "No earnings calls found for SPY"}


def test_no_quartr_id_404(api, yahoo):
    page(yahoo)
    payload = copy.deepcopy(QUOTE_TYPE)
    del payload["quoteType"]["result"][0]["quartrId"]
    quote_type(yahoo, body=payload)
    response = api.get("/v1/earnings-transcript/AAPL")
    assert response.status_code == 404
    assert response.json() == {"detail": "No company ID (quartrId) found for AAPL"}


def test_transcript_not_available_404(api, yahoo, recording):
    setup_aapl(yahoo, recording, missing=(377001,))
    response = api.get("/v1/earnings-transcript/AAPL?quarter=Q4&year=2025")
    assert response.status_code == 404
    assert response.json() == {"detail": "No transcript available for AAPL Q4 2025"}


def test_malformed_symbol_404_body(api, yahoo):
    response = api.get("/v1/earnings-transcript/A%20B")
    assert response.status_code == 404
    assert response.json() == {"detail": "Symbol not found: 'A B'"}
    assert len(yahoo.mock.calls) == 0


# -- 422 -------------------------------------------------------------------------------------
@pytest.mark.parametrize("query, errors", [
    ("quarter=Q5", {"quarter": ["Input should be 'Q1', 'Q2', 'Q3' or 'Q4'"]}),
    ("quarter=1", {"quarter": ["Input should be 'Q1', 'Q2', 'Q3' or 'Q4'"]}),
    ("year=abc", {"year": ["Input should be a valid integer, unable to parse string as an "
                           "integer"]}),
    ("year=2025.5", {"year": ["Input should be a valid integer, unable to parse string as an "
                              "integer"]}),
    ("year=1989", {"year": ["Input should be greater than or equal to 1990"]}),
    ("quarter=Q0&year=x", {"quarter": ["Input should be 'Q1', 'Q2', 'Q3' or 'Q4'"],
                           "year": ["Input should be a valid integer, unable to parse string "
                                    "as an integer"]}),
])
def test_invalid_parameters_422(api, yahoo, query, errors):
    response = api.get(f"/v1/earnings-transcript/AAPL?{query}")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": errors}
    assert len(yahoo.mock.calls) == 0


def test_year_above_next_year_422(api, yahoo):
    bound = datetime.now(UTC).year + 1
    response = api.get(f"/v1/earnings-transcript/AAPL?year={bound + 1}")
    assert response.status_code == 422
    assert response.json() == {"detail": "Invalid request", "errors": {
        "year": [f"Input should be less than or equal to {bound}"]}}
    page(yahoo)
    accepted = api.get(f"/v1/earnings-transcript/AAPL?year={bound}")
    assert accepted.status_code == 404  # valid, just no call listed for that year


# -- upstream failures ----------------------------------------------------------------------
FAILURES = {
    "yahoo_500": (dict(status=500, body="<html>error</html>"), 502, "upstream_bad_response"),
    "connection_error": (dict(body=requests.exceptions.ConnectionError("refused")), 503,
                         "upstream_unavailable"),
    "timeout": (dict(body=requests.exceptions.ReadTimeout("slow")), 504, "upstream_timeout"),
    "yahoo_429": (dict(status=429, body="Too Many Requests"), 429, "upstream_rate_limited"),
}


@pytest.mark.parametrize("failing", ["page", "quoteType", "transcript"])
@pytest.mark.parametrize("kind", list(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, recording, failing, kind):
    registration, status, code = FAILURES[kind]
    urls = {"page": f"{FINANCE}/quote/AAPL/earnings-calls/",
            "quoteType": f"{QUERY1}/v1/finance/quoteType/AAPL", "transcript": XHR}
    yahoo.mock.add(responses.GET, urls[failing], **registration)
    if failing != "page":
        page(yahoo)
    if failing == "transcript":
        quote_type(yahoo)
    response = api.get("/v1/earnings-transcript/AAPL")
    assert response.status_code == status
    body = response.json()
    assert set(body) == {"detail", "provider", "code"}
    assert (body["provider"], body["code"]) == ("yahoo", code)
    assert "Traceback" not in response.content.decode()


def test_one_failing_transcript_fails_the_year(api, yahoo, recording):
    page(yahoo)
    quote_type(yahoo)
    for event_id, quarter, year in LISTED:
        match = [matchers.query_param_matcher({"eventId": str(event_id)}, strict_match=False)]
        if event_id == 352200:
            yahoo.mock.add(responses.GET, XHR, status=500, body="error", match=match)
        else:
            yahoo.mock.add(responses.GET, XHR, match=match,
                           json=transcript_for(recording, event_id, quarter, year))
    response = api.get("/v1/earnings-transcript/AAPL?year=2025")
    assert response.status_code == 502
    assert response.json()["provider"] == "yahoo"


# -- path safety -----------------------------------------------------------------------------
@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_never_reaches_yahoo(api, yahoo, raw):
    response = api.get(f"/v1/earnings-transcript/{raw}")
    assert response.status_code in (404, 422), response.content
    body = response.json()
    assert set(body) == {"detail"} and isinstance(body["detail"], str)
    assert len(body["detail"]) < 200
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_with_filters_never_reaches_yahoo(api, yahoo, raw):
    response = api.get(f"/v1/earnings-transcript/{raw}?quarter=Q1&year=2025")
    assert response.status_code in (404, 422), response.content
    assert len(yahoo.mock.calls) == 0


def test_upstream_paths_are_only_the_three_transcript_calls(api, yahoo, recording):
    setup_aapl(yahoo, recording)
    api.get("/v1/earnings-transcript/AAPL?year=2026")
    paths = {urlsplit(c.request.url).path for c in yahoo.mock.calls}
    assert paths <= {"/", "/v1/test/getcrumb", "/quote/AAPL/earnings-calls/",
                     "/v1/finance/quoteType/AAPL", "/xhr/transcript"}


# -- docs ------------------------------------------------------------------------------------
def test_documented_in_openapi(api):
    schema = api.get("/openapi.json").json()
    operation = schema["paths"]["/v1/earnings-transcript/{symbol}"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert params["symbol"]["in"] == "path"
    assert params["quarter"]["schema"]["enum"] == ["Q1", "Q2", "Q3", "Q4"]
    assert params["year"]["schema"]["minimum"] == 1990
    assert params["year"]["schema"]["maximum"] == datetime.now(UTC).year + 1
    assert {"200", "404", "422", "502", "503"} <= set(operation["responses"])
