"""Earnings-call provider: the list page parser, quoteType's quartrId, the xhr transcript.

The xhr transcript is tested on the real recording. The earnings-calls HTML page and the
v1 quoteType answer have no recordings: the payloads below are hand-written in the real
shape (link format ``/quote/{SYM}/earnings/{SYM}-Q2-2026-earnings_call-548666.html`` as
Yahoo publishes it; quoteType keys as Yahoo's v1 API returns them) with our own values.
"""

from __future__ import annotations

import copy
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers.yahoo.transcripts import (
    EarningsCall,
    fetch_earnings_calls,
    fetch_quartr_id,
    fetch_transcript,
    parse_earnings_calls,
    parse_quartr_id,
    parse_transcript,
)
from tests.conftest import CRUMB, QUERY1, calls_to

TRANSCRIPT = "yahoo/xhr-transcript/transcript-finance-query-2026.json"
FINANCE = "https://finance.yahoo.com"

# Hand-written earnings-calls page: relative and absolute links, each call linked twice,
# a related company's call, a call link without a period, noise links and entities.
CALLS_PAGE = """<!DOCTYPE html><html><head><title>Apple Inc. (AAPL) Earnings Calls</title></head>
<body><nav><a href="/">Home</a><a href="/quote/AAPL/">Summary</a></nav>
<ul>
 <li><a href="/quote/AAPL/earnings/AAPL-Q1-2026-earnings_call-401122.html">Q1 2026</a>
     <a href="/quote/AAPL/earnings/AAPL-Q1-2026-earnings_call-401122.html">Read</a></li>
 <li><a href='https://finance.yahoo.com/quote/AAPL/earnings/AAPL-Q2-2026-earnings_call-548666\
.html?a=1&amp;b=2'>Q2 2026</a></li>
 <li><a class="x" href="/quote/AAPL/earnings/AAPL-q4-2025-earnings_call-377001.html">Q4</a></li>
 <li><a href="/quote/AAPL/earnings/AAPL-Q3-2025-earnings_call-352200.html">Q3 2025</a></li>
 <li><a href="/quote/AAPL/earnings/AAPL-special-earnings_call-999001.html">Special</a></li>
 <li><a href="/quote/AAPL/earnings/AAPL-Q7-2025-earnings_call-999002.html">Odd period</a></li>
</ul>
<aside><a href="/quote/MSFT/earnings/MSFT-Q3-2026-earnings_call-560001.html">MSFT Q3</a>
 <a href="https://example.com/AAPL-Q2-2026-earnings_call-1.html">elsewhere</a></aside>
</body></html>"""

# Hand-written v1 quoteType answer (Yahoo's key order; our values).
QUOTE_TYPE = {"quoteType": {"result": [{
    "symbol": "AAPL", "quoteType": "EQUITY", "quartrId": "4742", "exchange": "NMS",
    "shortName": "Apple Inc.", "longName": "Apple Inc.", "messageBoardId": "finmb_24937",
    "exchangeTimezoneName": "America/New_York", "exchangeTimezoneShortName": "EDT",
    "gmtOffSetMilliseconds": -14400000, "market": "us_market", "isEsgPopulated": False,
    "hasSelerityEarnings": True}], "error": None}}


# -- the list page ---------------------------------------------------------------------------
def test_parse_earnings_calls_dedupes_filters_and_sorts_newest_first():
    calls = parse_earnings_calls(CALLS_PAGE, "AAPL")
    assert [(c.event_id, c.quarter, c.year) for c in calls] == [
        (548666, "Q2", 2026), (401122, "Q1", 2026), (377001, "Q4", 2025),
        (352200, "Q3", 2025), (999001, None, None), (999002, None, None)]
    assert calls[0].url == (f"{FINANCE}/quote/AAPL/earnings/AAPL-Q2-2026-earnings_call-"
                            "548666.html?a=1&b=2")
    assert calls[1].url == f"{FINANCE}/quote/AAPL/earnings/AAPL-Q1-2026-earnings_call-401122.html"
    assert calls[0].title == "Q2 2026"
    assert calls[4].title == "Earnings Call"


