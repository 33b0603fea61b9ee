"""Security search: the primary provider (Algolia), with Yahoo Finance as the automatic
fallback when the primary fails or the caller asks for the secondary provider."""

from __future__ import annotations

from marketdata import capabilities, deadline
from marketdata.errors import UpstreamError
from marketdata.logs import get_logger
from marketdata.providers import algolia
from marketdata.providers.yahoo import search as yahoo_search

log = get_logger("apps.search")

PRIMARY, SECONDARY = (s.name for s in capabilities.capability("security_search").sources)
PRIMARY_SHARE = 0.5


def normalize_query(text: str) -> str:
    """Whitespace trimmed and collapsed: ``' apple   inc '`` and ``'apple inc'`` are one
    search (and one cache entry; the cache key is also case-insensitive)."""
    return " ".join(text.split())


def search_securities(query: str, hits: int, security_type: str | None = None,
                      use_primary: bool = True) -> tuple[list[dict[str, str]], str]:
    """(results, provider that answered). Never more than ``hits`` results; an empty list
    when nothing matches. When both providers fail, the secondary's error is raised."""
    query = normalize_query(query)
    if use_primary:
        try:
            # The primary gets half of the time left, so the fallback always has the rest.
            with deadline.share(PRIMARY_SHARE):
                return algolia.search_securities(query, hits, security_type), PRIMARY
        except UpstreamError as exc:
            log.warning("primary search provider failed; falling back to the secondary",
                        provider=PRIMARY, fallback=SECONDARY, reason=exc.detail,
                        code=exc.code, upstream_status=exc.upstream_status)
    else:
        log.info("secondary search provider requested", provider=SECONDARY)
    return yahoo_search.search_quotes(query, hits, security_type), SECONDARY
