"""v2 world news: articles about a company from the news archive, with sentiment, through
:mod:`marketdata.capabilities.news`."""

from __future__ import annotations

from apps.core.symbols import require_symbol
from marketdata.capabilities import news
from marketdata.records.news import WorldNewsItem


def world_news(symbol_text: str) -> list[WorldNewsItem]:
    """News items about a symbol, newest first. A malformed symbol is a 404 before any
    upstream call; an unknown one is the quote provider's 404."""
    return news.world_news(require_symbol(symbol_text))
