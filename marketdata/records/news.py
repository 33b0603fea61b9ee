"""News: the articles about a symbol or the market behind ``/v1/news``, and the world news
with a sentiment behind ``/v2/worldnews``, whichever source served them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from marketdata.records.members import member
from marketdata.sentiment import LABEL_THRESHOLD, NEGATIVE, NEUTRAL, POSITIVE, Sentiment

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


_SCORE = "VADER compound blended with the finance term polarity"
_SCORE_RANGE = {"minimum": -1, "maximum": 1}
_CONFIDENCE_RANGE = {"minimum": 0, "maximum": 1}


@dataclass(frozen=True)
class HeadlineSentiment:
    """A headline's sentiment (:func:`marketdata.sentiment.score_headline`) in the scorer's
    words: positive, negative, neutral."""

    label: str = member(f"positive when score >= {LABEL_THRESHOLD}, negative when score <= "
                        f"-{LABEL_THRESHOLD}, else neutral",
                        schema={"enum": [POSITIVE, NEGATIVE, NEUTRAL]})
    score: float = member(_SCORE, schema=_SCORE_RANGE)
    confidence: float = member("|score| for positive/negative; for neutral, how flat the score "
                               "is times the share of plain words", schema=_CONFIDENCE_RANGE)


# The market's words for the scorer's labels (the reference's).
MARKET_LABELS = {POSITIVE: "Bullish", NEGATIVE: "Bearish", NEUTRAL: "Neutral"}


@dataclass(frozen=True)
class MarketSentiment:
    """A headline's sentiment in the market's words: Bullish, Bearish, Neutral."""

    label: str = member(f"Bullish when score >= {LABEL_THRESHOLD}, Bearish when score <= "
                        f"-{LABEL_THRESHOLD}, else Neutral",
                        schema={"enum": list(MARKET_LABELS.values())})
    score: float = member(_SCORE, schema=_SCORE_RANGE)
    confidence: float = member("|score| for Bullish/Bearish; for Neutral, how flat the score "
                               "is times the share of plain words", schema=_CONFIDENCE_RANGE)

    @classmethod
    def of(cls, sentiment: Sentiment) -> MarketSentiment:
        return cls(MARKET_LABELS[sentiment.label], sentiment.score, sentiment.confidence)


# The member of an article's headline sentiment in the market's words (the news and feeds).
SENTIMENT_OF_HEADLINE = ("Sentiment of the headline, scored by this service (as /v2/worldnews "
                         "scores it)")


@dataclass(frozen=True)
class ScoredNewsItem:
    """An article of ``/v2/news`` as answered: a :class:`NewsItem` with its publication time
    both absolute (so a cached answer stays true) and in the source's Unix seconds, and its
    headline's sentiment (the service scores it: it knows which words to leave out)."""

    title: str = member()
    link: str = member("The article's URL")
    source: str = member("The publisher, as Yahoo names it")
    img: str | None = member("The article's image URL (Yahoo's original resolution, else its "
                             "widest); null when none")
    time: datetime = member("Publication time, ISO 8601 UTC (`2025-02-25T00:20:00Z`)")
    provider_publish_time: int = member("Publication time, Unix seconds, as Yahoo sends it")
    sentiment: MarketSentiment = member(SENTIMENT_OF_HEADLINE)

    @classmethod
    def of(cls, item: NewsItem, sentiment: MarketSentiment) -> ScoredNewsItem:
        return cls(item.title, item.link, item.source, item.img,
                   datetime.fromtimestamp(item.published, UTC), item.published, sentiment)


@dataclass(frozen=True)
class WorldNewsItem:
    """One article of the world's news with the sentiment of its headline.

    ``source`` is the publisher's domain, ``time`` when the article was first seen (ISO 8601
    UTC: an absolute time stays true in a cache); ``source``, ``img`` and ``time`` are None
    when unknown."""

    title: str = member()
    link: str = member("The article's URL")
    source: str | None = member("The publisher's domain")
    img: str | None = member("The article's social image URL; null when none")
    time: str | None = member("When GDELT first saw the article, ISO 8601 UTC "
                              "(`2024-01-15T16:30:00Z`); null when unreadable",
                              schema={"format": "date-time"})
    sentiment: HeadlineSentiment = member("Sentiment of the headline, scored by this service")


@dataclass(frozen=True)
class SymbolNews:
    """A symbol's articles with what the search said about the symbol itself: ``listed``
    when the source knows an instrument of exactly that symbol, ``name`` its name (None
    when unknown). An unlisted symbol with no article is an unknown symbol."""

    symbol: str
    listed: bool
    name: str | None
    items: list[NewsItem]
