"""Feeds and gauges: publishers' RSS/Atom entries, crypto and forex news, and the crypto
market's Fear & Greed Index.

Sources: the publishers' own feeds; FMP's latest crypto and forex news when ``FMP_API_KEY``
is set, else the crypto and central-bank feeds; alternative.me for the index.
"""

from __future__ import annotations

from marketdata.capabilities.table import Source, declare, fmp_source
from marketdata.records.feeds import FeedEntry
from marketdata.records.gauges import FearAndGreed

FEEDS = "marketdata.providers.feeds"


@declare("feeds", "Publishers' RSS/Atom feeds (/v2/feeds)",
         Source("feeds", "the publishers' own RSS and Atom feeds",
                fetcher=f"{FEEDS}:feed_entries"))
def feed_entries(slug: str, form_type: str | None = None) -> list[FeedEntry]:
    """One publisher's entries in its feed's order (``form_type`` for SEC filings)."""


@declare("crypto_news", "News of the crypto market (/v2/crypto/news)",
         fmp_source("crypto_news"),
         Source("feeds", "the CoinDesk and CoinTelegraph feeds", fetcher=f"{FEEDS}:crypto_news"))
def crypto_news(limit: int) -> list[FeedEntry]:
    """The latest ``limit`` crypto articles, newest first."""


@declare("forex_news", "Currency-market news (/v2/forex/news)",
         fmp_source("forex_news"),
         Source("feeds", "the Federal Reserve, ECB, Bank of England and Investing.com feeds",
                fetcher=f"{FEEDS}:forex_news"))
def forex_news(limit: int) -> list[FeedEntry]:
    """The latest ``limit`` forex and central-bank articles, newest first."""


@declare("fear_and_greed", "The crypto Fear & Greed Index (/v2/fear-and-greed)",
         Source("alternative", "alternative.me's Fear & Greed Index",
                fetcher="marketdata.providers.alternative:fear_and_greed"))
def fear_and_greed() -> FearAndGreed:
    """The crypto market's latest Fear & Greed reading."""