def test_parse_earnings_calls_symbol_match_is_case_and_encoding_insensitive():
    page = ('<a href="/quote/M%26M.NS/earnings/M%26M.NS-Q1-2026-earnings_call-7.html">x</a>'
            '<a href="/quote/brk-b/earnings/BRK-B-Q2-2026-earnings_call-8.html">y</a>')
    assert [c.event_id for c in parse_earnings_calls(page, "M&M.NS")] == [7]
    assert [c.event_id for c in parse_earnings_calls(page, "BRK-B")] == [8]


def test_parse_earnings_calls_page_without_calls():
    assert parse_earnings_calls("<html><body><a href='/quote/SPY/'>SPY</a></body></html>",
                                "SPY") == []
    assert parse_earnings_calls("", "SPY") == []
    assert parse_earnings_calls("<a href=", "SPY") == []


def test_fetch_earnings_calls_requests_the_page_without_a_crumb_and_caches(yahoo):
    yahoo.get(f"{FINANCE}/quote/AAPL/earnings-calls/", CALLS_PAGE, content_type="text/html")
    calls = fetch_earnings_calls("AAPL")
    assert calls[0] == EarningsCall(548666, "Q2", 2026, calls[0].url)
    assert fetch_earnings_calls("AAPL") == calls
    page_calls = calls_to(yahoo.mock, "/earnings-calls/")
    assert len(page_calls) == 1
    assert "crumb" not in page_calls[0].request.url
    assert "text/html" in page_calls[0].request.headers["Accept"]
    assert calls_to(yahoo.mock, "getcrumb") == []


def test_fetch_earnings_calls_symbol_is_url_encoded(yahoo):
    yahoo.get(f"{FINANCE}/quote/M%26M.NS/earnings-calls/", "<html></html>",
              content_type="text/html")
    with pytest.raises(NotFound):
        fetch_earnings_calls("M&M.NS")
    assert urlsplit(calls_to(yahoo.mock, "earnings-calls")[0].request.url).path == \
        "/quote/M%26M.NS/earnings-calls/"


@pytest.mark.parametrize("status, body", [(404, "<html>Not found</html>"),
                                          (200, "<html><body>No calls</body></html>")])
def test_fetch_earnings_calls_not_found(yahoo, status, body):
    yahoo.get(f"{FINANCE}/quote/SPY/earnings-calls/", body, status, content_type="text/html")
    with pytest.raises(NotFound) as exc:
        fetch_earnings_calls("SPY")
    assert exc.value.detail == "No earnings calls found for SPY"
    with pytest.raises(NotFound):  # remembered: no second upstream call
        fetch_earnings_calls("SPY")
    assert len(calls_to(yahoo.mock, "/earnings-calls/")) == 1


def test_fetch_earnings_calls_server_error_is_bad_gateway(yahoo):
    yahoo.get(f"{FINANCE}/quote/AAPL/earnings-calls/", "oops", 403, content_type="text/html")
    with pytest.raises(UpstreamBadResponse):
        fetch_earnings_calls("AAPL")


# -- quoteType -> quartrId ---------------------------------------------------------------------
def test_parse_quartr_id_from_v1_quote_type():
    assert parse_quartr_id(QUOTE_TYPE) == "4742"
    numeric = copy.deepcopy(QUOTE_TYPE)
    numeric["quoteType"]["result"][0]["quartrId"] = 4742
    assert parse_quartr_id(numeric) == "4742"


@pytest.mark.parametrize("value", [None, "", "  "])
def test_parse_quartr_id_absent(value):
    payload = copy.deepcopy(QUOTE_TYPE)
    if value is None:
        del payload["quoteType"]["result"][0]["quartrId"]
    else:
        payload["quoteType"]["result"][0]["quartrId"] = value
    assert parse_quartr_id(payload) is None


def test_parse_quartr_id_unknown_symbol_and_bad_shapes():
    with pytest.raises(NotFound):
        parse_quartr_id({"quoteType": {"result": [], "error": None}})
    with pytest.raises(NotFound) as exc:
        parse_quartr_id({"quoteType": {"result": None, "error": {
            "code": "Not Found", "description": "Quote not found for symbol: ZZZZ"}}})
    assert exc.value.detail == "Quote not found for symbol: ZZZZ"
    with pytest.raises(UpstreamBadResponse):
        parse_quartr_id({"finance": {}})


