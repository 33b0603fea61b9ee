"""Publishers' RSS and Atom feeds: the table of publishers behind ``/v2/feeds`` (and the
keyless crypto and forex news), and the entries read from them, whichever reader parsed
them.

A publisher is found by its slug or an alias, case-insensitively, with hyphens,
underscores and spaces ignored (``Federal_Reserve`` is ``federal-reserve``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from marketdata.records.members import member
from marketdata.records.news import SENTIMENT_OF_HEADLINE, MarketSentiment

# The SEC filings feed takes a form type; 10-K when none is asked for.
DEFAULT_FORM_TYPE = "10-K"
# A form type as EDGAR spells them (10-K, 8-K, S-1/A, DEF 14A, SC 13G): put into the URL.
FORM_TYPE_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ./-]{0,19}")


@dataclass(frozen=True)
class Publisher:
    """One feed: ``slug`` and ``aliases`` name it in queries, ``name`` is the entries'
    ``source``, ``url`` the feed's address (``{formType}`` filled in for SEC filings)."""

    slug: str
    name: str
    url: str
    aliases: tuple[str, ...] = ()

    def feed_url(self, form_type: str | None = None) -> str:
        return self.url.replace("{formType}", form_type or DEFAULT_FORM_TYPE)

    def display_name(self, form_type: str | None = None) -> str:
        return self.name.replace("{formType}", form_type or DEFAULT_FORM_TYPE)

    @property
    def takes_form_type(self) -> bool:
        return "{formType}" in self.url


PUBLISHERS: tuple[Publisher, ...] = (
    Publisher("federal-reserve", "Federal Reserve",
              "https://www.federalreserve.gov/feeds/press_all.xml"),
    Publisher("sec", "SEC", "https://www.sec.gov/news/pressreleases.rss"),
    Publisher("sec-filings", "SEC EDGAR ({formType})",
              "https://www.sec.gov/cgi-bin/browse-edgar?action=getcurrent&type={formType}"
              "&output=atom"),
    Publisher("marketwatch", "MarketWatch",
              "https://feeds.content.dowjones.io/public/rss/mw_topstories"),
    Publisher("cnbc", "CNBC", "https://www.cnbc.com/id/100003114/device/rss/rss.html"),
    Publisher("bloomberg", "Bloomberg", "https://feeds.bloomberg.com/markets/news.rss"),
    Publisher("ft", "Financial Times", "https://www.ft.com/markets?format=rss",
              ("financialtimes",)),
    Publisher("nyt", "New York Times",
              "https://rss.nytimes.com/services/xml/rss/nyt/Business.xml", ("nytbusiness",)),
    Publisher("guardian", "The Guardian", "https://www.theguardian.com/business/rss",
              ("guardianbusiness",)),
    Publisher("investing", "Investing.com", "https://www.investing.com/rss/news.rss",
              ("investingcom",)),
    Publisher("bea", "Bureau of Economic Analysis", "https://apps.bea.gov/rss/rss.xml"),
    Publisher("ecb", "European Central Bank", "https://www.ecb.europa.eu/rss/press.html"),
    Publisher("cfpb", "CFPB", "https://www.consumerfinance.gov/about-us/newsroom/feed/"),
    Publisher("wsj", "Wall Street Journal", "https://feeds.a.dj.com/rss/RSSMarketsMain.xml",
              ("wsjmarkets",)),
    Publisher("fortune", "Fortune", "https://fortune.com/feed"),
    Publisher("businesswire", "Business Wire",
              "https://feed.businesswire.com/rss/home/?rss=G1QFDERJXkJeGVtQXw=="),
    Publisher("coindesk", "CoinDesk", "https://www.coindesk.com/arc/outboundfeeds/rss/"),
    Publisher("cointelegraph", "CoinTelegraph", "https://cointelegraph.com/rss"),
    Publisher("techcrunch", "TechCrunch", "https://techcrunch.com/feed/"),
    Publisher("hackernews", "Hacker News", "https://hnrss.org/newest?points=100", ("hn",)),
    Publisher("oilprice", "OilPrice.com", "https://oilprice.com/rss/main"),
    Publisher("calculated-risk", "Calculated Risk", "https://calculatedrisk.substack.com/feed"),
    Publisher("scmp", "South China Morning Post", "https://www.scmp.com/rss/91/feed",
              ("southchinamorningpost",)),
    Publisher("nikkei", "Nikkei Asia", "https://asia.nikkei.com/rss/feed/nar", ("nikkeiasia",)),
    Publisher("boe", "Bank of England", "https://www.bankofengland.co.uk/rss/news",
              ("bankofengland",)),
    Publisher("venturebeat", "VentureBeat", "https://venturebeat.com/feed/"),
    Publisher("yc", "Y Combinator", "https://blog.ycombinator.com/feed/", ("ycombinator",)),
    Publisher("economist", "The Economist",
              "https://www.economist.com/sections/economics/rss.xml", ("theeconomist",)),
    Publisher("financial-post", "Financial Post", "https://financialpost.com/feed"),
    Publisher("ft-lex", "Financial Times Lex", "https://www.ft.com/lex?format=rss", ("lex",)),
    Publisher("ritholtz", "The Big Picture", "https://ritholtz.com/feed/", ("bigpicture",)),
)
DEFAULT_SLUGS = ("federal-reserve", "sec", "marketwatch", "bloomberg")
# The keyless sources of crypto and forex news (when no FMP key is set).
CRYPTO_SLUGS = ("coindesk", "cointelegraph")
FOREX_SLUGS = ("federal-reserve", "ecb", "boe", "investing")


