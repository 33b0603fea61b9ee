"""GET /v2/worldnews/news/{symbol}: articles with sentiment from GDELT, bare and paged,
`fields`, every error status, the 15-minute cache and stale copies, the OpenAPI operation,
and a hypothesis paging property in sandbox mode.

No GDELT recording exists: the GDELT bodies are hand-made in GDELT's ArtList shape
(``tests.marketdata.providers.test_gdelt.ARTLIST``). The source is keyless, so there is no
key fallback or key secrecy to test here (the capability has a single keyless source).
"""

from __future__ import annotations

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from marketdata.capabilities import capability
from marketdata.providers.gdelt import DOC_URL
from tests.apps.payloads import EMPTY_QUOTE_RESPONSE, FAILURES, QUERY1, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.apps.test_v2_analysis_api import assert_api_error
from tests.conftest import calls_to
from tests.marketdata.providers.test_gdelt import ARTLIST

URL = "/v2/worldnews/news/{symbol}"
NEWS_MEMBERS = ("title", "link", "source", "img", "time", "sentiment")
APPLE_QUOTE = {"quoteResponse": {"result": [{"symbol": "AAPL", "longName": "Apple Inc.",
                                             "shortName": "Apple Inc.",
                                             "quoteType": "EQUITY"}], "error": None}}


@pytest.fixture(autouse=True)
def _no_pacing(settings):
    settings.GDELT_MIN_INTERVAL_SECONDS = 0


@pytest.fixture
def apple(yahoo):
    yahoo.quote(APPLE_QUOTE)
    yahoo.get(DOC_URL, ARTLIST)
    return yahoo


def gdelt_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "api.gdeltproject.org")


def test_articles_newest_first_with_sentiment(api, apple):
    response = api.get(URL.format(symbol="aapl"))
    assert response.status_code == 200, response.content
    items = response.json()
    assert [item["time"] for item in items] == [
        "2024-01-16T08:15:00Z", "2024-01-15T16:30:00Z", "2024-01-14T12:00:00Z", None]
    assert items[1] == {
        "title": "Apple beats quarterly revenue estimates",
        "link": "https://www.example-news.com/markets/apple-beats-estimates",
        "source": "example-news.com", "img": "https://www.example-news.com/img/apple.jpg",
        "time": "2024-01-15T16:30:00Z",
        "sentiment": {"label": "positive", "score": 0.5, "confidence": 0.5}}
    assert [item["sentiment"]["label"] for item in items] == [
        "negative", "positive", "neutral", "neutral"]
    assert all(list(item) == list(NEWS_MEMBERS) for item in items)
    query = gdelt_calls(apple)[0].request.url
    assert "query=%22Apple%22+sourcelang%3Aenglish" in query and "mode=artlist" in query


def test_paging_and_fields(api, apple):
    path = URL.format(symbol="AAPL")
    everything = api.get(path).json()
    seen, cursor = [], None
    while True:
        query = "limit=3" + (f"&cursor={cursor}" if cursor else "")
        page = api.get(f"{path}?{query}").json()
        assert [edge["node"] for edge in page["edges"]] == page["nodes"]
        seen.extend(page["nodes"])
        if not page["pageInfo"]["hasNextPage"]:
            break
        cursor = page["pageInfo"]["endCursor"]
    assert seen == everything
    only = api.get(f"{path}?fields=title,sentiment,bogus&limit=1").json()
    assert only["nodes"] == [{"title": everything[0]["title"],
                              "sentiment": everything[0]["sentiment"]}]
    assert api.get(f"{path}?fields=img").json() == [{"img": item["img"]}
                                                     for item in everything]
    assert api.get(f"{path}?fields=nothing").json() == everything
    assert api.get(f"{path}?cursor=OTk").json()["nodes"] == []
    assert len(gdelt_calls(apple)) == 1, "every page from the one cached answer"


