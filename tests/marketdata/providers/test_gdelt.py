"""The GDELT DOC 2.0 provider: the query built from a company name, the request, the
ArtList parser, GDELT's plain-text answers, pacing and the caches.

No GDELT recording exists (shared/upstream/INDEX.md: "not found"), so ``ARTLIST`` below is
hand-made in GDELT's documented ArtList JSON shape (``{"articles": [{url, url_mobile, title,
seendate, socialimage, domain, language, sourcecountry}]}``), with the quirks GDELT is known
for: empty ``socialimage``/``url_mobile``, a repeated url, untidy title spacing. The company
names come from the real Yahoo v7 quote recordings where one exists.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from marketdata import deadline
from marketdata.errors import (
    NotFound,
    UpstreamBadResponse,
    UpstreamRateLimited,
)
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.providers import gdelt
from marketdata.providers.gdelt import (
    DOC_URL,
    GdeltPacer,
    artlist_params,
    build_query,
    decode_artlist,
    fetch_world_news,
    name_candidates,
    parse_articles,
    parse_seendate,
    plain_text_error,
    search_name,
)
from marketdata.providers.yahoo.quote import parse_quotes
from tests.conftest import calls_to, load_recording

ARTLIST = {"articles": [
    {"url": "https://www.example-news.com/markets/apple-beats-estimates",
     "url_mobile": "",
     "title": "Apple  beats quarterly revenue estimates ",
     "seendate": "20240115T163000Z",
     "socialimage": "https://www.example-news.com/img/apple.jpg",
     "domain": "example-news.com", "language": "English", "sourcecountry": "United States"},
    {"url": "https://biz.example.org/apple-layoffs",
     "url_mobile": "https://m.biz.example.org/apple-layoffs",
     "title": "Apple to cut jobs in services unit",
     "seendate": "20240116T081500Z", "socialimage": "",
     "domain": "biz.example.org", "language": "English", "sourcecountry": "United Kingdom"},
    {"url": "https://www.example-news.com/markets/apple-beats-estimates",
     "url_mobile": "", "title": "Apple beats quarterly revenue estimates (repeat)",
     "seendate": "20240115T164500Z", "socialimage": "", "domain": "example-news.com",
     "language": "English", "sourcecountry": "United States"},
    {"url": "https://wire.example.net/apple-event", "url_mobile": "",
     "title": "Apple to hold product event in September", "seendate": "20240114120000",
     "socialimage": "", "language": "English", "sourcecountry": "Canada"},
    {"url": "https://wire.example.net/undated", "url_mobile": "", "title": "Apple undated",
     "seendate": "yesterday", "socialimage": "", "domain": "wire.example.net",
     "language": "English", "sourcecountry": "Canada"},
    {"url": "", "title": "No link", "seendate": "20240117T000000Z", "domain": "x.example"},
    {"url": "https://x.example/no-title", "title": "  ", "seendate": "20240117T000000Z"},
    "not an article",
]}


@pytest.fixture(autouse=True)
def _no_pacing(settings):
    settings.GDELT_MIN_INTERVAL_SECONDS = 0


def response(body: bytes | str, status: int = 200) -> UpstreamResponse:
    content = body.encode() if isinstance(body, str) else body
    return UpstreamResponse(gdelt.PROVIDER, status, {}, content, DOC_URL, {})


# -- the query --------------------------------------------------------------------------------
RECORDED_NAMES = {  # v7 quote recording -> (symbol, phrase GDELT is asked for)
    "yahoo/v7-quote/quote-AAPL.json": ("AAPL", "Apple"),
    "yahoo/v7-quote/quote-AAPL-BABA.json": ("BABA", "Alibaba"),
    "yahoo/v7-quote/quote-BTC-USD.json": ("BTC-USD", "Bitcoin"),
    "yahoo/v7-quote/quote-EURUSD_X.json": ("EURUSD=X", "EUR/USD"),
    "yahoo/v7-quote/quote-GC_F.json": ("GC=F", "Gold futures"),
    "yahoo/v7-quote/quote-LDO.MI.json": ("LDO.MI", "Leonardo"),
    "yahoo/v7-quote/quote-QQQ.json": ("QQQ", "Invesco QQQ Trust"),
}


@pytest.mark.parametrize("file", sorted(RECORDED_NAMES))
def test_search_names_of_recorded_quotes(file):
    symbol, phrase = RECORDED_NAMES[file]
    snapshot = parse_quotes(load_recording(file))[symbol]
    assert search_name(snapshot.name, snapshot.quote_type) == phrase


@pytest.mark.parametrize(("name", "phrase"), [
    ("Apple Inc.", "Apple"),
    ("Visa Inc.", "Visa Inc"),  # "Visa" is too short for GDELT
    ("AT&T Inc.", "AT&T Inc"),
    ("JPMorgan Chase & Co.", "JPMorgan Chase"),
    ("The Coca-Cola Company", "Coca-Cola"),
    ("Coca-Cola Company (The)", "Coca-Cola"),
    ("Meta Platforms, Inc.", "Meta Platforms"),
    ("Amazon.com, Inc.", "Amazon"),
    ("CME Group Inc.", "CME Group"),
    ("3M Company", "3M Company"),
    ("Berkshire Hathaway Inc. New", "Berkshire Hathaway"),
    ("Novo Nordisk A/S", "Novo Nordisk"),
    ("Fomento Económico Mexicano, S.A.B. de C.V.", "Fomento Económico Mexicano"),
    ("Shell plc", "Shell"),
    ("Nike, Inc.", "Nike Inc"),
    ('Weird "Quoted" Name Ltd', "Weird Quoted Name"),
    ("Meta", None),
    ("", None),
    (None, None),
])
def test_search_name_cleans_legal_suffixes(name, phrase):
    assert search_name(name, "EQUITY") == phrase


def test_name_candidates_most_cleaned_first():
    assert name_candidates("Alibaba Group Holding Limited") == [
        "Alibaba", "Alibaba Group", "Alibaba Group Holding", "Alibaba Group Holding Limited"]


def test_build_query_phrase_ticker_and_language():
    terms = build_query("AAPL", "Apple Inc.", "EQUITY")
    assert terms.query == '"Apple" sourcelang:english' and terms.name_words == ("Apple",)
    terms = build_query("GOOGL", "Alphabet Inc.", "EQUITY")
    assert terms.query == '("Alphabet" OR "GOOGL") sourcelang:english'
    assert terms.name_words == ("Alphabet", "GOOGL")
    # The ticker is not repeated when it is the name; symbols with punctuation never OR-ed.
    assert build_query("NONEWS", "Nonews Inc.", "EQUITY").query == \
        '"Nonews" sourcelang:english'
    assert build_query("BRK-B", "Berkshire Hathaway Inc.", "EQUITY").query == \
        '"Berkshire Hathaway" sourcelang:english'
    # No usable name: a long ticker alone, else not searchable (404).
    assert build_query("ABCDE", None, "EQUITY").query == '"ABCDE" sourcelang:english'
    with pytest.raises(NotFound, match="No news search is possible for META"):
        build_query("META", "Meta", "EQUITY")


def test_request_parameters():
    assert artlist_params('"Apple" sourcelang:english') == {
        "query": '"Apple" sourcelang:english', "mode": "artlist", "format": "json",
        "maxrecords": "75", "timespan": "2w", "sort": "datedesc"}


# -- the answer -------------------------------------------------------------------------------
def test_parse_articles_exact_values():
    items = parse_articles(ARTLIST, ["Apple"])
    assert [item["link"] for item in items] == [
        "https://biz.example.org/apple-layoffs",
        "https://www.example-news.com/markets/apple-beats-estimates",
        "https://wire.example.net/apple-event",
        "https://wire.example.net/undated",
    ], "newest first, the repeated url once, undated last, no link or title: left out"
    layoffs, beat, event, undated = items
    assert layoffs == {
        "title": "Apple to cut jobs in services unit",
        "link": "https://biz.example.org/apple-layoffs",
        "source": "biz.example.org", "img": None, "time": "2024-01-16T08:15:00Z",
        "sentiment": {"label": "negative", "score": layoffs["sentiment"]["score"],
                      "confidence": layoffs["sentiment"]["confidence"]}}
    assert layoffs["sentiment"]["score"] <= -0.05
    assert beat["title"] == "Apple beats quarterly revenue estimates"  # spacing tidied
    assert beat["img"] == "https://www.example-news.com/img/apple.jpg"
    assert beat["time"] == "2024-01-15T16:30:00Z"
    assert beat["sentiment"] == {"label": "positive", "score": 0.5, "confidence": 0.5}
    assert event["source"] == "wire.example.net"  # no domain: the url's host
    assert event["time"] == "2024-01-14T12:00:00Z"  # the YYYYMMDDHHMMSS form
    assert event["sentiment"]["label"] == "neutral"
    assert undated["time"] is None


def test_empty_answers_are_no_articles():
    assert parse_articles({}) == []
    assert parse_articles({"articles": []}) == []


@pytest.mark.parametrize("payload", [[], "text", {"articles": {}}, {"articles": "x"}])
def test_other_json_is_a_502(payload):
    with pytest.raises(UpstreamBadResponse) as raised:
        parse_articles(payload)
    assert raised.value.provider == "gdelt"


@pytest.mark.parametrize(("value", "iso"), [
    ("20240115T163000Z", "2024-01-15T16:30:00Z"),
    ("20240115163000", "2024-01-15T16:30:00Z"),
    (" 20241231T235959Z ", "2024-12-31T23:59:59Z"),
    ("20241331T000000Z", None), ("2024-01-15", None), ("", None), (None, None), (20240115, None),
])
def test_parse_seendate(value, iso):
    assert parse_seendate(value) == iso


def test_decode_json_and_lenient_control_characters():
    assert decode_artlist(response(b'{"articles": []}')) == {"articles": []}
    assert decode_artlist(response(b"  {}\n")) == {}
    raw = b'{"articles":[{"url":"https://a.example/x","title":"Tab\there"}]}'
    assert decode_artlist(response(raw))["articles"][0]["title"] == "Tab\there"
    with pytest.raises(UpstreamBadResponse, match="malformed"):
        decode_artlist(response(b'{"articles": ['))


@pytest.mark.parametrize(("body", "error", "status"), [
    ("Please limit requests to one every 5 seconds or contact us for larger queries.",
     UpstreamRateLimited, 429),
    ("The specified phrase is too short.", NotFound, 404),
    ("Queries containing OR'd terms must be surrounded by ().", NotFound, 404),
    ("Parentheses may only be used around OR'd statements.", NotFound, 404),
    ("Timespan is too short.", NotFound, 404),
    ("Something unexpected happened.", UpstreamBadResponse, 502),
    ("<html><body>Service error</body></html>", UpstreamBadResponse, 502),
    ("", UpstreamBadResponse, 502),
])
def test_plain_text_answers(body, error, status):
    with pytest.raises(error) as raised:
        decode_artlist(response(body))
    assert raised.value.status_code == status
    if status == 429:
        assert "one request every 5 seconds" in raised.value.detail
    if status == 404:
        assert body in raised.value.detail
    if body.startswith("<html>"):
        assert "<" not in raised.value.detail  # an HTML page is not echoed


def test_throttle_seconds_are_read_from_the_message():
    error = plain_text_error("Please limit requests to one every 10 seconds")
    assert isinstance(error, UpstreamRateLimited) and "every 10 seconds" in error.detail


# -- through the client: request, errors, caches ------------------------------------------------
@pytest.fixture
def mocked():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.get("https://fc.yahoo.com/", status=404, body="",
                 headers={"Set-Cookie": "A3=d=AQABBK; Domain=.yahoo.com; Path=/"})
        mock.get("https://query1.finance.yahoo.com/v1/test/getcrumb", body="crumb",
                 content_type="text/plain")
        yield mock


def quote_body(symbol: str, name: str, quote_type: str = "EQUITY") -> dict:
    return {"quoteResponse": {"result": [{"symbol": symbol, "longName": name,
                                          "quoteType": quote_type}], "error": None}}


def serve_quote(mock, body: dict) -> None:
    mock.get(re.compile(r"https://query1\.finance\.yahoo\.com/v7/finance/quote.*"), json=body)


def serve_gdelt(mock, body: str | dict, status: int = 200) -> None:
    if isinstance(body, dict):
        mock.get(re.compile(re.escape(DOC_URL) + r"\?.*"), json=body, status=status)
    else:
        mock.get(re.compile(re.escape(DOC_URL) + r"\?.*"), body=body, status=status,
                 content_type="text/html")


def test_fetch_sends_the_documented_request_and_caches(mocked):
    serve_quote(mocked, quote_body("AAPL", "Apple Inc."))
    serve_gdelt(mocked, ARTLIST)
    items = fetch_world_news("AAPL")
    assert len(items) == 4 and items[0]["title"] == "Apple to cut jobs in services unit"
    (call,) = calls_to(mocked, "api.gdeltproject.org")
    url = urlsplit(call.request.url)
    assert (url.scheme, url.netloc, url.path) == ("https", "api.gdeltproject.org",
                                                  "/api/v2/doc/doc")
    assert {k: v[0] for k, v in parse_qs(url.query).items()} == artlist_params(
        '"Apple" sourcelang:english')
    assert fetch_world_news("AAPL") == items
    assert len(calls_to(mocked, "api.gdeltproject.org")) == 1, "15-minute cache"
    assert len(calls_to(mocked, "/v7/finance/quote")) == 1


def test_unknown_symbol_is_not_found_without_asking_gdelt(mocked):
    serve_quote(mocked, {"quoteResponse": {"result": [], "error": None}})
    with pytest.raises(NotFound, match="Symbol not found: 'ZZZZ'"):
        fetch_world_news("ZZZZ")
    assert not calls_to(mocked, "api.gdeltproject.org")


@pytest.mark.parametrize("status", [400, 403, 404, 500, 503])
def test_http_errors_are_502(mocked, status):
    serve_quote(mocked, quote_body("AAPL", "Apple Inc."))
    serve_gdelt(mocked, "error", status=status)
    with pytest.raises(UpstreamBadResponse) as raised:
        fetch_world_news("AAPL")
    assert raised.value.provider == "gdelt" and raised.value.upstream_status == status
    assert len(calls_to(mocked, "api.gdeltproject.org")) == 1, "no retry: GDELT's pace"


def test_http_429_is_the_upstream_429(mocked):
    serve_quote(mocked, quote_body("AAPL", "Apple Inc."))
    serve_gdelt(mocked, "Please limit requests to one every 5 seconds", status=429)
    with pytest.raises(UpstreamRateLimited):
        fetch_world_news("AAPL")


def test_provider_config():
    config: ProviderConfig = gdelt.PROVIDER
    assert config.name == "gdelt" and config.hosts == ("api.gdeltproject.org",)
    assert config.max_concurrency == 1 and config.max_attempts == 1


# -- pacing -----------------------------------------------------------------------------------
class FakeTime:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_pacer_spaces_call_starts(monkeypatch):
    clock = FakeTime()
    monkeypatch.setattr(gdelt, "time", clock)
    pacer = GdeltPacer(5.0)
    pacer.wait()
    assert clock.slept == []
    clock.now += 2.0
    pacer.wait()  # 3 s left of the first call's 5
    assert clock.slept == [pytest.approx(3.0)]
    clock.now += 10.0
    pacer.wait()
    assert clock.slept == [pytest.approx(3.0)], "a call long after the last one goes at once"


def test_pacer_refuses_a_turn_beyond_the_deadline(monkeypatch):
    clock = FakeTime()
    monkeypatch.setattr(gdelt, "time", clock)
    pacer = GdeltPacer(5.0)
    token = deadline.set_deadline(clock.now + 3.0)
    monkeypatch.setattr(deadline, "remaining", lambda: 3.0)
    try:
        pacer.wait()
        with pytest.raises(UpstreamRateLimited, match="one request every 5 seconds"):
            pacer.wait()
    finally:
        deadline.reset(token)
    assert clock.slept == []
    assert GdeltPacer(0).wait() is None


def test_provider_paces_in_live_mode_only(settings):
    from marketdata.providers.registry import get_provider

    settings.GDELT_MIN_INTERVAL_SECONDS = 5
    assert get_provider("gdelt").pacer.interval == 5.0
    settings.MARKETDATA_UPSTREAM = "sandbox"
    assert get_provider("gdelt").pacer.interval == 0.0
