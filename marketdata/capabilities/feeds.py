"""Feeds and gauges: publishers' RSS/Atom entries, crypto and forex news, and the crypto
market's Fear & Greed Index.

Sources (the ``feeds``, ``crypto_news``, ``forex_news`` and ``fear_and_greed`` rows of
:mod:`marketdata.capabilities.table`): the publishers' own feeds; FMP's latest crypto and
forex news when ``FMP_API_KEY`` is set, else the crypto and central-bank feeds;
alternative.me for the index.
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.records.feeds import FeedEntry
from marketdata.records.gauges import FearAndGreed


def feed_entries(slug: str, form_type: str | None = None) -> list[FeedEntry]:
    """One publisher's entries in its feed's order (``form_type`` for SEC filings)."""
    entries: list[FeedEntry] = call("feeds", slug, form_type)
    return entries


def crypto_news(limit: int) -> list[FeedEntry]:
    """The latest ``limit`` crypto articles, newest first."""
    entries: list[FeedEntry] = call("crypto_news", limit)
    return entries


def forex_news(limit: int) -> list[FeedEntry]:
    """The latest ``limit`` forex and central-bank articles, newest first."""
    entries: list[FeedEntry] = call("forex_news", limit)
    return entries


def fear_and_greed() -> FearAndGreed:
    """The crypto market's latest Fear & Greed reading."""
    reading: FearAndGreed = call("fear_and_greed")
    return reading