def test_no_articles_is_an_empty_list(api, yahoo):
    yahoo.quote(APPLE_QUOTE)
    yahoo.get(DOC_URL, {})
    assert api.get(URL.format(symbol="AAPL")).json() == []
    paged = api.get(URL.format(symbol="AAPL") + "?limit=5").json()
    assert paged["nodes"] == [] and paged["pageInfo"]["hasNextPage"] is False


@pytest.mark.parametrize("query", ["limit=-1", "limit=abc", "limit=1001", "cursor=!!",
                                   "cursor=MB", "limit=2&cursor=x"])
def test_bad_paging_is_400_before_any_upstream_call(api, yahoo, query):
    body = assert_api_error(api.get(URL.format(symbol="AAPL") + f"?{query}"), 400)
    assert body["error"].split(":")[0] in ("limit", "cursor")
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_is_404_without_upstream_call(api, yahoo, raw):
    assert_api_error(api.get(URL.format(symbol=raw)), 404)
    assert len(yahoo.mock.calls) == 0


def test_unknown_symbol_is_404_from_the_quote_provider(api, yahoo):
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    assert_api_error(api.get(URL.format(symbol="ZZZZ")), 404, "Symbol not found: 'ZZZZ'")
    assert not gdelt_calls(yahoo)


def test_short_ticker_without_a_searchable_name_is_404(api, yahoo):
    yahoo.quote({"quoteResponse": {"result": [{"symbol": "META", "shortName": "Meta",
                                               "quoteType": "EQUITY"}], "error": None}})
    assert_api_error(api.get(URL.format(symbol="META")), 404,
                     "No news search is possible for META: it has no name of at least 5 "
                     "letters to search for")
    assert not gdelt_calls(yahoo)


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_gdelt_failures_name_the_provider(api, yahoo, kind):
    yahoo.quote(APPLE_QUOTE)
    fail_url(yahoo.mock, DOC_URL, kind)
    status, _ = FAILURES[kind]
    body = assert_api_error(api.get(URL.format(symbol="AAPL")), status)
    assert body["provider"] == "gdelt"


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_quote_provider_failures_name_it(api, yahoo, kind):
    fail_url(yahoo.mock, f"{QUERY1}/v7/finance/quote", kind)
    status, _ = FAILURES[kind]
    body = assert_api_error(api.get(URL.format(symbol="AAPL")), status)
    assert body["provider"] == "yahoo"
    assert not gdelt_calls(yahoo)


def test_plain_text_throttle_is_429(api, yahoo):
    yahoo.quote(APPLE_QUOTE)
    yahoo.get(DOC_URL, "Please limit requests to one every 5 seconds or contact us for "
                       "larger queries.", content_type="text/html")
    response = api.get(URL.format(symbol="AAPL"))
    body = assert_api_error(response, 429, "GDELT DOC API asks for at most one request "
                                           "every 5 seconds; retry later")
    assert body["provider"] == "gdelt" and response["Retry-After"]


def test_query_refusal_is_404_and_remembered(api, yahoo, settings):
    settings.RESPONSE_CACHE_ENABLED = False
    yahoo.quote(APPLE_QUOTE)
    yahoo.get(DOC_URL, "The specified phrase is too short.", content_type="text/html")
    for _ in range(2):
        assert_api_error(api.get(URL.format(symbol="AAPL")), 404,
                         "No news search is possible: GDELT DOC API refused the query (The "
                         "specified phrase is too short.)")
    assert len(gdelt_calls(yahoo)) == 1, "a refusal is not asked again at once"


def test_other_plain_text_is_502(api, yahoo):
    yahoo.quote(APPLE_QUOTE)
    yahoo.get(DOC_URL, "<html>Temporarily down for maintenance</html>",
              content_type="text/html")
    body = assert_api_error(api.get(URL.format(symbol="AAPL")), 502,
                            "GDELT DOC API answered with a body that is not JSON")
    assert body["provider"] == "gdelt"


