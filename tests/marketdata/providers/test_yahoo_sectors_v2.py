"""v2 sectors and industries: parse_sector_profile, parse_industry and their fetchers.

No recording of Yahoo's ``/v1/finance/sectors/{key}`` or ``/v1/finance/industries/{slug}``
exists in ../shared/upstream (INDEX.md: finance-query's ``sector.json``/``industry.json``
are its own post-parse models), so the payloads are hand-written in the wire shape Yahoo
sends (``formatted=true`` ``{raw, fmt}`` numbers, bare counts, an "All Industries" row,
``topETFs``, ``headHtml``/``reportTitle`` reports); the values are invented. Every sandbox
body (each sector, each of the 151 industries) is parsed too.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers.yahoo.sectors import (
    industry_profile,
    parse_industry,
    parse_sector_profile,
    sector_profile,
)
from marketdata.records.members import as_json, member_names
from marketdata.records.sectors import (
    INDUSTRIES,
    INDUSTRY_SLUGS,
    SECTOR_ALIASES,
    SECTORS,
    IndustryProfile,
    SectorProfile,
    sector_key,
)
from tests.conftest import QUERY1, calls_to
from tests.marketdata.providers.test_yahoo_sectors import sector_payload


def _v(raw: float, fmt: str | None = None) -> dict[str, Any]:
    return {"raw": raw, "fmt": fmt or f"{raw * 100:.2f}%"}


REPORT = {"id": "ARGUS_123", "headHtml": "<b>Utilities</b> hold up",
          "provider": "Argus Research", "reportDate": "2026-11-20T00:00:00.000Z",
          "reportTitle": "Utilities hold up", "reportType": "Analyst Report",
          "targetPrice": 91.5, "targetPriceStatus": "Maintained",
          "investmentRating": "Bullish"}


def sector_body() -> dict[str, Any]:
    payload = sector_payload()
    payload["data"]["researchReports"] = [dict(REPORT)]
    return payload


def industry_payload() -> dict[str, Any]:
    """A hand-written industry body in Yahoo's wire shape (values invented)."""
    return {"data": {
        "name": "Semiconductors", "key": "semiconductors", "symbol": "^YH31130020",
        "sectorName": "Technology", "sectorKey": "technology",
        "overview": {"description": "Chip makers (test description).",
                     "companiesCount": 71, "messageBoardId": "finmb_industry_semis",
                     "marketCap": {"raw": 8.1e12, "fmt": "8.1T",
                                   "longFmt": "8,100,000,000,000"},
                     "marketWeight": _v(0.3121),
                     "employeeCount": {"raw": 712000, "fmt": "712k", "longFmt": "712,000"}},
        "performance": {"regMarketChangePercent": _v(0.0123), "ytdChangePercent": _v(0.412),
                        "oneYearChangePercent": _v(0.55), "threeYearChangePercent": _v(1.9),
                        "fiveYearChangePercent": _v(3.2)},
        "performanceOverviewBenchmark": {
            "name": "S&P 500", "regMarketChangePercent": _v(0.002),
            "ytdChangePercent": _v(0.11), "oneYearChangePercent": _v(0.14),
            "threeYearChangePercent": _v(0.4), "fiveYearChangePercent": _v(0.9)},
        "topCompanies": [
            {"symbol": "NVDA", "name": "NVIDIA Corporation", "lastPrice": _v(181.2, "181.20"),
             "marketCap": {"raw": 4.4e12, "fmt": "4.4T"}, "marketWeight": _v(0.54),
             "regMarketChangePercent": _v(0.021), "ytdReturn": _v(0.35), "rating": "Buy",
             "targetPrice": _v(210.0, "210.00")},
            {"name": "No symbol Inc."},
            {"symbol": "AVGO", "name": "Broadcom Inc.", "lastPrice": _v(340.1, "340.10"),
             "marketCap": {"raw": 1.6e12, "fmt": "1.6T"}, "marketWeight": _v(0.2),
             "regMarketChangePercent": _v(-0.004), "ytdReturn": {}, "rating": "Strong Buy",
             "targetPrice": _v(380.0, "380.00")},
        ],
        "topPerformingCompanies": [
            {"symbol": "ALAB", "name": "Astera Labs", "ytdReturn": _v(1.21),
             "lastPrice": _v(150.0, "150.00"), "targetPrice": _v(170.0, "170.00")}],
        "topGrowthCompanies": [
            {"symbol": "CRDO", "name": "Credo Technology", "ytdReturn": _v(0.8),
             "lastPrice": _v(120.0, "120.00"), "growthEstimate": _v(2.5, "250.00%")}],
        "researchReports": [dict(REPORT, targetPrice=None)],
    }}


# -- the tables ------------------------------------------------------------------------------
def test_the_industry_table_has_the_151_slugs_each_in_a_sector():
    assert len(INDUSTRY_SLUGS) == 151 == len(set(INDUSTRY_SLUGS))
    assert {"farm-products", "farm-heavy-construction-machinery", "oil-gas-ep",
            "closed-end-fund-foreign", "exchange-traded-fund"} <= set(INDUSTRIES)
    assert {sector for _, sector in INDUSTRIES.values()} == set(SECTORS)
    assert all(slug == slug.lower() and " " not in slug for slug in INDUSTRY_SLUGS)


