"""News: the articles for one symbol, or general market news (Yahoo Finance, through
:mod:`marketdata.capabilities.news`), as v1 News objects."""

from __future__ import annotations

import time
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.capabilities import news
from marketdata.errors import NotFound
from marketdata.formatting import relative_time
from marketdata.records.news import NewsItem


def news_item(item: NewsItem, now: float) -> dict[str, Any]:
    """The v1 News object; ``time`` is computed now, so cached articles age correctly."""
    return {"title": item.title, "link": item.link, "source": item.source,
            "img": item.img, "time": relative_time(item.published, now)}


def _shown(items: list[NewsItem], now: float) -> list[dict[str, Any]]:
    # `img` is required: articles without an image are left out (as the reference did).
    return [news_item(i, now) for i in items if i.img]


def news_for_symbol(symbol_text: str, now: float | None = None) -> list[dict[str, Any]]:
    """Articles tagged with the symbol, in Yahoo's order; 404 when there are none (and for a
    malformed symbol, which never reaches the upstream)."""
    symbol = require_symbol(symbol_text)
    shown = _shown(news.symbol_news(symbol), time.time() if now is None else now)
    if not shown:
        raise NotFound(f"No news found for {symbol}")
    return shown


def market_news(now: float | None = None) -> list[dict[str, Any]]:
    """General market news, newest first; ``[]`` when Yahoo has none to offer."""
    return _shown(news.general_news(), time.time() if now is None else now)
