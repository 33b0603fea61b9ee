"""Company profiles from one v10 quoteSummary call: ``assetProfile`` and ``summaryProfile``
(who the company is: sector, industry, country, address, description), ``fundProfile``
(a fund's family and category), ``price`` and ``quoteType`` (name, exchange, currency,
asset type, market capitalization).

Yahoo answers the modules it has for the symbol and leaves the others out: a fund has no
sector, industry or address (its assetProfile and summaryProfile carry only the
description), a company no fundProfile; every member reads the modules in order and is
None when none has it. An unknown symbol is Yahoo's 404 (NotFound).

The keyless source of the ``company_profile`` capability (:func:`company_profile`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marketdata.formatting import integer, mapping, number, text
from marketdata.providers.yahoo.quote_summary import fetch_quote_summary
from marketdata.records.companies import CompanyProfile

PROFILE_MODULES = ("assetProfile", "summaryProfile", "fundProfile", "price", "quoteType")
# A profile changes a few times a year, its market capitalization with the price: the
# analysis policy (1 h), as Alpha Vantage's overview.
POLICY = "analysis"


def _first(key: str, *modules: Mapping[str, Any]) -> str | None:
    for module in modules:
        found = text(module.get(key))
        if found is not None:
            return found
    return None


def one_line_address(profile: Mapping[str, Any]) -> str | None:
    """Street lines, city, then state and postal code, comma-separated as Yahoo's site
    shows them ("One Apple Park Way, Cupertino, CA 95014"); the country is a member of
    its own. None when Yahoo has no address."""
    region = " ".join(part for part in (text(profile.get("state")), text(profile.get("zip")))
                      if part)
    parts = [text(profile.get(key)) for key in ("address1", "address2", "address3", "city")]
    line = ", ".join(part for part in (*parts, region) if part)
    return line or None


def parse_company_profile(result: Mapping[str, Any], symbol: str) -> CompanyProfile:
    """quoteSummary's ``{module: body}`` -> the profile. ``name`` is price's (else
    quoteType's) longName, else shortName; ``exchange`` price's exchangeName (Yahoo's
    display name, "NasdaqGS"), else the exchange code; ``assetType`` Yahoo's quoteType
    (EQUITY, ETF, MUTUALFUND, ...); ``description`` the longBusinessSummary (a
    cryptocurrency's ``description``); ``employees`` fullTimeEmployees."""
    asset = mapping(result.get("assetProfile"))
    summary = mapping(result.get("summaryProfile"))
    fund = mapping(result.get("fundProfile"))
    price = mapping(result.get("price"))
    kind = mapping(result.get("quoteType"))
    company = asset if any(key in asset for key in ("sector", "address1", "city")) else summary
    return CompanyProfile(
        symbol=_first("symbol", price, kind) or symbol,
        name=_first("longName", price, kind) or _first("shortName", price, kind),
        description=(_first("longBusinessSummary", asset, summary)
                     or _first("description", asset, summary)),
        asset_type=_first("quoteType", kind, price),
        exchange=_first("exchangeName", price) or _first("exchange", price, kind),
        currency=_first("currency", price),
        country=_first("country", asset, summary),
        sector=_first("sector", asset, summary),
        industry=_first("industry", asset, summary),
        market_capitalization=number(price.get("marketCap")),
        website=_first("website", asset, summary),
        phone=_first("phone", asset, summary),
        address=one_line_address(company),
        employees=integer(asset.get("fullTimeEmployees", summary.get("fullTimeEmployees"))),
        fund_family=_first("family", fund),
        fund_category=_first("categoryName", fund),
    )


def company_profile(symbol: str) -> CompanyProfile:
    """The ``company_profile`` fetcher: the profile modules of a validated symbol in one
    cached quoteSummary call; NotFound when Yahoo has no such symbol."""
    result = fetch_quote_summary(symbol, PROFILE_MODULES, policy=POLICY, group="analysis")
    return parse_company_profile(result, symbol)
