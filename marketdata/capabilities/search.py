"""Security search: the securities whose name or symbol matches a query; the v2 search
(quotes, news and research reports of one query) and the v2 lookup.

Sources (the ``security_search``, ``search`` and ``lookup`` rows of
:mod:`marketdata.capabilities.table`): for ``security_search``, a hosted search index
(Algolia) with half of the time left, then Yahoo's search, which also answers alone when
the caller asks for the secondary source. When both fail, Yahoo's failure is the answer
(the one the client was last sent to). Yahoo alone for the other two.
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.errors import BadRequest
from marketdata.records.search import (
    LOOKUP_TYPES,
    SECURITY_TYPES,
    LookupAnswer,
    SearchAnswer,
    SecurityMatches,
)


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


def search(query: str, *, quotes: int, news: int, fuzzy: bool = False, logo: bool = True,
           research: bool = False, cultural: bool = False, lang: str = "en-US",
           region: str = "US") -> SearchAnswer:
    """Up to ``quotes`` instruments and ``news`` articles matching ``query`` (normalised
    here), with research reports when ``research``; the flags are the source's own
    (fuzzy matching, logo URLs, cultural assets). No match is empty lists."""
    answer: SearchAnswer = call("search", normalize_query(query), quotes=quotes, news=news,
                                fuzzy=fuzzy, logo=logo, research=research,
                                cultural=cultural, lang=lang, region=region)
    return answer


def lookup(query: str, *, type_: str = "all", count: int, lang: str = "en-US",
           region: str = "US") -> LookupAnswer:
    """The first ``count`` instruments matching ``query`` (normalised here), only of kind
    ``type_`` unless it is ``all``. No match is an empty list."""
    if type_ not in LOOKUP_TYPES:
        raise BadRequest(f"type must be one of {', '.join(LOOKUP_TYPES)}")
    answer: LookupAnswer = call("lookup", normalize_query(query), type_=type_, count=count,
                                lang=lang, region=region)
    return answer
