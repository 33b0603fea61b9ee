"""Query declaration and response schema of ``GET /v2/company-profile/{symbol}``."""

from __future__ import annotations

from typing import Any

from apps.core.v2 import INTEGER, NUMBER, STRING, FieldsQuery, object_schema

# The reference's members, then this service's additions (Yahoo's profile has them; Alpha
# Vantage has website and address).
PROFILE_MEMBERS = ("symbol", "name", "description", "assetType", "exchange", "currency",
                   "country", "sector", "industry", "marketCapitalization", "website",
                   "phone", "address", "employees", "fundFamily", "fundCategory")


class V2CompanyProfileQuery(FieldsQuery):
    """``fields`` only."""


def _text(description: str) -> dict[str, Any]:
    return {**STRING, "description": description}


COMPANY_PROFILE_RESPONSE = object_schema({
    "symbol": {"type": "string", "description": "The symbol as the source writes it"},
    "name": _text("Company or fund name"),
    "description": _text("What the company does (a fund: its objective)"),
    "assetType": _text("The source's word for the kind of security: Yahoo's EQUITY, ETF, "
                       "MUTUALFUND, ...; Alpha Vantage's Common Stock, ETF, ..."),
    "exchange": _text("Where it is listed, as the source names it (Yahoo: NasdaqGS, "
                      "XETRA, ...; Alpha Vantage: NASDAQ, NYSE, ...)"),
    "currency": _text("Trading currency (ISO code; Yahoo's GBp for pence)"),
    "country": _text("Country of the company's head office"),
    "sector": _text("Sector; null for funds"),
    "industry": _text("Industry; null for funds"),
    "marketCapitalization": {**NUMBER, "description": "Market value in `currency`"},
    "website": _text("The company's website"),
    "phone": _text("Head office telephone (Yahoo only)"),
    "address": _text("Head office address on one line: street, city, state and postal "
                     "code, as the source writes them"),
    "employees": {**INTEGER, "description": "Full-time employees (Yahoo only)"},
    "fundFamily": _text("A fund's family (Yahoo's fundProfile); null for companies"),
    "fundCategory": _text("A fund's category (Yahoo's fundProfile); null for companies"),
}, "Company profile; `fields` selects members (a requested member is present even when "
   "null)", required=PROFILE_MEMBERS)
