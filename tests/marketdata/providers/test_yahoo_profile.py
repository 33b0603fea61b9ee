"""The Yahoo company-profile parser on every recording of its modules (assetProfile,
summaryProfile, price, quoteType), values exact."""

from __future__ import annotations

from typing import Any

import pytest

from marketdata.providers.yahoo.profile import one_line_address, parse_company_profile
from marketdata.providers.yahoo.quote_summary import parse_quote_summary
from marketdata.records.companies import CompanyProfile

QS = "yahoo/v10-quoteSummary"


def modules(recording: Any, module: str, symbol: str) -> dict[str, Any]:
    return parse_quote_summary(recording(f"{QS}/{module}/{symbol.replace('=', '_')}.json"))


def test_asset_profile_of_a_company(recording):
    result = modules(recording, "assetProfile", "AAPL")
    profile = parse_company_profile(result, "AAPL")
    asset = result["assetProfile"]
    assert profile == CompanyProfile(
        symbol="AAPL", description=asset["longBusinessSummary"], country="United States",
        sector="Technology", industry="Consumer Electronics",
        website="https://www.apple.com", phone="(408) 996-1010",
        address="One Apple Park Way, Cupertino, CA 95014", employees=150000)


def test_asset_profile_of_a_listing_outside_the_us(recording):
    profile = parse_company_profile(modules(recording, "assetProfile", "OCDO.L"), "OCDO.L")
    assert (profile.country, profile.sector, profile.industry) == (
        "United Kingdom", "Consumer Defensive", "Grocery Stores")
    assert profile.address == ("Buildings One and Two, Trident Place, Hatfield Business Park "
                               "Mosquito Way, Hatfield, AL10 9UL")
    assert profile.employees == 18869
    assert profile.website == "https://www.ocadogroup.com"


def test_asset_profile_of_a_fund_has_only_its_description(recording):
    result = modules(recording, "assetProfile", "QQQ")
    profile = parse_company_profile(result, "QQQ")
    assert profile.description == result["assetProfile"]["longBusinessSummary"]
    assert profile.description.startswith("To maintain the correspondence")
    assert profile == CompanyProfile(symbol="QQQ", description=profile.description)


def test_summary_profile_serves_when_asset_profile_is_absent(recording):
    result = modules(recording, "summaryProfile", "AAPL")
    profile = parse_company_profile(result, "AAPL")
    assert (profile.sector, profile.industry, profile.country, profile.employees) == (
        "Technology", "Consumer Electronics", "United States", 150000)
    assert profile.address == "One Apple Park Way, Cupertino, CA 95014"
    assert profile.description == result["summaryProfile"]["longBusinessSummary"]


@pytest.mark.parametrize(("symbol", "name", "kind", "exchange", "currency", "cap"), [
    ("AAPL", "Apple Inc.", "EQUITY", "NasdaqGS", "USD", 3688676720640),
    ("QQQ", "Invesco QQQ Trust", "ETF", "NasdaqGM", "USD", 206817771520),
    ("BTC-USD", None, "CRYPTOCURRENCY", None, "USD", None),
    ("EURUSD=X", None, "CURRENCY", None, None, None),
    ("0P000071W8.TO", None, "MUTUALFUND", None, "CAD", None),
])
def test_price_module(recording, symbol, name, kind, exchange, currency, cap):
    result = modules(recording, "price", symbol)
    price = result["price"]
    profile = parse_company_profile(result, symbol)
    assert profile.symbol == price["symbol"]
    assert profile.name == (price.get("longName") or price.get("shortName"))
    if name is not None:
        assert profile.name == name
    assert profile.asset_type == price["quoteType"] == kind
    assert profile.exchange == price["exchangeName"]
    if exchange is not None:
        assert profile.exchange == exchange
    assert profile.currency == price.get("currency")
    if currency is not None:
        assert profile.currency == currency
    assert profile.market_capitalization == price.get("marketCap")
    if cap is not None:
        assert profile.market_capitalization == cap
    assert profile.sector is profile.description is profile.address is None


@pytest.mark.parametrize(("symbol", "name", "kind", "exchange"), [
    ("AAPL", "Apple Inc.", "EQUITY", "NMS"),
    ("BTC-USD", "Bitcoin USD", "CRYPTOCURRENCY", "CCC"),
    ("QQQ", "Invesco QQQ Trust", "ETF", "NGM"),
])
def test_quote_type_module(recording, symbol, name, kind, exchange):
    profile = parse_company_profile(modules(recording, "quoteType", symbol), symbol)
    assert (profile.symbol, profile.name, profile.asset_type, profile.exchange) == (
        symbol, name, kind, exchange)
    assert profile.currency is None and profile.market_capitalization is None


def test_all_modules_of_a_fund_in_one_answer(recording):
    result = parse_quote_summary(recording(f"{QS}/_all-modules/QQQ.json"))
    profile = parse_company_profile(result, "QQQ")
    assert (profile.name, profile.asset_type, profile.fund_family, profile.fund_category) == (
        "Invesco QQQ Trust", "ETF", "Invesco", "Large Growth")
    assert profile.sector is None and profile.industry is None and profile.address is None


def test_address_without_parts_is_none():
    assert one_line_address({}) is None
    assert one_line_address({"city": "Hatfield", "zip": "AL10 9UL"}) == "Hatfield, AL10 9UL"