def test_cached_fifteen_minutes_then_stale_when_gdelt_fails(api, yahoo, cache_clock,
                                                            settings):
    settings.RESPONSE_CACHE_ENABLED = False  # the provider cache is what this is about
    yahoo.quote(APPLE_QUOTE)
    served = yahoo.get(DOC_URL, ARTLIST)
    first = api.get(URL.format(symbol="AAPL"))
    cache_clock.advance(14 * 60)
    assert api.get(URL.format(symbol="AAPL")).json() == first.json()
    assert len(gdelt_calls(yahoo)) == 1
    cache_clock.advance(2 * 60)  # past 15 minutes: GDELT is asked again, and fails
    yahoo.mock.remove(served)
    fail_url(yahoo.mock, DOC_URL, "yahoo_500")
    again = api.get(URL.format(symbol="AAPL"))
    assert again.status_code == 200 and again.json() == first.json()
    assert again["X-Cache"] == "STALE"
    assert len(gdelt_calls(yahoo)) == 2


def test_capability_names_the_source():
    cap = capability("world_news")
    assert [source.name for source in cap.sources] == ["gdelt"]
    assert cap.sources[0].key_setting is None


# -- OpenAPI -------------------------------------------------------------------------------------
def test_openapi_operation():
    from tests.apps.test_schema_validation_api import openapi

    op = openapi()["paths"]["/v2/worldnews/news/{symbol}"]["get"]
    assert op["operationId"] == "get_world_news" and op["tags"] == ["World news (v2)"]
    assert {p["name"] for p in op["parameters"]} >= {"symbol", "fields", "cursor", "limit"}
    assert {"400", "404", "429", "500"} <= op["responses"].keys()
    for words in ("GDELT", "VADER", "ISO 8601 UTC", "Newest first", "15 minutes",
                  "score >= 0.05", "confidence"):
        assert words in op["description"], words


@pytest.mark.parametrize("url", ["/v2/worldnews/news/AAPL",
                                 "/v2/worldnews/news/MSFT?limit=3&fields=title,time",
                                 "/v2/worldnews/news/NONEWS"])
def test_answers_match_the_openapi_schema(api, sandbox_upstream, url):
    from tests.apps.test_schema_validation_api import openapi

    document = openapi()
    schema = document["paths"]["/v2/worldnews/news/{symbol}"]["get"]["responses"]["200"][
        "content"]["application/json"]["schema"]
    response = api.get(url)
    assert response.status_code == 200, response.content
    jsonschema.Draft202012Validator({**schema, "components": document.get("components", {})}
                                    ).validate(response.json())


# -- paging property (sandbox) -------------------------------------------------------------------
_SETTINGS = settings(max_examples=12, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(limit=st.integers(min_value=1, max_value=9),
       symbol=st.sampled_from(["AAPL", "KO", "GC=F", "BTC-USD"]))
def test_following_end_cursor_visits_every_article_once(api, sandbox_upstream, limit, symbol):
    path = URL.format(symbol=symbol)
    everything = api.get(path).json()
    assert isinstance(everything, list) and everything
    seen, cursor = [], None
    for _ in range(len(everything) + 2):
        query = f"limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        page = api.get(f"{path}?{query}").json()
        assert len(page["nodes"]) <= limit
        assert page["pageInfo"]["hasPreviousPage"] is (cursor is not None)
        seen.extend(page["nodes"])
        if not page["pageInfo"]["hasNextPage"]:
            break
        cursor = page["pageInfo"]["endCursor"]
    assert seen == everything


@_SETTINGS
@given(asked=st.lists(st.sampled_from((*NEWS_MEMBERS, "bogus", "")), min_size=1, max_size=4))
def test_fields_never_returns_an_unrequested_member(api, sandbox_upstream, asked):
    items = api.get(URL.format(symbol="AAPL") + "?fields=" + ",".join(asked)).json()
    known = set(asked) & set(NEWS_MEMBERS)
    assert items
    for item in items:
        assert set(item) == (known or set(NEWS_MEMBERS))
