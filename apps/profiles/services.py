"""``GET /v2/company-profile/{symbol}``: the ``company_profile`` capability
(:mod:`marketdata.capabilities.companies`), Alpha Vantage's OVERVIEW when
``ALPHAVANTAGE_API_KEY`` is set (a refused key, a spent allowance, a failure or a symbol it
does not cover falls back), else Yahoo's quoteSummary profile modules; one record whichever
answered, shaped here into the members."""

from __future__ import annotations

from typing import Any

from apps.core.symbols import require_symbol
from apps.profiles.serializers import PROFILE_MEMBERS
from marketdata.capabilities import companies


def company_profile(symbol_text: str) -> dict[str, Any]:
    """``{symbol, name, description, assetType, exchange, currency, country, sector,
    industry, marketCapitalization, website, phone, address, employees, fundFamily,
    fundCategory}``."""
    profile = companies.company_profile(require_symbol(symbol_text))
    return dict(zip(PROFILE_MEMBERS, (
        profile.symbol, profile.name, profile.description, profile.asset_type,
        profile.exchange, profile.currency, profile.country, profile.sector,
        profile.industry, profile.market_capitalization, profile.website, profile.phone,
        profile.address, profile.employees, profile.fund_family, profile.fund_category),
        strict=True))
