"""Yahoo v1 search news: every recording through parse_news, image choice, the
relatedTickers filter, general news merging, and the relative-time wording."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses

from marketdata.errors import UpstreamBadResponse, UpstreamUnavailable
from marketdata.formatting import relative_time
from marketdata.providers.yahoo.news import (
    GENERAL_NEWS_QUERIES,
    NEWS_COUNT,
    NewsItem,
    about,
    general_news,
    parse_news,
    pick_image,
    symbol_news,
)
from marketdata.providers.yahoo.search import SEARCH_URL
from tests.conftest import calls_to

from .helpers import recordings

AAPL = "yahoo/v1-search/search-AAPL.json"
AAPL_VIDEO_IMG = ("https://s.yimg.com/uu/api/res/1.2/yxtbZ7npnBJnfUiHWfr7KQ--~B/aD0xMjE4O3c9Mj"
                  "E2NzthcHBpZD15dGFjaHlvbg--/https://s.yimg.com/os/creatr-uploaded-images/"
                  "2025-02/c6ea6a30-f2f7-11ef-aebf-86e657f87666")

# (number of parsed articles, with an image, tagged with the file's own symbol)
EXPECTED = {
    "yahoo/v1-search/search-AAPL.json": (4, 4, ("AAPL", 3)),
    "yahoo/v1-search/search-AAPL-finance-query-2026.json": (0, 0, ("AAPL", 0)),
    # a rare fund: Yahoo fills news[] with unrelated headlines, none tagged with it
    "yahoo/v1-search/search-0P000071W8.TO.json": (4, 3, ("0P000071W8.TO", 0)),
    "yahoo/v1-search/search-BTC-USD.json": (4, 2, ("BTC-USD", 2)),
    "yahoo/v1-search/search-Bayerische_Motoren_Werke_AG.json": (4, 4, ("BMWKY", 4)),
    "yahoo/v1-search/search-EUR.json": (4, 3, ("EURUSD=X", 0)),
    "yahoo/v1-search/search-NO0010123060.json": (0, 0, ("NO0010123060", 0)),
    "yahoo/v1-search/search-idx_VXAPL.json": (0, 0, ("^VXAPL", 0)),
}


def test_every_recording_has_an_expectation():
    files = recordings("yahoo/v1-search")
    if not files:
        pytest.skip("../shared/upstream absent")
    assert sorted(EXPECTED) == files


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_parse_news(recording, path):
    payload = recording(path)
    items = parse_news(payload)
    total, with_image, (symbol, tagged) = EXPECTED[path]
    assert len(items) == total
    assert sum(1 for i in items if i.img) == with_image
    assert len(about(items, symbol)) == tagged
    for item, raw_item in zip(items, payload["news"], strict=True):
        assert item.uuid == raw_item["uuid"]
        assert item.title == raw_item["title"]
        assert item.link == raw_item["link"]
        assert item.source == raw_item["publisher"]
        assert item.published == raw_item["providerPublishTime"]
        assert item.related == (tuple(raw_item["relatedTickers"])
                                if "relatedTickers" in raw_item else None)


def test_aapl_first_article(recording):
    first = parse_news(recording(AAPL))[0]
    assert first == NewsItem(
        uuid="57ea9c09-0c99-3adf-9062-fecfdbe472cc",
        title="Why Trump could 'move fast' on Apple's $500B US investment plan",
        link="https://finance.yahoo.com/video/why-trump-could-move-fast-002000706.html",
        source="Yahoo Finance Video",
        img=AAPL_VIDEO_IMG,
        published=1740442800,
        related=("AAPL",),
    )


def test_aapl_filter_drops_the_article_about_another_ticker(recording):
    kept = about(parse_news(recording(AAPL)), "aapl")
    assert [i.source for i in kept] == ["Yahoo Finance Video", "Bloomberg", "GuruFocus.com"]
    assert "Warren Buffett" not in " ".join(i.title for i in kept)


def test_original_resolution_even_when_its_size_is_unknown(recording):
    items = parse_news(recording("yahoo/v1-search/search-EUR.json"))
    orion = items[0]
    assert orion.title.startswith("Orion Group Financial Statement Release")
    assert orion.img == ("https://s.yimg.com/uu/api/res/1.2/uM1TKcoTXesjvrzQzld48Q--~B/aD0wO3c9"
                         "MDthcHBpZD15dGFjaHlvbg--/https://media.zenfs.com/en/globenewswire.com/"
                         "bc0869187e6054f96fdb024ed1394a59")
    assert items[2].title == "Net Asset Value(s)" and items[2].img is None


@pytest.mark.parametrize(("thumbnail", "expected"), [
    ({"resolutions": [{"url": "https://x/140", "width": 140, "tag": "140x140"},
                      {"url": "https://x/orig", "width": 800, "tag": "original"}]},
     "https://x/orig"),
    ({"resolutions": [{"url": "https://x/small", "width": 140},
                      {"url": "https://x/big", "width": 1024},
                      {"url": "https://x/nowidth"}]}, "https://x/big"),
    ({"resolutions": [{"url": "", "tag": "original"}, {"url": "https://x/a", "width": 1}]},
     "https://x/a"),
    ({"resolutions": []}, None),
    ({"resolutions": "x"}, None),
    (None, None),
    ("x", None),
])
def test_pick_image(thumbnail, expected):
    assert pick_image(thumbnail) == expected


def test_articles_missing_required_fields_are_dropped():
    payload = {"news": [
        {"uuid": "a", "title": "", "link": "https://l/a", "providerPublishTime": 1},
        {"uuid": "b", "title": "B", "providerPublishTime": 1},
        {"uuid": "c", "title": "C", "link": "https://l/c"},
        {"uuid": "d", "title": "D", "link": "https://l/d", "providerPublishTime": True},
        {"uuid": "e", "title": "E", "link": "https://l/e", "providerPublishTime": 5,
         "relatedTickers": ["aapl", 3]},
        7,
    ]}
    (item,) = parse_news(payload)
    assert (item.uuid, item.source, item.img, item.related) == ("e", "Yahoo Finance", None,
                                                                ("AAPL",))


def test_news_that_is_not_a_list_is_a_bad_answer():
    with pytest.raises(UpstreamBadResponse):
        parse_news({"news": {"a": 1}})
    assert parse_news({"quotes": []}) == []


def test_symbol_news_request_and_cache(yahoo, recording):
    yahoo.get(SEARCH_URL, recording(AAPL))
    first = symbol_news("AAPL")
    assert len(first) == 3
    assert symbol_news("AAPL") == first
    (call,) = calls_to(yahoo.mock, "/v1/finance/search")
    query = parse_qs(urlsplit(call.request.url).query)
    assert query["q"] == ["AAPL"]
    assert query["quotesCount"] == ["0"]
    assert query["newsCount"] == [str(NEWS_COUNT)]


def _search_body(*articles: tuple[str, int]) -> dict:
    return {"quotes": [], "news": [
        {"uuid": uuid, "title": f"T {uuid}", "publisher": "P", "providerPublishTime": ts,
         "link": f"https://finance.yahoo.com/news/{uuid}.html", "type": "STORY"}
        for uuid, ts in articles]}


def _register_by_query(mock: responses.RequestsMock, bodies: dict[str, object]) -> None:
    def answer(request):
        q = parse_qs(urlsplit(request.url).query)["q"][0]
        body = bodies[q]
        if isinstance(body, Exception):
            raise body
        return 200, {"Content-Type": "application/json"}, json.dumps(body)

    mock.add_callback(responses.GET, SEARCH_URL, callback=answer)


def test_general_news_merges_deduplicates_and_sorts(yahoo):
    _register_by_query(yahoo.mock, {
        "^GSPC": _search_body(("a", 100), ("b", 300)),
        "^DJI": _search_body(("b", 300), ("c", 200)),
        "^IXIC": _search_body(("d", 50), ("a", 100)),
    })
    items = general_news()
    assert [i.uuid for i in items] == ["b", "c", "a", "d"]
    queries = sorted(parse_qs(urlsplit(c.request.url).query)["q"][0]
                     for c in calls_to(yahoo.mock, "/v1/finance/search"))
    assert queries == sorted(GENERAL_NEWS_QUERIES)


def test_general_news_survives_one_failing_search(yahoo):
    _register_by_query(yahoo.mock, {
        "^GSPC": _search_body(("a", 100)),
        "^DJI": requests.exceptions.ConnectionError("refused"),
        "^IXIC": _search_body(("d", 50)),
    })
    assert [i.uuid for i in general_news()] == ["a", "d"]


def test_general_news_fails_when_every_search_fails(yahoo):
    _register_by_query(yahoo.mock, {q: requests.exceptions.ConnectionError("refused")
                                    for q in GENERAL_NEWS_QUERIES})
    with pytest.raises(UpstreamUnavailable) as info:
        general_news()
    assert info.value.provider == "yahoo"


NOW = 1_740_500_000


@pytest.mark.parametrize(("age", "text"), [
    (-300, "just now"),
    (0, "just now"),
    (59, "just now"),
    (60, "1 minute ago"),
    (119, "1 minute ago"),
    (5 * 60 + 30, "5 minutes ago"),
    (3599, "59 minutes ago"),
    (3600, "1 hour ago"),
    (2 * 3600 + 59, "2 hours ago"),
    (86399, "23 hours ago"),
    (86400, "1 day ago"),
    (3 * 86400 + 5, "3 days ago"),
    (29 * 86400, "29 days ago"),
    (30 * 86400, "1 month ago"),
    (364 * 86400, "12 months ago"),
    (365 * 86400, "1 year ago"),
    (3 * 365 * 86400, "3 years ago"),
])
def test_relative_time(age, text):
    assert relative_time(NOW - age, NOW) == text
