"""The sandbox's GDELT DOC 2.0 API: GDELT's ArtList JSON shape, determinism by query and
day, GDELT's plain-text refusals and its empty ``{}``, parameters, routing; and the world
news endpoint answering in sandbox mode through the real client and parser.

There is no GDELT recording in shared/upstream: the shape checked here is GDELT's published
ArtList shape (the same one the parser tests use)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from marketdata.providers.gdelt import artlist_params, parse_articles, plain_text_error
from marketdata.sandbox import SandboxResponse, UpstreamSandbox
from marketdata.sandbox.gdelt import doc

HOST = "api.gdeltproject.org"
PATH = "/api/v2/doc/doc"
CLOCK = datetime(2026, 11, 20, 17, 7, 30, tzinfo=UTC)
ARTICLE_KEYS = ["url", "url_mobile", "title", "seendate", "socialimage", "domain", "language",
                "sourcecountry"]


def make(clock: datetime = CLOCK) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock)


def ask(sb: UpstreamSandbox, host: str = HOST, path: str = PATH, **query: str
        ) -> SandboxResponse:
    return sb.handle("GET", host, path, {k: [v] for k, v in query.items()}, {})


def artlist(sb: UpstreamSandbox, query: str, **extra: str) -> SandboxResponse:
    return ask(sb, **{**artlist_params(query), **extra})


def body(response: SandboxResponse) -> Any:
    return json.loads(response.body)


def test_answers_gdelts_artlist_shape():
    response = artlist(make(), '"Apple" sourcelang:english')
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.headers["X-Data-Source"] == "sandbox"
    payload = body(response)
    assert list(payload) == ["articles"]
    articles = payload["articles"]
    assert 14 <= len(articles) <= 75
    for item in articles:
        assert list(item) == ARTICLE_KEYS
        assert item["language"] == "English" and "Apple" in item["title"]
        assert item["url"].startswith(f"https://www.{item['domain']}/")
        assert item["domain"].endswith(".example")
        assert item["url_mobile"] in ("", item["url"].replace("https://www.", "https://m."))
        seen = datetime.strptime(item["seendate"], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        assert CLOCK - timedelta(weeks=2) <= seen <= CLOCK
        assert seen.minute % 15 == 0 and seen.second == 0
    dates = [item["seendate"] for item in articles]
    assert dates == sorted(dates, reverse=True), "sort=datedesc: newest first"
    assert len({item["url"] for item in articles}) == len(articles)
    assert any(item["socialimage"] == "" for item in articles)
    assert any(item["socialimage"].endswith(".jpg") for item in articles)


def test_headlines_carry_every_tone_through_the_real_parser():
    sb = make()
    items = parse_articles(body(artlist(sb, '"Apple" sourcelang:english',
                                        timespan="3months", maxrecords="250")), ["Apple"])
    labels = {item["sentiment"]["label"] for item in items}
    assert labels == {"positive", "negative", "neutral"}
    templates = {t.format(name="Apple", city="{city}") for tone in doc._TONES for t in tone}
    for item in items:
        assert item["title"] in templates or "opens new office" in item["title"]


def test_deterministic_by_query_and_day():
    first, again = artlist(make(), '"Apple" sourcelang:english'), artlist(
        make(), '"Apple" sourcelang:english')
    assert first.body == again.body
    other = body(artlist(make(), '"Microsoft" sourcelang:english'))["articles"]
    assert {a["url"] for a in other}.isdisjoint(a["url"] for a in body(first)["articles"])
    # Later the same day: the earlier articles are unchanged, only newer ones are added.
    later = body(artlist(make(CLOCK + timedelta(hours=6)), '"Apple" sourcelang:english',
                         timespan="1d", maxrecords="250"))["articles"]
    earlier = body(artlist(make(), '"Apple" sourcelang:english', timespan="1d",
                           maxrecords="250"))["articles"]
    kept = [a for a in later if a["seendate"] <= CLOCK.strftime("%Y%m%dT%H%M%SZ")
            and a["seendate"] >= (CLOCK - timedelta(days=1)).strftime("%Y%m%dT%H%M%SZ")]
    assert kept == earlier


def test_the_phrase_is_the_subject_whatever_the_or_group():
    payload = body(artlist(make(), '("Alphabet" OR "GOOGL") sourcelang:english'))
    assert all("Alphabet" in a["title"] for a in payload["articles"])


@pytest.mark.parametrize(("query", "message"), [
    ('"AAPL"', doc.TOO_SHORT),
    ('"Visa" sourcelang:english', doc.TOO_SHORT),
    ('("Apple" OR "AAPL")', doc.TOO_SHORT),
    ('"Apple" OR "Microsoft"', doc.OR_OUTSIDE_PARENS),
    ('("Apple" OR)', doc.OR_OUTSIDE_PARENS),
    ('("Apple")', doc.PARENS_WITHOUT_OR),
    ('("Apple" OR ("Microsoft" OR "Alphabet"))', doc.PARENS_WITHOUT_OR),
    ('("Apple" OR "Microsoft"', doc.PARENS_WITHOUT_OR),
])
def test_refusals_are_plain_text_with_http_200(query, message):
    response = artlist(make(), query)
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("text/html")
    assert response.body.decode() == message
    assert plain_text_error(message).status_code == 404  # the parser's reading


def test_throttle_message_for_the_marker():
    response = artlist(make(), '"Ratelimited Holdings" sourcelang:english')
    assert (response.status, response.body.decode()) == (200, doc.THROTTLED)
    assert plain_text_error(doc.THROTTLED).status_code == 429


@pytest.mark.parametrize("query", ['"Nonews Industries" sourcelang:english',
                                   '"Apple" sourcelang:french', "sourcelang:english"])
def test_nothing_found_is_an_empty_object(query):
    response = artlist(make(), query)
    assert response.status == 200 and response.body == b"{}"
    assert parse_articles(body(response)) == []


def test_parameters():
    sb = make()
    q = '"Apple" sourcelang:english'
    assert len(body(artlist(sb, q, maxrecords="3"))["articles"]) == 3
    assert len(body(artlist(sb, q, maxrecords="9999", timespan="3months"))["articles"]) == 250
    ascending = body(artlist(sb, q, sort="dateasc", maxrecords="5"))["articles"]
    assert [a["seendate"] for a in ascending] == sorted(a["seendate"] for a in ascending)
    relevance = body(artlist(sb, q, sort="hybridrel"))["articles"]
    assert sorted(a["url"] for a in relevance) == sorted(
        a["url"] for a in body(artlist(sb, q))["articles"])
    day = body(artlist(sb, q, timespan="24h", maxrecords="250"))["articles"]
    assert all(a["seendate"] >= "20261119T170730Z" for a in day)
    # GDELT's parameter names are case-insensitive; the default window is 3 months.
    upper = ask(sb, QUERY=q, MODE="ArtList", FORMAT="JSON", MAXRECORDS="250")
    oldest = min(a["seendate"] for a in body(upper)["articles"])
    assert "20260822" <= oldest[:8] <= "20260825"


@pytest.mark.parametrize(("query", "text"), [
    ({"query": '"Apple"', "mode": "timelinevol", "format": "json"}, "mode=ArtList only"),
    ({"query": '"Apple"', "mode": "artlist"}, "format=json only"),
    ({"mode": "artlist", "format": "json"}, "Please specify a query."),
    ({"query": '"Apple"', "mode": "artlist", "format": "json", "timespan": "soon"},
     "Invalid timespan."),
])
def test_other_requests_are_refused_in_plain_text(query, text):
    response = ask(make(), **query)
    assert response.status == 200 and text in response.body.decode()


def test_routing_and_unknown_paths():
    sb = make()
    assert "gdelt" in sb.provider_names
    assert sb.provider_for_host(HOST).name == "gdelt"
    missing = ask(sb, path="/api/v2/tv/tv", query='"Apple"')
    assert missing.status == 404 and missing.body == b"404 Not Found"
    # Sent to 127.0.0.1 by a host map with X-Upstream-Host, the provider is found by it.
    mapped = sb.handle("GET", "127.0.0.1", PATH,
                       {k: [v] for k, v in artlist_params('"Apple"').items()},
                       {"X-Upstream-Host": HOST})
    assert mapped.status == 200 and "articles" in body(mapped)
    assert sb.request_log[-1]["provider"] == "gdelt"


def test_injected_faults_are_plain_text_503():
    sb = make()
    sb.configure(fail_rate=1.0)
    response = artlist(sb, '"Apple"')
    assert response.status == 503 and response.headers["Content-Type"].startswith("text/")


def test_world_news_through_the_sandbox(api, sandbox_upstream):
    response = api.get("/v2/worldnews/news/AAPL")
    assert response.status_code == 200, response.content
    items = response.json()
    assert items and all(set(item) == {"title", "link", "source", "img", "time", "sentiment"}
                         for item in items)
    assert all("Apple" in item["title"] for item in items)
    times = [item["time"] for item in items]
    assert times == sorted(times, reverse=True)
    (call,) = sandbox_upstream.requests_matching(PATH, provider="gdelt")
    assert call["query"]["query"] == ['"Apple" sourcelang:english']
    assert api.get("/v2/worldnews/news/NONEWS").json() == []
    throttled = api.get("/v2/worldnews/news/RATELIMITED")
    assert throttled.status_code == 429 and throttled.json()["provider"] == "gdelt"
    assert api.get("/v2/worldnews/news/NOTFOUNDX").status_code == 404