def _key(text: str) -> str:
    return re.sub(r"[-_\s]", "", text).lower()


_BY_KEY: dict[str, Publisher] = {
    _key(name): publisher for publisher in PUBLISHERS
    for name in (publisher.slug, *publisher.aliases)}


def find_publisher(name: str) -> Publisher | None:
    """The publisher a slug or alias names (see the module doc), or None."""
    return _BY_KEY.get(_key(name))


def publisher(slug: str) -> Publisher:
    """The publisher of a known slug (KeyError otherwise)."""
    found = find_publisher(slug)
    if found is None:
        raise KeyError(slug)
    return found


@dataclass(frozen=True)
class FeedEntry:
    """One item of a feed: ``url`` its link, ``published`` an aware datetime (None when the
    feed gave none or an unreadable one), ``summary`` the description as sent (HTML kept,
    trimmed; None when empty), ``source`` the publisher's display name, ``image`` the
    picture a news source sent (None for feeds). A source that sends wall times without a
    zone (FMP) gives a naive ``published``: claiming UTC would be a guess."""

    title: str
    url: str
    published: datetime | None
    summary: str | None
    source: str
    image: str | None = None


def newest_first(entries: Iterable[FeedEntry]) -> list[FeedEntry]:
    """Entries without repeats (by URL, the first kept), newest first by their moment
    (offsets compared as times, not as text), undated ones last in their order."""
    seen: set[str] = set()
    dated: list[tuple[float, FeedEntry]] = []
    undated: list[FeedEntry] = []
    for entry in entries:
        if entry.url in seen:
            continue
        seen.add(entry.url)
        if entry.published is None:
            undated.append(entry)
        else:
            dated.append((entry.published.timestamp(), entry))
    dated.sort(key=lambda pair: pair[0], reverse=True)
    return [entry for _, entry in dated] + undated


def iso_moment(moment: datetime | None) -> str | None:
    """An entry's moment as answered: ISO 8601 with its own offset (``Z`` for UTC), None
    when unknown."""
    if moment is None:
        return None
    return moment.isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class FeedItem:
    """A feed entry as ``/v2/feeds`` and its stream answer it: ``published`` in ISO 8601
    (:func:`iso_moment`), with its headline's sentiment."""

    title: str = member()
    url: str = member("The entry's link")
    published: str | None = member("Publication time, ISO 8601 with the feed's own offset; "
                                   "null when the feed gave none or an unreadable one",
                                   schema={"format": "date-time"})
    summary: str | None = member("The description or summary as sent (HTML kept), trimmed; "
                                 "null when empty")
    source: str = member("The publisher's display name")
    sentiment: MarketSentiment = member(SENTIMENT_OF_HEADLINE)

    @classmethod
    def of(cls, entry: FeedEntry, sentiment: MarketSentiment) -> FeedItem:
        return cls(entry.title, entry.url, iso_moment(entry.published), entry.summary,
                   entry.source, sentiment)


@dataclass(frozen=True)
class MarketNewsItem:
    """An article of the crypto or forex news as answered: ``time`` in ISO 8601
    (:func:`iso_moment`), with its headline's sentiment."""

    title: str = member()
    link: str = member("The article's URL")
    source: str = member("The site or publisher")
    img: str | None = member("The article's image URL; null when none")
    time: str | None = member("Publication time, ISO 8601: FMP's wall time without a zone "
                              "(FMP does not say which), a feed's time with its offset; null "
                              "when unknown")
    sentiment: MarketSentiment = member(SENTIMENT_OF_HEADLINE)

    @classmethod
    def of(cls, entry: FeedEntry, sentiment: MarketSentiment) -> MarketNewsItem:
        return cls(entry.title, entry.url, entry.source, entry.image,
                   iso_moment(entry.published), sentiment)