def test_quote_summary_quote_type_module_has_no_quartr_id(recording):
    """Why the provider calls v1 quoteType: the quoteSummary module of the same name (the
    recorded one) carries no quartrId."""
    module = recording("yahoo/v10-quoteSummary/quoteType/AAPL.json")["quoteSummary"][
        "result"][0]["quoteType"]
    assert module["symbol"] == "AAPL"
    assert "quartrId" not in module


def test_fetch_quartr_id_uses_query1_with_a_crumb(yahoo):
    yahoo.get(f"{QUERY1}/v1/finance/quoteType/AAPL", QUOTE_TYPE)
    assert fetch_quartr_id("AAPL") == "4742"
    assert fetch_quartr_id("AAPL") == "4742"
    calls = calls_to(yahoo.mock, "/v1/finance/quoteType/")
    assert len(calls) == 1
    query = parse_qs(urlsplit(calls[0].request.url).query)
    assert query == {"lang": ["en-US"], "region": ["US"], "crumb": [CRUMB]}


def test_fetch_quartr_id_missing_is_not_found(yahoo):
    payload = copy.deepcopy(QUOTE_TYPE)
    del payload["quoteType"]["result"][0]["quartrId"]
    yahoo.get(f"{QUERY1}/v1/finance/quoteType/AAPL", payload)
    with pytest.raises(NotFound) as exc:
        fetch_quartr_id("AAPL")
    assert exc.value.detail == "No company ID (quartrId) found for AAPL"


# -- the transcript (real recording) -----------------------------------------------------------
def test_parse_transcript_recording(recording):
    t = parse_transcript(recording(TRANSCRIPT))
    assert (t.fiscal_period, t.fiscal_year) == ("Q2", 2026)
    assert t.date == 1777582800  # 2026-04-30 21:00 UTC
    assert t.updated == 1778932822
    assert (t.event_id, t.transcript_id, t.company_id) == (548666, 3281095, 4742)
    assert (t.title, t.event_type, t.is_latest) == ("Q2 2026", "Earnings call", True)
    assert len(t.paragraphs) == 40
    first = t.paragraphs[0]
    assert first.speaker == "Suhasini Chandramouli"
    assert first.text.startswith("Good afternoon, welcome to the Apple Q2 fiscal year 2026 "
                                 "earnings conference call. My name is Suhasini")
    assert t.paragraphs[2].speaker == "Tim Cook"
    assert t.paragraphs[2].text.startswith("Thank you, Suhasini.")
    assert len(t.speakers) == 13
    by_name = {s.name: s for s in t.speakers}
    assert (by_name["Tim Cook"].role, by_name["Tim Cook"].company) == ("CEO", "Apple")
    assert (by_name["Kevan Parekh"].role, by_name["Kevan Parekh"].company) == ("CFO", "Apple")
    assert (by_name["Operator"].role, by_name["Operator"].company) == (None, None)
    assert t.text.startswith("Good afternoon, welcome to the Apple Q2")
    assert t.retrieved_at is None  # set by fetch, not by the pure parser


def test_parse_transcript_keeps_the_flat_text_past_the_paragraphs(recording):
    """The recording's 40 paragraphs stop mid-Q&A; Yahoo's flat text goes on."""
    t = parse_transcript(recording(TRANSCRIPT))
    spoken = " ".join(p.text for p in t.paragraphs)
    assert len(spoken) == 28756 and len(t.text) == 51837
    assert t.remainder.startswith("All right. Awesome. Thank you very much for that color, "
                                  "Tim.")
    assert f"{spoken} {t.remainder}" == t.text


def test_parse_transcript_no_remainder_when_texts_disagree(recording):
    payload = copy.deepcopy(recording(TRANSCRIPT))
    payload["transcriptContent"]["transcript"]["text"] = "Something else entirely."
    assert parse_transcript(payload).remainder == ""


def test_parse_transcript_tolerates_variants(recording):
    payload = copy.deepcopy(recording(TRANSCRIPT))
    meta = payload["transcriptMetadata"]
    meta.update(fiscalYear="2026", fiscalPeriod="q2", date={"raw": 1777582800, "fmt": "x"},
                transcriptId="T-1")
    paragraphs = payload["transcriptContent"]["transcript"]["paragraphs"]
    paragraphs[0]["speaker"] = 99  # not in the mapping
    paragraphs[1]["text"] = ""  # falls back to the sentences
    paragraphs[2]["text"] = "   "
    paragraphs[2]["sentences"] = []  # nothing left: dropped
    t = parse_transcript(payload)
    assert (t.fiscal_period, t.fiscal_year, t.date, t.transcript_id) == (
        "Q2", 2026, 1777582800, "T-1")
    assert t.paragraphs[0].speaker == "Speaker 99"
    assert t.paragraphs[1].text.startswith("These statements involve risks")
    assert len(t.paragraphs) == 39


