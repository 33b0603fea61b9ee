"""``GET /v2/company-profile/{symbol}``: the ``company_profile`` capability
(:mod:`marketdata.capabilities.companies`), Alpha Vantage's OVERVIEW when
``ALPHAVANTAGE_API_KEY`` is set (a refused key, a spent allowance, a failure or a symbol it
does not cover falls back), else Yahoo's quoteSummary profile modules; one record whichever
answered (its members are declared on it)."""

from __future__ import annotations

from apps.core.symbols import require_symbol
from marketdata.capabilities import companies
from marketdata.records.companies import CompanyProfile


def company_profile(symbol_text: str) -> CompanyProfile:
    """The profile of ``symbol_text``, whichever source answered."""
    return companies.company_profile(require_symbol(symbol_text))
