"""Sandbox earnings calls: the list page, v1 quoteType and the xhr transcript, checked
against the real recording's shape, the provider's parsers, and the API in sandbox mode."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from marketdata.providers.yahoo.transcripts import (
    parse_earnings_calls,
    parse_quartr_id,
    parse_transcript,
)
from marketdata.sandbox import SandboxResponse, UpstreamSandbox
from marketdata.sandbox.yahoo.transcripts import quartr_id, symbol_for_quartr_id

UPSTREAM = Path(__file__).resolve().parents[2].parent / "shared" / "upstream" / "yahoo"
RECORDING = UPSTREAM / "xhr-transcript" / "transcript-finance-query-2026.json"
needs_recording = pytest.mark.skipif(not RECORDING.exists(), reason="no shared/upstream")

WWW = "finance.yahoo.com"
Q1 = "query1.finance.yahoo.com"
JUNE_2026 = datetime(2026, 6, 1, 12, tzinfo=UTC)
AUG_2026 = datetime(2026, 8, 15, 12, tzinfo=UTC)


def make(clock: datetime = JUNE_2026) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock)


def get(sb: UpstreamSandbox, path: str, host: str = WWW, headers: dict[str, str] | None = None,
        **query: str) -> SandboxResponse:
    return sb.handle("GET", host, path, {k: [v] for k, v in query.items()}, headers or {})


def crumb(sb: UpstreamSandbox) -> str:
    cookie = get(sb, "/", host="fc.yahoo.com").headers["Set-Cookie"].split(";")[0]
    return get(sb, "/v1/test/getcrumb", host=Q1, headers={"Cookie": cookie}).body.decode()


def calls_page(sb: UpstreamSandbox, symbol: str) -> SandboxResponse:
    return get(sb, f"/quote/{symbol}/earnings-calls/")


def transcript(sb: UpstreamSandbox, quartr: str, event: int | str, **extra: str) -> SandboxResponse:
    query = {"eventType": "earnings_call", "quartrId": quartr, "eventId": str(event),
             "lang": "en-US", "region": "US", "crumb": crumb(sb), **extra}
    return get(sb, "/xhr/transcript", **query)


def keys(obj: Any) -> list[str]:
    return sorted(obj)


# -- the list page ---------------------------------------------------------------------------
def test_equity_page_lists_eight_calls_newest_first():
    resp = calls_page(make(), "AAPL")
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("text/html")
    calls = parse_earnings_calls(resp.body.decode(), "AAPL")
    assert [(c.quarter, c.year) for c in calls] == [
        ("Q2", 2026), ("Q1", 2026), ("Q4", 2025), ("Q3", 2025), ("Q2", 2025), ("Q1", 2025),
        ("Q4", 2024), ("Q3", 2024)]
    assert len({c.event_id for c in calls}) == 8
    assert all(c.url.startswith("https://finance.yahoo.com/quote/AAPL/earnings/AAPL-Q")
               for c in calls)
    html = resp.body.decode()
    assert html.count(f"earnings_call-{calls[0].event_id}.html") == 2  # title + button
    assert "/quote/AAPL/" not in html.split("<aside>")[1]  # the related call is another's


def test_page_is_deterministic_and_moves_with_the_clock():
    first = calls_page(make(), "MSFT").body
    assert calls_page(make(), "MSFT").body == first
    june = parse_earnings_calls(first.decode(), "MSFT")
    august = parse_earnings_calls(calls_page(make(AUG_2026), "MSFT").body.decode(), "MSFT")
    assert (june[0].quarter, june[0].year) == ("Q3", 2026)  # fiscal year ends in June
    assert (august[0].quarter, august[0].year) == ("Q4", 2026)
    assert august[1] == june[0]  # same event id and link for the same call


def test_generated_equity_has_calls():
    calls = parse_earnings_calls(calls_page(make(), "QWERT").body.decode(), "QWERT")
    assert len(calls) == 8
    assert all(c.quarter in ("Q1", "Q2", "Q3", "Q4") for c in calls)


@pytest.mark.parametrize("symbol", ["SPY", "VFIAX", "BTC-USD", "^GSPC", "EURUSD=X", "GC=F"])
def test_non_equities_get_a_page_without_calls(symbol):
    resp = calls_page(make(), symbol)
    assert resp.status == 200
    assert parse_earnings_calls(resp.body.decode(), symbol) == []
    assert "earnings_call" not in resp.body.decode()


@pytest.mark.parametrize("symbol", ["ZZZZ", "NOTFOUND1", "BAD<SYM>"])
def test_unknown_symbol_page_is_a_404_html_page(symbol):
    resp = calls_page(make(), symbol)
    assert resp.status == 404
    assert resp.headers["Content-Type"].startswith("text/html")
    assert "<SYM>" not in resp.body.decode()  # escaped


# -- quoteType -------------------------------------------------------------------------------
def test_quote_type_equity_has_a_quartr_id():
    resp = get(make(), "/v1/finance/quoteType/AAPL", host=Q1)
    assert resp.status == 200
    result = json.loads(resp.body)["quoteType"]["result"][0]
    assert list(result)[:3] == ["symbol", "quoteType", "quartrId"]
    assert (result["symbol"], result["quoteType"]) == ("AAPL", "EQUITY")
    assert parse_quartr_id(json.loads(resp.body)) == quartr_id("AAPL")
    assert result["exchangeTimezoneShortName"] == "EDT"
    assert result["gmtOffSetMilliseconds"] == -14_400_000


@pytest.mark.parametrize("symbol", ["SPY", "BTC-USD", "^GSPC"])
def test_quote_type_non_equity_has_no_quartr_id(symbol):
    resp = get(make(), f"/v1/finance/quoteType/{symbol}", host=Q1)
    assert resp.status == 200
    assert parse_quartr_id(json.loads(resp.body)) is None


def test_quote_type_unknown_symbol_404():
    resp = get(make(), "/v1/finance/quoteType/ZZZZ", host=Q1)
    assert resp.status == 404
    assert json.loads(resp.body) == {"quoteType": {"result": None, "error": {
        "code": "Not Found", "description": "Quote not found for symbol: ZZZZ"}}}


@pytest.mark.parametrize("symbol", ["AAPL", "BRK-B", "M&M.NS", "0700.HK", "A", "Z9Z9Z9Z9Z9Z9"])
def test_quartr_id_round_trip(symbol):
    assert quartr_id(symbol).isdigit()
    assert symbol_for_quartr_id(quartr_id(symbol)) == symbol


@pytest.mark.parametrize("text", [None, "", "abc", "0", "-1", "9" * 50])
def test_quartr_id_garbage(text):
    assert symbol_for_quartr_id(text) is None


# -- the transcript --------------------------------------------------------------------------
def _listed(sb: UpstreamSandbox, symbol: str):
    return parse_earnings_calls(calls_page(sb, symbol).body.decode(), symbol)


@needs_recording
def test_transcript_has_the_recorded_shape():
    recorded = json.loads(RECORDING.read_text())
    sb = make()
    call = _listed(sb, "AAPL")[0]
    resp = transcript(sb, quartr_id("AAPL"), call.event_id)
    assert resp.status == 200
    body = json.loads(resp.body)
    assert keys(body) == keys(recorded)
    content, rec_content = body["transcriptContent"], recorded["transcriptContent"]
    assert keys(content) == keys(rec_content)
    assert keys(content["transcript"]) == keys(rec_content["transcript"])
    assert keys(body["transcriptMetadata"]) == keys(recorded["transcriptMetadata"])
    assert keys(content["speaker_mapping"][0]) == keys(rec_content["speaker_mapping"][0])
    assert keys(content["speaker_mapping"][0]["speaker_data"]) == \
        keys(rec_content["speaker_mapping"][0]["speaker_data"])
    paragraph, rec_paragraph = content["transcript"]["paragraphs"][0], \
        rec_content["transcript"]["paragraphs"][0]
    assert keys(paragraph) == keys(rec_paragraph)
    assert keys(paragraph["sentences"][0]) == keys(rec_paragraph["sentences"][0])
    assert keys(paragraph["sentences"][0]["words"][0]) == \
        keys(rec_paragraph["sentences"][0]["words"][0])
    meta = body["transcriptMetadata"]
    assert (meta["fiscalPeriod"], meta["fiscalYear"], meta["eventId"]) == (
        "Q2", 2026, call.event_id)
    assert meta["date"] == 1777582800  # Apple's real Q2 FY2026 call time
    assert meta["isLatest"] is True


def test_transcript_parses_into_a_plausible_call():
    sb = make()
    calls = _listed(sb, "NVDA")
    resp = transcript(sb, quartr_id("NVDA"), calls[1].event_id)
    t = parse_transcript(json.loads(resp.body))
    assert (t.fiscal_period, t.fiscal_year) == (calls[1].quarter, calls[1].year)
    assert t.is_latest is False
    names = [s.name for s in t.speakers]
    assert "Operator" in names and len(names) == len(set(names)) >= 6
    roles = {s.role for s in t.speakers}
    assert {"CEO", "CFO", None} <= roles
    assert t.paragraphs[0].speaker == "Operator"
    assert "NVIDIA" in t.paragraphs[0].text
    assert t.paragraphs[-1].speaker == "Operator"
    assert len(t.paragraphs) >= 12
    assert t.text == " ".join(p.text for p in t.paragraphs) and t.remainder == ""
    assert t.date is not None and t.date <= int(JUNE_2026.timestamp())
    # deterministic
    assert transcript(sb, quartr_id("NVDA"), calls[1].event_id).body == resp.body


def test_transcript_needs_a_crumb():
    sb = make()
    call = _listed(sb, "AAPL")[0]
    resp = get(sb, "/xhr/transcript", eventType="earnings_call", quartrId=quartr_id("AAPL"),
               eventId=str(call.event_id))
    assert resp.status == 401


@pytest.mark.parametrize("case", ["other-company", "unknown-event", "fund", "garbage-id",
                                  "future-call", "event-type"])
def test_wrong_pair_is_a_yahoo_404(case):
    sb = make()
    aapl = _listed(sb, "AAPL")[0]
    msft = _listed(sb, "MSFT")[0]
    future = _listed(make(AUG_2026), "MSFT")[0]
    quartr, event, extra = {
        "other-company": (quartr_id("AAPL"), msft.event_id, {}),
        "unknown-event": (quartr_id("AAPL"), 1, {}),
        "fund": (quartr_id("SPY"), aapl.event_id, {}),
        "garbage-id": ("not-a-number", aapl.event_id, {}),
        "future-call": (quartr_id("MSFT"), future.event_id, {}),
        "event-type": (quartr_id("AAPL"), aapl.event_id, {"eventType": "conference"}),
    }[case]
    resp = transcript(sb, quartr, event, **extra)
    assert resp.status == 404
    assert json.loads(resp.body) == {"finance": {"result": None, "error": {
        "code": "Not Found", "description": "Transcript not found"}}}


# -- the API in sandbox mode (real client, real handshake) -----------------------------------
def test_api_answers_from_the_sandbox(api, sandbox_upstream):
    response = api.get("/v1/earnings-transcript/AAPL")
    assert response.status_code == 200, response.content
    body = response.json()
    [item] = body["transcripts"]
    assert body["symbol"] == item["symbol"] == "AAPL"
    assert item["quarter"] in ("Q1", "Q2", "Q3", "Q4")
    assert item["transcript"].startswith("Operator: Good day, and welcome to the Apple ")
    assert item["participants"][0] == "Operator"
    assert item["metadata"]["isLatest"] is True
    assert item["metadata"]["quartrId"] == quartr_id("AAPL")
    for prefix in ("/quote/AAPL/earnings-calls/", "/v1/finance/quoteType/AAPL",
                   "/xhr/transcript"):
        assert [e["status"] for e in sandbox_upstream.requests_matching(prefix)] == [200], prefix


def test_api_year_filter_from_the_sandbox(api, sandbox_upstream):
    latest = api.get("/v1/earnings-transcript/MSFT").json()["transcripts"][0]
    response = api.get(f"/v1/earnings-transcript/MSFT?year={latest['year'] - 1}")
    assert response.status_code == 200
    items = response.json()["transcripts"]
    assert 1 <= len(items) <= 4
    assert all(i["year"] == latest["year"] - 1 for i in items)
    assert [i["quarter"] for i in items] == sorted((i["quarter"] for i in items), reverse=True)


@pytest.mark.parametrize("symbol, detail", [
    ("ZZZZ", "No earnings calls found for ZZZZ"),
    ("SPY", "No earnings calls found for SPY"),
    ("BTC-USD", "No earnings calls found for BTC-USD"),
])
def test_api_404_from_the_sandbox(api, sandbox_upstream, symbol, detail):
    response = api.get(f"/v1/earnings-transcript/{symbol}")
    assert response.status_code == 404
    assert response.json() == {"detail": detail}
    assert sandbox_upstream.requests_matching("/xhr/transcript") == []
