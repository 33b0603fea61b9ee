"""Security search: the securities whose name or symbol matches a query.

Sources (the ``security_search`` row of :mod:`marketdata.capabilities.table`): a hosted
search index (Algolia) with half of the time left, then Yahoo's search, which also answers
alone when the caller asks for the secondary source. When both fail, Yahoo's failure is
the answer (the one the client was last sent to).
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.errors import BadRequest
from marketdata.records.search import SECURITY_TYPES, SecurityMatches


def normalize_query(text: str) -> str:
    """Whitespace trimmed and collapsed: ``' apple   inc '`` and ``'apple inc'`` are one
    search (and one cache entry; the cache key is also case-insensitive)."""
    return " ".join(text.split())


def securities(query: str, hits: int, security_type: str | None = None, *,
               use_primary: bool = True) -> SecurityMatches:
    """At most ``hits`` matches of ``query`` (normalised here), best first, only of
    ``security_type`` when given; ``use_primary=False`` asks the secondary source alone.
    No match is an empty list."""
    if security_type is not None and security_type not in SECURITY_TYPES:
        raise BadRequest(f"type must be one of {', '.join(SECURITY_TYPES)}")
    matches: SecurityMatches = call("security_search", normalize_query(query), hits,
                                    security_type, use_primary=use_primary)
    return matches
