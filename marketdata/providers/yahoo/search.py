"""Yahoo v1 search (``/v1/finance/search``): securities (``quotes[]``) for the search
fallback (:func:`securities`, the ``yahoo`` fetcher of ``security_search``), articles
(``news[]``, see :mod:`marketdata.providers.yahoo.news`), and the whole answer with every
flag for ``/v2/search`` (:func:`search`, the fetcher of ``search``).

Why no crumb: the recorded search requests carry none and Yahoo answers them; leaving it
out spares a cookie/crumb handshake on the fallback path. The extra parameters are the ones
the recordings were made with (exact-phrase quote matching, no fuzzy matching), with the
navigation/"crunchbase" extras switched off because nothing here reads them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import integer, json_number, rows, text
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.records.members import members_of
from marketdata.records.search import (
    ResearchReport,
    SearchAnswer,
    SearchArticle,
    SearchQuote,
    Security,
    SecurityMatches,
    Thumbnail,
    ThumbnailSize,
)

SEARCH_URL = f"{yahoo.QUERY1}/v1/finance/search"
BASE_PARAMS = {
    "lang": "en-US",
    "region": "US",
    "enableFuzzyQuery": "false",
    "quotesQueryId": "tss_match_phrase_query",
    "multiQuoteQueryId": "multi_quote_single_token_query",
    "newsQueryId": "news_cie_vespa",
    "enableCb": "false",
    "enableNavLinks": "false",
    "enableEnhancedTrivialQuery": "true",
}
# Yahoo quoteType -> SearchResult.type; indices, options, futures, currencies, crypto are
# not securities this endpoint lists.
QUOTE_TYPES = {"EQUITY": "stock", "ETF": "etf", "MUTUALFUND": "trust"}
_PLAIN_QUERY = re.compile(r"[a-z0-9^.-]{1,40}")


def query_key(query: str) -> str:
    """The cache-key form of a normalised query: lower-cased (both providers ignore case);
    hashed unless it is a short plain token, so keys stay short and free of spaces and
    non-ASCII (which some cache backends reject)."""
    text = query.lower()
    if _PLAIN_QUERY.fullmatch(text):
        return text
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:32]


def get_search(query: str, quotes_count: int, news_count: int,
               extra: Mapping[str, str] | None = None) -> dict[str, Any]:
    """One v1 search call; the decoded body (always a dict) or an upstream error.
    ``extra``: more parameters, or other values for those of :data:`BASE_PARAMS`.

    A 404 from a search endpoint is not "no such symbol" (a search with no match answers
    200 with empty lists), so it is reported as a bad upstream answer, not as NotFound.
    """
    params = {**BASE_PARAMS, **(extra or {}), "q": query, "quotesCount": str(quotes_count),
              "newsCount": str(news_count)}
    try:
        payload = get_json("search", SEARCH_URL, params, crumb=False)
    except NotFound as exc:
        raise UpstreamBadResponse("yahoo", "Yahoo Finance answered HTTP 404 for search",
                                  404) from exc
    if not isinstance(payload, dict):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance search answer is not an object")
    return payload


def parse_search_quotes(payload: Any) -> list[dict[str, str]]:
    """v1 search body -> SearchResult dicts for equities, ETFs and mutual funds, in
    Yahoo's order.

    ``name`` is the long name (the spec asks for the full company name; Yahoo's short name
    is cut at 31 characters), else the short name, else the symbol; ``exchange`` is Yahoo's
    exchange code (``NMS``). Entries that are not Yahoo Finance quotes (no symbol) and other
    quote types are left out.
    """
    quotes = payload.get("quotes") if isinstance(payload, dict) else None
    if quotes is None:
        quotes = []
    if not isinstance(quotes, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance search answer has no quotes list")
    out: list[dict[str, str]] = []
    for item in quotes:
        if not isinstance(item, dict):
            continue
        kind = QUOTE_TYPES.get(str(item.get("quoteType") or "").upper())
        symbol = text(item.get("symbol"))
        exchange = text(item.get("exchange"))
        if kind is None or symbol is None or exchange is None:
            continue
        name = text(item.get("longname")) or text(item.get("shortname")) or symbol
        out.append({"name": name, "symbol": symbol, "exchange": exchange, "type": kind})
    return out


def select(results: list[dict[str, str]], hits: int,
           security_type: str | None = None) -> list[dict[str, str]]:
    """The type filter first, then the cap: never more than ``hits`` results."""
    if security_type:
        results = [r for r in results if r["type"] == security_type]
    return results[:hits]


def search_quotes(query: str, hits: int, security_type: str | None = None) -> list[dict[str, str]]:
    """Securities matching ``query`` (already normalised), through the search cache.

    Yahoo is asked for ``hits`` quotes; options, indices and other types it returns are
    dropped, so fewer than ``hits`` results can come back.
    """
    def fetch() -> list[dict[str, str]]:
        payload = get_search(query, quotes_count=hits, news_count=0)
        return select(parse_search_quotes(payload), hits, security_type)

    return yahoo_provider().cached("search",
                                   {"q": query_key(query), "hits": hits,
                                    "type": security_type or "all"},
                                   fetch, "search", group="search")


def securities(query: str, hits: int, security_type: str | None = None, *,
               use_primary: bool = True) -> SecurityMatches:
    """The ``security_search`` fetcher: :func:`search_quotes` as a record. Yahoo is the
    secondary source, so it answers whether or not the caller asked for the primary."""
    found = search_quotes(query, hits, security_type)
    return SecurityMatches([Security(**row) for row in found], "yahoo")


# -- v2 search ------------------------------------------------------------------------------
def _string(value: Any) -> str | None:
    """A string member as Yahoo sent it (``/v2/search`` passes names through, padding
    included); None when missing, blank or not a string."""
    return value if isinstance(value, str) and value.strip() else None


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _quote_member(item: dict[str, Any], name: str) -> Any:
    if name in ("isYahooFinance", "dispSecIndFlag"):
        return _flag(item.get(name))
    if name == "score":
        return json_number(item.get(name))
    if name in ("shortName", "longName"):
        # Yahoo writes shortname/longname here (camel case in other answers).
        return _string(item.get(name.lower())) or _string(item.get(name))
    return _string(item.get(name))


def parse_search_quote(item: dict[str, Any]) -> SearchQuote | None:
    """One ``quotes[]`` entry -> :class:`SearchQuote` (Yahoo's names are its members; None
    where absent); None for entries that are not Yahoo Finance instruments (no symbol)."""
    if _string(item.get("symbol")) is None:
        return None
    return SearchQuote(**{m.attribute: _quote_member(item, m.name)
                          for m in members_of(SearchQuote)})


def parse_thumbnail(value: Any) -> Thumbnail | None:
    """The resolutions that have a URL; None without any."""
    resolutions = [
        ThumbnailSize(url=url, width=integer(r.get("width")), height=integer(r.get("height")),
                      tag=_string(r.get("tag")))
        for r in rows(value.get("resolutions") if isinstance(value, dict) else None)
        if (url := _string(r.get("url")))]
    return Thumbnail(resolutions) if resolutions else None


def parse_search_article(item: dict[str, Any]) -> SearchArticle | None:
    """One ``news[]`` entry -> :class:`SearchArticle`; None without a title or link."""
    if _string(item.get("title")) is None or _string(item.get("link")) is None:
        return None
    tickers = item.get("relatedTickers")
    return SearchArticle(
        uuid=_string(item.get("uuid")), title=_string(item.get("title")),
        publisher=_string(item.get("publisher")), link=_string(item.get("link")),
        provider_publish_time=integer(item.get("providerPublishTime")),
        type=_string(item.get("type")), thumbnail=parse_thumbnail(item.get("thumbnail")),
        related_tickers=([t for t in tickers if isinstance(t, str)]
                         if isinstance(tickers, list) else None))


def parse_research_report(item: dict[str, Any]) -> ResearchReport:
    return ResearchReport(
        report_headline=_string(item.get("reportHeadline")), author=_string(item.get("author")),
        report_date=integer(item.get("reportDate")), id=_string(item.get("id")),
        provider=_string(item.get("provider")))


def parse_search(payload: Any) -> SearchAnswer:
    """v1 search body -> :class:`SearchAnswer`, lists in Yahoo's order (a list Yahoo left
    out is empty; one that is not a list is an unusable answer)."""
    if not isinstance(payload, dict):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance search answer is not an object")
    for name in ("quotes", "news", "researchReports"):
        if payload.get(name) is not None and not isinstance(payload[name], list):
            raise UpstreamBadResponse("yahoo", f"Yahoo Finance search answer has no {name} "
                                               "list")
    quotes = [q for q in map(parse_search_quote, rows(payload.get("quotes"))) if q]
    news = [n for n in map(parse_search_article, rows(payload.get("news"))) if n]
    reports = [parse_research_report(r) for r in rows(payload.get("researchReports"))]
    return SearchAnswer(count=integer(payload.get("count")), quotes=quotes, news=news,
                        research_reports=reports, total_time=integer(payload.get("totalTime")))


def _bool(value: bool) -> str:
    return "true" if value else "false"


def search(query: str, *, quotes: int, news: int, fuzzy: bool, logo: bool, research: bool,
           cultural: bool, lang: str, region: str) -> SearchAnswer:
    """The ``search`` fetcher: one v1 search with every flag of ``/v2/search``, through
    the search cache. The cache key holds every parameter sent (the query lower-cased:
    Yahoo ignores case)."""
    extra = {"lang": lang, "region": region, "enableFuzzyQuery": _bool(fuzzy),
             "enableLogoUrl": _bool(logo), "enableResearchReports": _bool(research),
             "enableCulturalAssets": _bool(cultural)}
    key = {"q": query_key(query), "quotes": quotes, "news": news, "fuzzy": fuzzy,
           "logo": logo, "research": research, "cultural": cultural, "lang": lang,
           "region": region}
    return yahoo_provider().cached(
        "search_v2", key, lambda: parse_search(get_search(query, quotes, news, extra)),
        "search", group="search")
