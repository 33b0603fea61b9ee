"""Feeds and gauges: publishers' RSS/Atom entries merged newest first, crypto and forex
news, and the crypto Fear & Greed Index (through :mod:`marketdata.capabilities.feeds`),
each headline with the world-news sentiment."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from marketdata import concurrency
from marketdata.capabilities import feeds
from marketdata.errors import NotFound
from marketdata.records.feeds import (
    DEFAULT_SLUGS,
    FeedEntry,
    FeedItem,
    MarketNewsItem,
    Publisher,
    newest_first,
    publisher,
)
from marketdata.records.gauges import FearAndGreed
from marketdata.records.news import MarketSentiment
from marketdata.sentiment import score_headline


def sentiment(title: str) -> MarketSentiment:
    """``{label: Bullish|Bearish|Neutral, score, confidence}`` as /v2/news scores it."""
    return MarketSentiment.of(score_headline(title))


@dataclass(frozen=True)
class FeedsAnswer:
    """The merged entries and, per failing source, its slug and message."""

    entries: list[FeedItem]
    errors: list[tuple[str, str]]


def merged_feeds(sources: Sequence[Publisher] | None, form_type: str | None) -> FeedsAnswer:
    """Every source's entries, fetched concurrently, merged (see :func:`newest_first`).
    A failing source is left out and named in ``errors``; when every source fails, the
    telling upstream failure is raised (the client learns the upstream failed, not
    ``[]``)."""
    chosen = list(sources) if sources else [publisher(slug) for slug in DEFAULT_SLUGS]
    found = concurrency.gather_partial(
        lambda source: feeds.feed_entries(source.slug, form_type), chosen, what="feed",
        label=lambda source: source.slug)
    found.raise_if_empty(lambda: NotFound("No feed entries"))
    entries = newest_first(e for _, entries in found.values for e in entries)
    return FeedsAnswer([feed_item(e) for e in entries],
                       [(source.slug, error.detail) for source, error in found.left_out])


def feed_item(entry: FeedEntry) -> FeedItem:
    """A feed entry as /v2/feeds and /v2/feeds/stream send it."""
    return FeedItem.of(entry, sentiment(entry.title))


def source_entries(source: Publisher, form_type: str | None) -> list[FeedEntry]:
    """One source's entries (the feeds stream's poll), newest first."""
    return newest_first(feeds.feed_entries(source.slug, form_type))


def crypto_news(limit: int) -> list[MarketNewsItem]:
    return [MarketNewsItem.of(e, sentiment(e.title)) for e in feeds.crypto_news(limit)[:limit]]


def forex_news(limit: int) -> list[MarketNewsItem]:
    return [MarketNewsItem.of(e, sentiment(e.title)) for e in feeds.forex_news(limit)[:limit]]


def fear_and_greed() -> FearAndGreed:
    return feeds.fear_and_greed()