def test_sector_aliases_name_sectors():
    assert len(SECTORS) == 11 and set(SECTOR_ALIASES.values()) <= set(SECTORS)
    assert sector_key("tech") == "technology" and sector_key("energy") == "energy"


# -- parse_sector_profile ------------------------------------------------------------------
def test_sector_members_renamed_and_numbers_kept_as_sent():
    members = as_json(parse_sector_profile(sector_body(), "utilities"))
    assert tuple(members) == member_names(SectorProfile)
    assert members["name"] == "Utilities" and members["symbol"] == "^YH207"
    assert members["overview"] == {
        "companiesCount": 97,
        "marketCap": {"raw": 1_612_345_678_901.0, "fmt": "1.612T",
                      "longFmt": "1,612,345,678,901"},
        "description": "Electric, gas and water utilities (test description).",
        "industriesCount": 6, "marketWeight": {"raw": 0.02347, "fmt": "2.35%"},
        "employeeCount": {"raw": 401234, "fmt": "401.23k", "longFmt": "401,234"}}
    assert members["performance"]["dayChangePercent"] == _v(-0.004)
    assert members["benchmark"] == {
        "dayChangePercent": _v(0.002), "ytdChangePercent": _v(0.05),
        "oneYearChangePercent": _v(0.2), "threeYearChangePercent": _v(0.3),
        "fiveYearChangePercent": _v(0.8)}
    assert members["benchmarkName"] == "S&P 500"
    assert members["topCompanies"][0] == {
        "symbol": "NEE", "name": "NEE Corp", "marketCap": _v(5.0e11, "500B"),
        "marketWeight": _v(0.1301), "lastPrice": _v(101.5, "101.50"),
        "targetPrice": _v(120.0, "120.00"), "dayChangePercent": _v(0.004),
        "ytdReturn": _v(0.12), "rating": "Buy"}
    assert [c["symbol"] for c in members["topCompanies"]][:3] == ["NEE", "SO", "DUK"]
    assert members["topEtfs"] == [{
        "symbol": "XLU", "name": "Utilities Fund", "netAssets": _v(1.7e10, "17B"),
        "expenseRatio": _v(0.0009), "lastPrice": _v(80.1, "80.10"), "ytdReturn": _v(0.08)}]
    assert members["topMutualFunds"] == []
    # "All Industries" (no key) is the sector itself, not an industry.
    assert [i["key"] for i in members["industries"]][:2] == [
        "utilities-regulated-electric", "utilities-renewable"]
    assert len(members["industries"]) == 6
    assert members["researchReports"] == [{
        "id": "ARGUS_123", "headline": "<b>Utilities</b> hold up",
        "provider": "Argus Research", "reportDate": "2026-11-20T00:00:00.000Z",
        "reportTitle": "Utilities hold up", "reportType": "Analyst Report",
        "targetPrice": 91.5, "targetPriceStatus": "Maintained",
        "investmentRating": "Bullish"}]


def test_sector_missing_members_are_null():
    payload = sector_body()
    data = payload["data"]
    for name in ("performanceOverviewBenchmark", "topETFs", "overview"):
        del data[name]
    data["performance"]["ytdChangePercent"] = {}
    members = as_json(parse_sector_profile(payload, "utilities"))
    assert members["benchmark"] is None and members["benchmarkName"] is None
    assert members["overview"] is None and members["topEtfs"] == []
    assert members["performance"]["ytdChangePercent"] is None


@pytest.mark.parametrize("payload", [{}, {"data": None}, {"data": {}}, [], "x"])
def test_a_body_without_data_is_a_502(payload):
    with pytest.raises(UpstreamBadResponse):
        parse_sector_profile(payload, "utilities")
    with pytest.raises(UpstreamBadResponse):
        parse_industry(payload, "semiconductors")


