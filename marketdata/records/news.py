"""News: the articles about a symbol or the market behind ``/v1/news``, and the world news
with a sentiment behind ``/v2/worldnews``, whichever source served them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# How far world news reaches: the most recent articles of a recent window (GDELT's own
# default count for an article list, and its ``timespan`` spelling: "2w" is two weeks).
WORLD_NEWS_MAX_ARTICLES = 75
WORLD_NEWS_TIMESPAN = "2w"


@dataclass(frozen=True)
class NewsItem:
    """One article as its source describes it; ``img`` is None when it sent no image.

    ``published`` is epoch seconds (the app turns it into "N minutes ago" when it answers,
    so a cached article ages); ``related`` is the symbols the source tagged it with, None
    when it sent no tags."""

    uuid: str
    title: str
    link: str
    source: str
    img: str | None
    published: int
    related: tuple[str, ...] | None


@dataclass(frozen=True)
class WorldNewsItem:
    """One article of the world's news with the sentiment of its headline.

    ``source`` is the publisher's domain, ``time`` when the article was first seen (ISO 8601
    UTC: an absolute time stays true in a cache), ``sentiment`` ``{label, score,
    confidence}``; ``source``, ``img`` and ``time`` are None when unknown."""

    title: str
    link: str
    source: str | None
    img: str | None
    time: str | None
    sentiment: dict[str, Any]


@dataclass(frozen=True)
class SymbolNews:
    """A symbol's articles with what the search said about the symbol itself: ``listed``
    when the source knows an instrument of exactly that symbol, ``name`` its name (None
    when unknown). An unlisted symbol with no article is an unknown symbol."""

    symbol: str
    listed: bool
    name: str | None
    items: list[NewsItem]
