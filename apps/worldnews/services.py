"""v2 world news: articles about a company from the news archive, with sentiment, through
:mod:`marketdata.capabilities.news`."""

from __future__ import annotations

from typing import Any

from apps.core.symbols import require_symbol
from marketdata.capabilities import news


def world_news(symbol_text: str) -> list[dict[str, Any]]:
    """News items about a symbol, newest first. A malformed symbol is a 404 before any
    upstream call; an unknown one is the quote provider's 404."""
    symbol = require_symbol(symbol_text)
    return [{"title": item.title, "link": item.link, "source": item.source, "img": item.img,
             "time": item.time, "sentiment": item.sentiment}
            for item in news.world_news(symbol)]
