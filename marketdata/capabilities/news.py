"""News: the articles about a symbol, the market's news, and the world's news about a
company with the sentiment of each headline.

Sources (the ``news``, ``listed_news``, ``general_news`` and ``world_news`` rows of
:mod:`marketdata.capabilities.table`): Yahoo's search news for the first three, GDELT for
the world's. Symbols come validated (``apps.core.symbols.require_symbol``).
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.records.news import NewsItem, SymbolNews, WorldNewsItem


def symbol_news(symbol: str) -> list[NewsItem]:
    """The articles tagged with ``symbol``, in the source's order (``[]`` when none)."""
    items: list[NewsItem] = call("news", symbol)
    return items


def listed_news(symbol: str) -> SymbolNews:
    """The articles tagged with ``symbol`` and whether the source lists the symbol itself
    (an unlisted symbol without articles is unknown)."""
    found: SymbolNews = call("listed_news", symbol)
    return found


def general_news() -> list[NewsItem]:
    """The market's news, newest first (``[]`` when none)."""
    items: list[NewsItem] = call("general_news")
    return items


def world_news(symbol: str) -> list[WorldNewsItem]:
    """Recent articles about the company ``symbol`` names, newest first, each with a
    sentiment; NotFound when the symbol is unknown or has no name to search for."""
    items: list[WorldNewsItem] = call("world_news", symbol)
    return items
