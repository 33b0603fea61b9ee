"""News from Yahoo v1 search ``news[]``: articles for one symbol, and general market news
(the fetchers of the ``news`` and ``general_news`` capabilities, both
:class:`marketdata.records.news.NewsItem` lists).

Why this source: it is the one news source with real recordings
(``shared/upstream/yahoo/v1-search``), it is JSON behind the same client as every other
Yahoo call, and the sandbox serves the same request. General news is the same search for
the three major US indices, merged (the reference scraped stockanalysis.com HTML instead;
Yahoo's RSS index would need an XML parser and has no recording).

Why the relatedTickers filter: Yahoo's search is full-text, so for a rare symbol it fills
``news[]`` with unrelated headlines (the recording for ``0P000071W8.TO`` returns Carter's,
Home Depot and DeepSeek stories). Only articles Yahoo tagged with the symbol are kept.
"""

from __future__ import annotations

from typing import Any

from marketdata.concurrency import gather_partial
from marketdata.errors import UpstreamBadResponse
from marketdata.formatting import raw, text
from marketdata.providers.yahoo.client import yahoo_provider
from marketdata.providers.yahoo.search import get_search
from marketdata.records.news import NewsItem, SymbolNews

NEWS_COUNT = 20
# How many quotes the v2 symbol search asks for: enough for the exact symbol to be among
# them (Yahoo ranks an exact symbol match first).
LISTING_QUOTES = 5
GENERAL_NEWS_QUERIES = ("^GSPC", "^DJI", "^IXIC")


def pick_image(thumbnail: Any) -> str | None:
    """The ``original`` resolution, else the widest one; None without a usable URL."""
    resolutions = thumbnail.get("resolutions") if isinstance(thumbnail, dict) else None
    if not isinstance(resolutions, list):
        return None
    usable = [r for r in resolutions if isinstance(r, dict) and text(r.get("url"))]
    if not usable:
        return None
    for res in usable:
        if res.get("tag") == "original":
            return text(res["url"])
    return text(max(usable, key=_width)["url"])


def _width(resolution: dict[str, Any]) -> float:
    width = raw(resolution.get("width"))
    return width if isinstance(width, int | float) and not isinstance(width, bool) else -1


def parse_news(payload: Any) -> list[NewsItem]:
    """v1 search body -> articles in Yahoo's order; items without a title, link or
    publish time are dropped (each News field is required)."""
    news = payload.get("news") if isinstance(payload, dict) else None
    if news is None:
        return []
    if not isinstance(news, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance search answer has no news list")
    out: list[NewsItem] = []
    for item in news:
        if not isinstance(item, dict):
            continue
        title, link = text(item.get("title")), text(item.get("link"))
        published = raw(item.get("providerPublishTime"))
        if not title or not link or not isinstance(published, int | float) \
                or isinstance(published, bool):
            continue
        tickers = item.get("relatedTickers")
        related = tuple(str(t).upper() for t in tickers if isinstance(t, str)) \
            if isinstance(tickers, list) else None
        out.append(NewsItem(
            uuid=text(item.get("uuid")) or link,
            title=title,
            link=link,
            source=text(item.get("publisher")) or "Yahoo Finance",
            img=pick_image(item.get("thumbnail")),
            published=int(published),
            related=related,
        ))
    return out


def about(items: list[NewsItem], symbol: str) -> list[NewsItem]:
    """Articles Yahoo tagged with ``symbol`` (items without relatedTickers are dropped)."""
    return [i for i in items if i.related is not None and symbol.upper() in i.related]


def _search_news(query: str, policy: str, group: str) -> list[NewsItem]:
    return yahoo_provider().cached(
        "search_news", {"q": query, "count": NEWS_COUNT},
        lambda: parse_news(get_search(query, quotes_count=0, news_count=NEWS_COUNT)),
        policy, group=group)


def symbol_news(symbol: str) -> list[NewsItem]:
    """Articles about a validated symbol, in Yahoo's order (cache policy ``news``)."""
    return about(_search_news(symbol, "news", "news"), symbol)


def general_news() -> list[NewsItem]:
    """Market news: the searches for the major indices merged, de-duplicated by uuid,
    newest first (cache policy ``general_news``).

    One failing search does not fail the list; when every search fails, the first upstream
    error is raised (a breaker refusal only when nothing else failed).
    """
    fetched = gather_partial(lambda q: _search_news(q, "general_news", "general_news"),
                             GENERAL_NEWS_QUERIES, what="news search")
    fetched.raise_if_empty(lambda: fetched.left_out[0][1])
    merged: dict[str, NewsItem] = {}
    for _, items in fetched.values:
        for item in items:
            merged.setdefault(item.uuid, item)
    return sorted(merged.values(), key=lambda i: i.published, reverse=True)


def parse_listing(payload: Any, symbol: str) -> tuple[bool, str | None]:
    """(whether ``quotes[]`` holds exactly ``symbol``, that quote's long name, else its
    short name)."""
    quotes = payload.get("quotes") if isinstance(payload, dict) else None
    for quote in quotes if isinstance(quotes, list) else []:
        if isinstance(quote, dict) and str(quote.get("symbol") or "").upper() == symbol.upper():
            return True, text(quote.get("longname")) or text(quote.get("shortname"))
    return False, None


def symbol_news_listed(symbol: str) -> SymbolNews:
    """The ``listed_news`` fetcher (``/v2/news/{symbol}``): one search for the validated
    symbol asking for a few quotes and :data:`NEWS_COUNT` articles (cache policy ``news``);
    the articles Yahoo tagged with the symbol, in Yahoo's order, and whether the quotes list
    the symbol itself (so an unknown symbol can be told from one without news)."""
    def fetch() -> SymbolNews:
        payload = get_search(symbol, quotes_count=LISTING_QUOTES, news_count=NEWS_COUNT)
        listed, name = parse_listing(payload, symbol)
        return SymbolNews(symbol, listed, name, about(parse_news(payload), symbol))

    return yahoo_provider().cached(
        "symbol_news", {"q": symbol, "quotes": LISTING_QUOTES, "count": NEWS_COUNT}, fetch,
        "news", group="news")
