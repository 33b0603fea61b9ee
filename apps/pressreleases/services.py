"""Press releases of a company: Financial Modeling Prep with a key, else the 8-K
press-release exhibits on SEC EDGAR (the ``press_releases`` capability,
:mod:`marketdata.capabilities.companies`)."""

from __future__ import annotations

from apps.core.symbols import require_symbol
from marketdata.capabilities import companies
from marketdata.records.companies import PressRelease


def press_releases(symbol_text: str, limit: int) -> list[PressRelease]:
    """The releases, newest first, at most ``limit``.

    With ``FMP_API_KEY`` set, FMP answers (a refused key or a failure falls back to
    EDGAR); when FMP has nothing for the symbol, EDGAR is asked too, so an unknown ticker
    is a 404 and a company without releases ``[]`` whichever source is configured.
    """
    return companies.press_releases(require_symbol(symbol_text), limit)
