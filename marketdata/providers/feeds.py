"""Publishers' RSS and Atom feeds (keyless): the entries behind ``/v2/feeds``, and the
keyless source of crypto and forex news.

Calls: one plain ``GET`` of a publisher's feed URL (the table in
:mod:`marketdata.records.feeds`); the SEC's hosts get ``settings.SEC_USER_AGENT`` as the
User-Agent when it is set (EDGAR refuses anonymous clients). Documents are read with
feedparser, which takes RSS 0.9x/1.0/2.0 and Atom 0.3/1.0, namespaced dates and odd
encodings alike.

What is read, per ``<item>``/``<entry>``: ``title``; ``link`` (the text of RSS's
``<link>``, Atom's ``<link href>``); ``published`` (``pubDate``/``published``, else
``updated``) as an aware datetime: a date with an offset keeps it, a date without one is
UTC (feedparser's reading), an unreadable one is None; ``summary`` (``description``/
``summary``, else the first ``content``), trimmed, HTML kept. An entry without a title or
a link is dropped.

How a feed fails: a 4xx is a 502 (a feed that is gone is the publisher's failure, not
an unknown thing the client asked for); 429, 5xx and timeouts are the client's map; a body
that is no feed at all (no ``<rss>``/``<feed>`` and no entry) is a 502 naming the
publisher. An empty feed is ``[]``.
"""

from __future__ import annotations

import calendar
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import feedparser  # type: ignore[import-untyped]  # no stubs, no py.typed
from django.conf import settings

from marketdata import concurrency
from marketdata.errors import MarketDataError
from marketdata.formatting import text
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.providers.base import Provider
from marketdata.providers.registry import get_provider
from marketdata.records.feeds import (
    CRYPTO_SLUGS,
    FOREX_SLUGS,
    PUBLISHERS,
    FeedEntry,
    Publisher,
    newest_first,
    publisher,
)

PROVIDER = ProviderConfig(
    name="feeds", display_name="News feeds", connect_timeout=3.0, read_timeout=8.0,
    max_attempts=2,
    hosts=tuple(sorted({urlsplit(p.url).hostname or "" for p in PUBLISHERS})))
# Feeds are refreshed every few minutes by their publishers: the general-news policy (15 min).
POLICY = "general_news"
_SEC_HOSTS = ("https://www.sec.gov/",)


def _moment(entry: Any) -> datetime | None:
    """The entry's publication time (see the module doc), aware; None when unreadable."""
    for member in ("published", "updated"):
        # dict.get: feedparser's own get maps one member to the other, with a warning.
        raw = dict.get(entry, member)
        if not raw:
            continue
        try:
            # RFC 3339 keeps its offset (feedparser's own parsed value is always UTC).
            moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
            return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        except ValueError:
            pass
        parsed = dict.get(entry, f"{member}_parsed")
        if parsed:
            try:
                moment = parsedate_to_datetime(raw)
                return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
            except (TypeError, ValueError):
                return datetime.fromtimestamp(calendar.timegm(parsed), UTC)
    return None


def _summary(entry: Any) -> str | None:
    raw = entry.get("summary")
    if not raw:
        contents = entry.get("content") or []
        raw = contents[0].get("value") if contents else None
    raw = raw.strip() if isinstance(raw, str) else None
    return raw or None


def parse_feed(body: bytes, source: str) -> list[FeedEntry]:
    """An RSS or Atom document -> its entries in the feed's order, ``source`` their
    publisher's display name (see the module doc). A 502 for a body that is not a feed."""
    parsed = feedparser.parse(body)
    if not parsed.get("version") and not parsed.entries:
        raise PROVIDER.bad_answer(f"returned a body that is not an RSS or Atom feed for "
                                  f"{source}")
    out = []
    for entry in parsed.entries:
        title = text(entry.get("title"))
        url = text(entry.get("link"))
        if title is None or url is None:
            continue
        out.append(FeedEntry(title=title, url=url, published=_moment(entry),
                             summary=_summary(entry), source=source))
    return out


class FeedsProvider(Provider):
    """Keyless; the SEC's hosts get the declared User-Agent (see the module doc)."""

    config = PROVIDER

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        # A feed that is gone (404) is the publisher's failure, not an unknown thing the
        # client asked for: a 502 like any other 4xx.
        return self.status_error(response, endpoint) if response.status >= 400 else None

    def read(self, source: Publisher, form_type: str | None) -> list[FeedEntry]:
        url = source.feed_url(form_type)
        headers = {"Accept": "application/rss+xml, application/atom+xml, application/xml, "
                             "text/xml;q=0.9, */*;q=0.1"}
        agent = getattr(settings, "SEC_USER_AGENT", "")
        if agent and url.startswith(_SEC_HOSTS):
            headers["User-Agent"] = agent
        response = self.get(source.slug, url, headers=headers)
        return parse_feed(response.content, source.display_name(form_type))


def feeds_provider() -> FeedsProvider:
    return get_provider(PROVIDER.name)


# -- fetchers (the capability table's) ------------------------------------------------------
def feed_entries(slug: str, form_type: str | None = None) -> list[FeedEntry]:
    """The ``feeds`` fetcher: one publisher's entries, cached 15 minutes. ``form_type``
    counts only for a feed that takes one (SEC filings)."""
    source = publisher(slug)
    form = form_type if source.takes_form_type else None
    provider = feeds_provider()
    return provider.cached("feed", {"slug": source.slug, "formType": form or ""},
                           lambda: provider.read(source, form), POLICY, group="feeds")


def _news_from(slugs: tuple[str, ...], limit: int) -> list[FeedEntry]:
    """The newest ``limit`` entries of several feeds together; a failing feed is left out,
    and when every feed fails the telling failure is raised."""
    found = concurrency.gather_partial(feed_entries, slugs, what="feed")
    found.raise_if_empty(lambda: PROVIDER.bad_answer("returned no feed"))
    return newest_first(e for _, entries in found.values for e in entries)[:limit]


def crypto_news(limit: int) -> list[FeedEntry]:
    """The ``crypto_news`` keyless fetcher: CoinDesk's and CoinTelegraph's feeds."""
    return _news_from(CRYPTO_SLUGS, limit)


def forex_news(limit: int) -> list[FeedEntry]:
    """The ``forex_news`` keyless fetcher: the Federal Reserve's, the ECB's and the Bank of
    England's press feeds and Investing.com's news."""
    return _news_from(FOREX_SLUGS, limit)
