"""News: the articles about a symbol, the market's news, and the world's news about a
company with the sentiment of each headline.

Sources: Yahoo's search news for the first three, GDELT for the world's. Symbols come
validated (``apps.core.symbols.require_symbol``).
"""

from __future__ import annotations

from marketdata.capabilities.table import YAHOO, Source, declare
from marketdata.records.news import NewsItem, SymbolNews, WorldNewsItem

YAHOO_NEWS = "marketdata.providers.yahoo.news"


@declare("news", "News for a symbol (/v1/news?symbol={symbol})",
         Source("yahoo", f"{YAHOO} search news (the articles tagged with the symbol)",
                fetcher=f"{YAHOO_NEWS}:symbol_news"))
def symbol_news(symbol: str) -> list[NewsItem]:
    """The articles tagged with ``symbol``, in the source's order (``[]`` when none)."""


@declare("listed_news", "News for a symbol, unknown symbols told apart (/v2/news/{symbol})",
         Source("yahoo", f"{YAHOO} search news and quotes (the articles tagged with the "
                "symbol; the quotes say whether it exists)",
                fetcher=f"{YAHOO_NEWS}:symbol_news_listed"))
def listed_news(symbol: str) -> SymbolNews:
    """The articles tagged with ``symbol`` and whether the source lists the symbol itself
    (an unlisted symbol without articles is unknown)."""


@declare("general_news", "General market news (/v1/news, /v2/news)",
         Source("yahoo", f"{YAHOO} search news of the S&P 500, Dow Jones and Nasdaq Composite",
                fetcher=f"{YAHOO_NEWS}:general_news"))
def general_news() -> list[NewsItem]:
    """The market's news, newest first (``[]`` when none)."""


@declare("world_news", "World news (/v2/worldnews/news/{symbol})",
         Source("gdelt", "the GDELT DOC 2.0 API, sentiment scored locally",
                fetcher="marketdata.providers.gdelt:world_news"))
def world_news(symbol: str) -> list[WorldNewsItem]:
    """Recent articles about the company ``symbol`` names, newest first, each with a
    sentiment; NotFound when the symbol is unknown or has no name to search for."""
