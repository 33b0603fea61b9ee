"""Security search: the securities whose name or symbol matches a query; the v2 search
(quotes, news and research reports of one query) and the v2 lookup.

Sources: for ``security_search``, a hosted search index (Algolia) with half of the time
left, then Yahoo's search, which also answers alone when the caller asks for the secondary
source. When both fail, Yahoo's failure is the answer (the one the client was last sent
to). Yahoo alone for the other two. Each query is normalised (and checked) here, then asked
through its capability's function.
"""

from __future__ import annotations

from marketdata.capabilities.table import YAHOO, Source, declare
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


@declare("security_search", "Symbol search (/v1/search)",
         Source("algolia", "a hosted search index (an Algolia application)",
                fetcher="marketdata.providers.algolia:securities"),
         Source("yahoo", f"{YAHOO} search",
                fetcher="marketdata.providers.yahoo.search:securities"),
         primary_share=0.5, raise_last_failure=True)
def _securities(query: str, hits: int, security_type: str | None = None, *,
                use_primary: bool = True) -> SecurityMatches:
    """The matches of a normalised query (:func:`securities`)."""


@declare("search", "Search: quotes, news, research reports (/v2/search)",
         Source("yahoo", f"{YAHOO} search", fetcher="marketdata.providers.yahoo.search:search"))
def _search(query: str, *, quotes: int, news: int, fuzzy: bool, logo: bool, research: bool,
            cultural: bool, lang: str, region: str) -> SearchAnswer:
    """The answer to a normalised query (:func:`search`)."""


@declare("lookup", "Symbol lookup (/v2/lookup)",
         Source("yahoo", f"{YAHOO} lookup", fetcher="marketdata.providers.yahoo.lookup:lookup"))
def _lookup(query: str, *, type_: str, count: int, lang: str, region: str) -> LookupAnswer:
    """The instruments of a normalised query (:func:`lookup`)."""


def securities(query: str, hits: int, security_type: str | None = None, *,
               use_primary: bool = True) -> SecurityMatches:
    """At most ``hits`` matches of ``query`` (normalised here), best first, only of
    ``security_type`` when given; ``use_primary=False`` asks the secondary source alone.
    No match is an empty list."""
    if security_type is not None and security_type not in SECURITY_TYPES:
        raise BadRequest(f"type must be one of {', '.join(SECURITY_TYPES)}")
    return _securities(normalize_query(query), hits, security_type, use_primary=use_primary)


def search(query: str, *, quotes: int, news: int, fuzzy: bool = False, logo: bool = True,
           research: bool = False, cultural: bool = False, lang: str = "en-US",
           region: str = "US") -> SearchAnswer:
    """Up to ``quotes`` instruments and ``news`` articles matching ``query`` (normalised
    here), with research reports when ``research``; the flags are the source's own
    (fuzzy matching, logo URLs, cultural assets). No match is empty lists."""
    return _search(normalize_query(query), quotes=quotes, news=news, fuzzy=fuzzy, logo=logo,
                   research=research, cultural=cultural, lang=lang, region=region)


def lookup(query: str, *, type_: str = "all", count: int, lang: str = "en-US",
           region: str = "US") -> LookupAnswer:
    """The first ``count`` instruments matching ``query`` (normalised here), only of kind
    ``type_`` unless it is ``all``. No match is an empty list."""
    if type_ not in LOOKUP_TYPES:
        raise BadRequest(f"type must be one of {', '.join(LOOKUP_TYPES)}")
    return _lookup(normalize_query(query), type_=type_, count=count, lang=lang,
                   region=region)