@pytest.mark.parametrize("payload", [{}, {"transcriptContent": None}, [], None,
                                     {"transcriptMetadata": {"eventId": 1}}])
def test_parse_transcript_without_content_is_not_found(payload):
    with pytest.raises(NotFound):
        parse_transcript(payload)


def test_parse_transcript_unusable_metadata_is_left_empty():
    t = parse_transcript({"transcriptContent": {"transcript": {"paragraphs": "x"}},
                          "transcriptMetadata": {"fiscalPeriod": "Q9", "isLatest": "yes"}})
    assert (t.fiscal_period, t.fiscal_year, t.date, t.is_latest) == (None, None, None, None)
    assert t.paragraphs == [] and t.speakers == [] and t.text == ""


def test_fetch_transcript_request_and_cache(yahoo, recording):
    yahoo.get(f"{FINANCE}/xhr/transcript", recording(TRANSCRIPT))
    t = fetch_transcript("AAPL", "4742", 548666)
    assert t.transcript_id == 3281095
    assert t.retrieved_at and t.retrieved_at.endswith("Z")
    assert fetch_transcript("AAPL", "4742", 548666) == t
    calls = calls_to(yahoo.mock, "/xhr/transcript")
    assert len(calls) == 1
    assert parse_qs(urlsplit(calls[0].request.url).query) == {
        "eventType": ["earnings_call"], "quartrId": ["4742"], "eventId": ["548666"],
        "lang": ["en-US"], "region": ["US"], "crumb": [CRUMB]}


def test_fetch_transcript_for_another_event_is_bad_gateway(yahoo, recording):
    yahoo.get(f"{FINANCE}/xhr/transcript", recording(TRANSCRIPT))
    with pytest.raises(UpstreamBadResponse):
        fetch_transcript("AAPL", "4742", 1)


def test_fetch_transcript_404_is_not_found(yahoo):
    yahoo.get(f"{FINANCE}/xhr/transcript", {"finance": {"result": None, "error": {
        "code": "Not Found", "description": "Transcript not found"}}}, 404)
    with pytest.raises(NotFound) as exc:
        fetch_transcript("AAPL", "4742", 548666)
    assert exc.value.detail == "No transcript available for AAPL event 548666"


def test_parse_transcript_recording_document_members(recording):
    """What v2 serves besides the text: the speakers' numbers, the speaker count, the
    format version, the document's type and storage URL, each as recorded."""
    payload = recording(TRANSCRIPT)
    t = parse_transcript(payload)
    mapping = payload["transcriptContent"]["speaker_mapping"]
    assert [(s.index, s.name, s.role, s.company) for s in t.speakers] == [
        (m["speaker"], m["speaker_data"]["name"], m["speaker_data"]["role"],
         m["speaker_data"]["company"]) for m in mapping]
    assert t.speakers[0].index == 0 and t.speakers[0].name == "Aaron Rakers"
    assert (t.speaker_count, t.version, t.transcript_type, t.has_body) == (13, "1.0.0",
                                                                           "IN_HOUSE", True)
    assert t.s3_url == ("s3://890742573995-market-data-service-prod-us-east-1/shared/"
                        "transcripts/2026/4/30/3281095.json")


def test_parse_transcript_without_a_body_or_document_members(recording):
    payload = copy.deepcopy(recording(TRANSCRIPT))
    del payload["transcriptContent"]["transcript"]
    del payload["transcriptContent"]["version"]
    for name in ("type", "s3Url"):
        del payload["transcriptMetadata"][name]
    t = parse_transcript(payload)
    assert (t.has_body, t.speaker_count, t.text, t.paragraphs) == (False, None, "", [])
    assert (t.version, t.s3_url, t.transcript_type) == (None, None, None)
    assert len(t.speakers) == 13
    payload["transcriptMetadata"]["transcriptType"] = "AI"  # the name the reference serves
    assert parse_transcript(payload).transcript_type == "AI"
