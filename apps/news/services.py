"""News: the articles for one symbol, or general market news (Yahoo Finance, through
:mod:`marketdata.capabilities.news`), as v1 News objects and as v2 news items (absolute
times, a sentiment per headline)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from apps.core.symbols import require_symbol
from marketdata.capabilities import news
from marketdata.errors import NotFound
from marketdata.formatting import relative_time
from marketdata.records.members import URI, member
from marketdata.records.news import MarketSentiment, NewsItem, ScoredNewsItem
from marketdata.sentiment import score_headline, words_of


@dataclass(frozen=True)
class News:
    """The v1 News object: an article with its time relative to now (:meth:`of`)."""

    title: str = member()
    link: str = member("URL of the article", schema=URI)
    source: str = member("Publisher")
    img: str = member("URL of the article's image", schema=URI)
    time: str = member("Publication time relative to now: 'just now', '1 minute ago', "
                       "'5 minutes ago', '2 hours ago', '3 days ago', '1 month ago', "
                       "'2 years ago'")

    @classmethod
    def of(cls, item: NewsItem, img: str, now: float) -> News:
        """``time`` is computed now, so cached articles age correctly."""
        return cls(item.title, item.link, item.source, img, relative_time(item.published, now))


def _shown(items: list[NewsItem], now: float) -> list[News]:
    # `img` is required: articles without an image are left out (as the reference did).
    return [News.of(i, i.img, now) for i in items if i.img]


def news_for_symbol(symbol_text: str, now: float | None = None) -> list[News]:
    """Articles tagged with the symbol, in Yahoo's order; 404 when there are none (and for a
    malformed symbol, which never reaches the upstream)."""
    symbol = require_symbol(symbol_text)
    shown = _shown(news.symbol_news(symbol), time.time() if now is None else now)
    if not shown:
        raise NotFound(f"No news found for {symbol}")
    return shown


def market_news(now: float | None = None) -> list[News]:
    """General market news, newest first; ``[]`` when Yahoo has none to offer."""
    return _shown(news.general_news(), time.time() if now is None else now)


# -- v2 -------------------------------------------------------------------------------------------
def v2_news_item(item: NewsItem, ignore: Iterable[str] = ()) -> ScoredNewsItem:
    """The v2 news item: the article with its headline's sentiment (Bullish/Bearish/Neutral);
    ``ignore``: words left out of the sentiment (the company's name)."""
    return ScoredNewsItem.of(item, MarketSentiment.of(score_headline(item.title, ignore)))


def v2_symbol_news(symbol_text: str, count: int) -> list[ScoredNewsItem]:
    """Up to ``count`` articles Yahoo tagged with the symbol, in Yahoo's order; ``[]`` for a
    symbol Yahoo lists but has no article about. 404 for a malformed symbol (no upstream
    call) and for one Yahoo neither lists nor has an article about."""
    symbol = require_symbol(symbol_text)
    found = news.listed_news(symbol)
    if not found.listed and not found.items:
        raise NotFound(f"No news found for {symbol}")
    # "Apple shares..." must not read as positive because of the name: its words are left out.
    ignore = words_of(found.name) if found.name else ()
    return [v2_news_item(item, ignore) for item in found.items[:count]]


def v2_market_news(count: int) -> list[ScoredNewsItem]:
    """The ``count`` newest articles of general market news; ``[]`` when there are none."""
    return [v2_news_item(item) for item in news.general_news()[:count]]
