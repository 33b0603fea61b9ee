"""Press releases of a company: Financial Modeling Prep with a key, else the 8-K
press-release exhibits on SEC EDGAR (the ``press_releases`` capability,
:mod:`marketdata.capabilities.companies`)."""

from __future__ import annotations

from typing import Any

from apps.core.symbols import require_symbol
from marketdata.capabilities import companies


def press_releases(symbol_text: str, limit: int) -> list[dict[str, Any]]:
    """``[{date, symbol, title, text}]``, newest first, at most ``limit``.

    With ``FMP_API_KEY`` set, FMP answers (a refused key or a failure falls back to
    EDGAR); when FMP has nothing for the symbol, EDGAR is asked too, so an unknown ticker
    is a 404 and a company without releases ``[]`` whichever source is configured.
    """
    symbol = require_symbol(symbol_text)
    return [{"date": r.date, "symbol": r.symbol, "title": r.title, "text": r.text}
            for r in companies.press_releases(symbol, limit)]
