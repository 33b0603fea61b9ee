"""v2 world news: articles about a company from the news archive, with sentiment."""

from __future__ import annotations

from typing import Any

from apps.core.symbols import require_symbol
from marketdata.providers import sources
from marketdata.providers.gdelt import fetch_world_news


def world_news(symbol_text: str) -> list[dict[str, Any]]:
    """News items about a symbol, newest first. A malformed symbol is a 404 before any
    upstream call; an unknown one is the quote provider's 404."""
    symbol = require_symbol(symbol_text)
    return sources.serve("world_news", {"gdelt": lambda: fetch_world_news(symbol)})