# -- parse_industry ------------------------------------------------------------------------
def test_industry_members_renamed():
    members = as_json(parse_industry(industry_payload(), "semiconductors"))
    assert tuple(members) == member_names(IndustryProfile)
    assert (members["name"], members["key"], members["symbol"], members["sectorName"],
            members["sectorKey"]) == ("Semiconductors", "semiconductors", "^YH31130020",
                                      "Technology", "technology")
    assert members["overview"] == {
        "description": "Chip makers (test description).", "companiesCount": 71,
        "marketCap": {"raw": 8.1e12, "fmt": "8.1T", "longFmt": "8,100,000,000,000"},
        "marketWeight": _v(0.3121),
        "employeeCount": {"raw": 712000, "fmt": "712k", "longFmt": "712,000"}}
    assert members["performance"] == {
        "dayChangePercent": _v(0.0123), "ytdChangePercent": _v(0.412),
        "oneYearChangePercent": _v(0.55), "threeYearChangePercent": _v(1.9),
        "fiveYearChangePercent": _v(3.2)}
    assert members["benchmark"]["name"] == "S&P 500"
    assert members["benchmark"]["dayChangePercent"] == _v(0.002)
    # The row without a symbol is left out; an empty {} number is null.
    assert [c["symbol"] for c in members["topCompanies"]] == ["NVDA", "AVGO"]
    assert members["topCompanies"][1]["ytdReturn"] is None
    assert members["topCompanies"][0]["dayChangePercent"] == _v(0.021)
    assert members["topPerformingCompanies"] == [{
        "symbol": "ALAB", "name": "Astera Labs", "lastPrice": _v(150.0, "150.00"),
        "ytdReturn": _v(1.21), "targetPrice": _v(170.0, "170.00")}]
    assert members["topGrowthCompanies"] == [{
        "symbol": "CRDO", "name": "Credo Technology", "lastPrice": _v(120.0, "120.00"),
        "ytdReturn": _v(0.8), "growthEstimate": _v(2.5, "250.00%")}]
    assert members["researchReports"] == [{
        "id": "ARGUS_123", "title": "Utilities hold up", "provider": "Argus Research",
        "reportDate": "2026-11-20T00:00:00.000Z", "reportType": "Analyst Report",
        "investmentRating": "Bullish", "targetPrice": None,
        "targetPriceStatus": "Maintained"}]


def test_industry_without_its_sector_takes_the_tables():
    payload = industry_payload()
    del payload["data"]["sectorName"], payload["data"]["sectorKey"]
    members = as_json(parse_industry(payload, "semiconductors"))
    assert (members["sectorName"], members["sectorKey"]) == ("Technology", "technology")


# -- every sandbox body parses ---------------------------------------------------------------
def _rendered(body: dict[str, Any]) -> dict[str, Any]:
    from marketdata.sandbox.yahoo import fmt

    return {"data": fmt.render(body, True)}


NOW = 1_790_000_000


@pytest.mark.parametrize("key", SECTORS)
def test_every_sandbox_sector_parses(key):
    from marketdata.sandbox.yahoo.sectors import sector_body as sandbox_sector

    members = as_json(parse_sector_profile(_rendered(sandbox_sector(key, NOW)), key))
    assert members["key"] == key and members["topCompanies"] and members["industries"]
    assert all(value is not None for value in members["performance"].values())
    assert all(set(r) >= {"id", "headline", "provider"} for r in members["researchReports"])


def test_every_sandbox_industry_parses():
    from marketdata.sandbox.yahoo.sectors import industry_body

    for slug in INDUSTRY_SLUGS:
        members = as_json(parse_industry(_rendered(industry_body(slug, NOW)), slug))
        assert members["key"] == slug and members["sectorKey"] == INDUSTRIES[slug][1], slug
        assert members["topCompanies"] and members["topPerformingCompanies"], slug
        assert members["topGrowthCompanies"] and members["benchmark"]["name"], slug


# -- the fetchers ----------------------------------------------------------------------------
def test_sector_fetcher_sends_the_language_and_caches_per_language(yahoo):
    yahoo.get(f"{QUERY1}/v1/finance/sectors/utilities", sector_body())
    first = sector_profile("utilities")
    assert sector_profile("utilities") == first
    sector_profile("utilities", "de-DE")
    calls = calls_to(yahoo.mock, "/v1/finance/sectors/utilities")
    assert len(calls) == 2
    queries = [parse_qs(urlsplit(c.request.url).query) for c in calls]
    assert [q["lang"] for q in queries] == [["en-US"], ["de-DE"]]
    assert queries[0]["region"] == ["US"] and queries[0]["formatted"] == ["true"]


def test_industry_fetcher_url_and_404(yahoo):
    yahoo.get(f"{QUERY1}/v1/finance/industries/semiconductors", industry_payload())
    yahoo.get(f"{QUERY1}/v1/finance/industries/coal",
              {"finance": {"result": None, "error": {"code": "Not Found",
                                                     "description": "Industry not found"}}},
              status=404)
    assert industry_profile("semiconductors").key == "semiconductors"
    with pytest.raises(NotFound, match="no industry 'coal'"):
        industry_profile("coal")
    with pytest.raises(NotFound):
        industry_profile("not-an-industry")
    assert not calls_to(yahoo.mock, "not-an-industry")


def test_the_parsed_body_is_not_the_payload():
    payload = industry_payload()
    before = copy.deepcopy(payload)
    parse_industry(payload, "semiconductors")
    assert payload == before


def test_the_capability_rows_name_these_fetchers(yahoo):
    from marketdata.capabilities import sectors, table

    assert table.CAPABILITIES["sector_profiles"].sources[0].fetch_function() is sector_profile
    assert table.CAPABILITIES["industries"].sources[0].fetch_function() is industry_profile
    yahoo.get(f"{QUERY1}/v1/finance/industries/semiconductors", industry_payload())
    assert sectors.industry_profile("semiconductors", "fr-FR").key == "semiconductors"
    (call,) = calls_to(yahoo.mock, "/v1/finance/industries/semiconductors")
    assert "lang=fr-FR" in call.request.url
