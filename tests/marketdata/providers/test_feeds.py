"""The feeds reader (feedparser on RSS 2.0, Atom 1.0, RSS 1.0 documents written here), the
merge order, the publisher table, alternative.me's Fear & Greed parser and FMP's latest
crypto/forex news parser. No recording exists for these upstreams (INDEX.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from marketdata.errors import CredentialsRejected, UpstreamBadResponse
from marketdata.providers import alternative, feeds, fmp
from marketdata.records.feeds import PUBLISHERS, FeedEntry, find_publisher, newest_first

RSS = """<?xml version="1.0"?><rss version="2.0"><channel><title>x</title>
<item><title>  Rates   held </title><link>https://a.example/1</link>
<pubDate>Tue, 04 Mar 2025 14:00:00 -0500</pubDate><description> <p>Body</p> </description></item>
<item><title>No date</title><link>https://a.example/2</link><pubDate>someday</pubDate></item>
<item><link>https://a.example/3</link></item>
</channel></rss>"""

ATOM = """<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>y</title>
<entry><title>Filing</title><link rel="alternate" href="https://b.example/f"/>
<updated>2025-03-04T20:30:00+02:00</updated>
<content type="html">&lt;p&gt;Content&lt;/p&gt;</content></entry>
<entry><title>Zulu</title><link href="https://b.example/z"/>
<published>2025-03-04T18:00:00Z</published><summary>Sum</summary></entry>
</feed>"""

RDF = """<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="https://c.example"><title>z</title></channel>
<item rdf:about="https://c.example/1"><title>RDF item</title><link>https://c.example/1</link>
<dc:date>2025-03-04T09:00:00-05:00</dc:date></item></rdf:RDF>"""


def test_parse_rss():
    entries = feeds.parse_feed(RSS.encode(), "Pub")
    assert entries == [
        FeedEntry("Rates held", "https://a.example/1",
                  datetime(2025, 3, 4, 14, tzinfo=timezone(timedelta(hours=-5))),
                  "<p>Body</p>", "Pub"),
        FeedEntry("No date", "https://a.example/2", None, None, "Pub")]


def test_parse_atom_keeps_offsets_and_reads_content():
    first, second = feeds.parse_feed(ATOM.encode(), "Pub")
    assert first.published == datetime(2025, 3, 4, 20, 30,
                                       tzinfo=timezone(timedelta(hours=2)))
    assert first.published.utcoffset() == timedelta(hours=2)
    assert first.summary == "<p>Content</p>" and first.url == "https://b.example/f"
    assert second.published == datetime(2025, 3, 4, 18, tzinfo=UTC)
    assert second.summary == "Sum"


def test_parse_rss_1_0():
    (entry,) = feeds.parse_feed(RDF.encode(), "Pub")
    assert entry.title == "RDF item"
    assert entry.published == datetime(2025, 3, 4, 14, tzinfo=UTC)


@pytest.mark.parametrize("body", [b'{"a": 1}', b"", b"<html><body>hi</body></html>"])
def test_not_a_feed_is_502(body):
    with pytest.raises(UpstreamBadResponse) as caught:
        feeds.parse_feed(body, "Pub")
    assert caught.value.detail == "News feeds returned a body that is not an RSS or Atom " \
                                  "feed for Pub"


def test_empty_feed_is_empty():
    assert feeds.parse_feed(b'<rss version="2.0"><channel><title>x</title></channel></rss>',
                            "Pub") == []


def test_newest_first_compares_moments_not_text():
    minus5, plus2 = timezone(timedelta(hours=-5)), timezone(timedelta(hours=2))
    a = FeedEntry("a", "u1", datetime(2025, 3, 4, 14, tzinfo=minus5), None, "s")  # 19:00Z
    b = FeedEntry("b", "u2", datetime(2025, 3, 4, 20, 30, tzinfo=plus2), None, "s")  # 18:30Z
    c = FeedEntry("c", "u3", None, None, "s")
    dup = FeedEntry("dup", "u1", datetime(2030, 1, 1, tzinfo=UTC), None, "s")
    assert [e.title for e in newest_first([c, b, a, dup])] == ["a", "b", "c"]


def test_publisher_table():
    assert len(PUBLISHERS) == 31 and len({p.slug for p in PUBLISHERS}) == 31
    assert find_publisher("HN").slug == "hackernews"
    assert find_publisher("Federal_Reserve").slug == "federal-reserve"
    assert find_publisher("fed") is None
    filings = find_publisher("sec-filings")
    assert filings.feed_url("8-K").endswith("type=8-K&output=atom")
    assert filings.display_name(None) == "SEC EDGAR (10-K)"
    assert all(p.url.startswith("https://") for p in PUBLISHERS)


# -- alternative.me ---------------------------------------------------------------------------
def test_parse_fear_and_greed():
    reading = alternative.parse_fear_and_greed({"data": [
        {"value": "25", "value_classification": "Extreme Fear", "timestamp": "1741046400"}],
        "metadata": {"error": None}})
    assert (reading.value, reading.classification, reading.timestamp, reading.market) == \
        (25, "Extreme Fear", 1741046400, "crypto")


@pytest.mark.parametrize("payload", [
    [], {"data": []}, {"data": [{"value": "-1", "value_classification": "Fear",
                                 "timestamp": "1"}]},
    {"data": [{"value": "50", "value_classification": "Neutral", "timestamp": "1"}],
     "metadata": {"error": "Limit exceeded"}},
    {"data": [{"value": "50", "value_classification": "neutral", "timestamp": "1"}]},
    {"data": [{"value": True, "value_classification": "Neutral", "timestamp": "1"}]},
])
def test_unusable_fear_and_greed_is_502(payload):
    with pytest.raises(UpstreamBadResponse) as caught:
        alternative.parse_fear_and_greed(payload)
    assert caught.value.detail.startswith("alternative.me ")


# -- FMP crypto/forex news --------------------------------------------------------------------
def test_parse_fmp_market_news():
    entries = fmp.parse_market_news([
        {"symbol": "EURUSD", "publishedDate": "2025-03-04 16:05:00", "publisher": "FXStreet",
         "title": "EUR/USD rises", "image": "https://i.example/e.jpg", "site": "fxstreet.com",
         "text": "Text", "url": "https://fxstreet.com/a"},
        {"title": "No url", "publishedDate": "2025-03-04 16:00:00"},
        {"title": "Odd date", "publishedDate": "soon", "publisher": "P", "url": "https://p/b"}])
    assert entries == [
        FeedEntry("EUR/USD rises", "https://fxstreet.com/a", datetime(2025, 3, 4, 16, 5),
                  "Text", "fxstreet.com", "https://i.example/e.jpg"),
        FeedEntry("Odd date", "https://p/b", None, None, "P", None)]


def test_fmp_market_news_refusal_and_junk():
    with pytest.raises(CredentialsRejected):
        fmp.parse_market_news({"Error Message": "Invalid API KEY. Please retry."})
    with pytest.raises(UpstreamBadResponse):
        fmp.parse_market_news({"unexpected": 1})
    assert fmp.parse_market_news([]) == []
