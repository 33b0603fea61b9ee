"""GET /v2/sectors/{sector} and GET /v2/industries/{industry}.

No recording of these Yahoo endpoints exists (see the parser tests in
tests/marketdata/providers/test_yahoo_sectors_v2.py), so the exact values come from the
hand-written wire-shape payloads there.
"""

from __future__ import annotations

import pytest

from marketdata.records.members import member_names
from marketdata.records.sectors import (
    INDUSTRY_SLUGS,
    SECTOR_ALIASES,
    SECTORS,
    IndustryProfile,
    SectorProfile,
)
from tests.apps.payloads import FAILURES, QUERY1, fail_url
from tests.conftest import calls_to
from tests.marketdata.providers.test_yahoo_sectors_v2 import industry_payload, sector_body

SECTOR_URL = f"{QUERY1}/v1/finance/sectors"
INDUSTRY_URL = f"{QUERY1}/v1/finance/industries"


@pytest.fixture
def utilities(yahoo):
    yahoo.get(f"{SECTOR_URL}/utilities", sector_body())
    return yahoo


@pytest.fixture
def semis(yahoo):
    yahoo.get(f"{INDUSTRY_URL}/semiconductors", industry_payload())
    return yahoo


# -- sectors ---------------------------------------------------------------------------------
def test_sector_values_raw_by_default(api, utilities):
    response = api.get("/v2/sectors/utilities")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == list(member_names(SectorProfile))
    assert (body["name"], body["symbol"], body["key"]) == ("Utilities", "^YH207", "utilities")
    assert body["overview"] == {
        "companiesCount": 97, "marketCap": 1_612_345_678_901.0,
        "description": "Electric, gas and water utilities (test description).",
        "industriesCount": 6, "marketWeight": 0.02347, "employeeCount": 401234}
    assert body["performance"] == {
        "dayChangePercent": -0.004, "ytdChangePercent": 0.0821, "oneYearChangePercent": 0.1555,
        "threeYearChangePercent": 0.0, "fiveYearChangePercent": -0.12}
    assert body["benchmark"] == {
        "dayChangePercent": 0.002, "ytdChangePercent": 0.05, "oneYearChangePercent": 0.2,
        "threeYearChangePercent": 0.3, "fiveYearChangePercent": 0.8}
    assert body["benchmarkName"] == "S&P 500"
    assert body["topCompanies"][0] == {
        "symbol": "NEE", "name": "NEE Corp", "marketCap": 5.0e11, "marketWeight": 0.1301,
        "lastPrice": 101.5, "targetPrice": 120.0, "dayChangePercent": 0.004,
        "ytdReturn": 0.12, "rating": "Buy"}
    assert len(body["topCompanies"]) == 12
    assert body["topEtfs"] == [{"symbol": "XLU", "name": "Utilities Fund",
                                "netAssets": 1.7e10, "expenseRatio": 0.0009,
                                "lastPrice": 80.1, "ytdReturn": 0.08}]
    assert body["topMutualFunds"] == []
    assert body["industries"][0] == {
        "symbol": "^YH90028", "key": "utilities-regulated-electric",
        "name": "Utilities - Regulated Electric", "marketWeight": 0.6123,
        "dayChangePercent": 0.001, "ytdReturn": 0.05}
    assert [i["name"] for i in body["industries"]][-1] == "Utilities - Regulated Water"
    assert body["researchReports"] == [{
        "id": "ARGUS_123", "headline": "<b>Utilities</b> hold up",
        "provider": "Argus Research", "reportDate": "2026-11-20T00:00:00.000Z",
        "reportTitle": "Utilities hold up", "reportType": "Analyst Report",
        "targetPrice": 91.5, "targetPriceStatus": "Maintained",
        "investmentRating": "Bullish"}]
    (call,) = calls_to(utilities.mock, "/v1/finance/sectors/utilities")
    assert "lang=en-US" in call.request.url and "region=US" in call.request.url


@pytest.mark.parametrize(("value", "expected"), [
    ("pretty", "1.612T"), ("FMT", "1.612T"),
    ("both", {"raw": 1_612_345_678_901.0, "fmt": "1.612T", "longFmt": "1,612,345,678,901"}),
    ("Full", {"raw": 1_612_345_678_901.0, "fmt": "1.612T", "longFmt": "1,612,345,678,901"}),
    ("raw", 1_612_345_678_901.0), ("anything", 1_612_345_678_901.0),
])
def test_sector_format_is_lenient(api, utilities, value, expected):
    body = api.get(f"/v2/sectors/utilities?format={value}").json()
    assert body["overview"]["marketCap"] == expected
    assert body["overview"]["companiesCount"] == 97  # a bare count stays a number


def test_sector_pretty_percent_strings(api, utilities):
    body = api.get("/v2/sectors/utilities?format=pretty").json()
    assert body["performance"]["dayChangePercent"] == "-0.40%"
    assert body["topCompanies"][0]["lastPrice"] == "101.50"


def test_sector_fields_and_alias(api, utilities):
    response = api.get("/v2/sectors/utility?fields=name,benchmarkName,nope")
    assert response.status_code == 200
    assert response.json() == {"name": "Utilities", "benchmarkName": "S&P 500"}


def test_sector_language_is_sent_and_keys_the_cache(api, utilities):
    assert api.get("/v2/sectors/utilities?lang=de-DE").status_code == 200
    assert api.get("/v2/sectors/utilities").status_code == 200
    urls = [c.request.url for c in calls_to(utilities.mock, "/v1/finance/sectors/utilities")]
    assert len(urls) == 2 and "lang=de-DE" in urls[0] and "lang=en-US" in urls[1]


@pytest.mark.parametrize("path", [
    "/v2/sectors/Technology", "/v2/sectors/tech-nology", "/v2/sectors/utilities?format=",
    "/v2/sectors/utilities?lang=", "/v2/sectors/utilities?lang=not a tag",
    "/v2/industries/Semiconductors", "/v2/industries/airline",
    "/v2/industries/farm-products-heavy-construction-machinery",
    "/v2/industries/semiconductors?format=", "/v2/industries/semiconductors?lang=%20",
])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, path):
    response = api.get(path)
    assert response.status_code == 400, response.content
    assert response.json()["status"] == 400
    assert not calls_to(yahoo.mock, "/v1/finance/")


def test_unknown_sector_names_the_choices(api, yahoo):
    body = api.get("/v2/sectors/nope").json()
    assert body["error"].startswith("sector: Input should be 'technology', ")
    assert "'realestate' or 'utility'" in body["error"]


def test_yahoo_404_is_a_404(api, yahoo):
    not_found = {"finance": {"result": None, "error": {"code": "Not Found",
                                                       "description": "Not found"}}}
    yahoo.get(f"{SECTOR_URL}/energy", not_found, status=404)
    yahoo.get(f"{INDUSTRY_URL}/coal", not_found, status=404)
    for path, message in [("/v2/sectors/energy", "Yahoo Finance has no sector 'energy'"),
                          ("/v2/industries/coal", "Yahoo Finance has no industry 'coal'")]:
        response = api.get(path)
        assert response.status_code == 404
        assert response.json() == {"error": message, "status": 404}


def test_a_body_without_data_is_a_502(api, yahoo):
    yahoo.get(f"{SECTOR_URL}/energy", {"data": None})
    response = api.get("/v2/sectors/energy")
    assert response.status_code == 502 and response.json()["provider"] == "yahoo"


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, f"{SECTOR_URL}/technology", kind)
    fail_url(yahoo.mock, f"{INDUSTRY_URL}/semiconductors", kind)
    status, _ = FAILURES[kind]
    for path in ("/v2/sectors/tech", "/v2/industries/semiconductors"):
        response = api.get(path)
        assert response.status_code == status, path
        body = response.json()
        assert body["status"] == status and body["provider"] == "yahoo" and body["error"]


# -- industries ------------------------------------------------------------------------------
def test_industry_values(api, semis):
    response = api.get("/v2/industries/semiconductors")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == list(member_names(IndustryProfile))
    assert body["overview"] == {"description": "Chip makers (test description).",
                                "companiesCount": 71, "marketCap": 8.1e12,
                                "marketWeight": 0.3121, "employeeCount": 712000}
    assert body["performance"]["dayChangePercent"] == 0.0123
    assert body["benchmark"] == {
        "name": "S&P 500", "dayChangePercent": 0.002, "ytdChangePercent": 0.11,
        "oneYearChangePercent": 0.14, "threeYearChangePercent": 0.4,
        "fiveYearChangePercent": 0.9}
    assert body["topCompanies"] == [
        {"symbol": "NVDA", "name": "NVIDIA Corporation", "lastPrice": 181.2,
         "marketCap": 4.4e12, "marketWeight": 0.54, "dayChangePercent": 0.021,
         "ytdReturn": 0.35, "rating": "Buy", "targetPrice": 210.0},
        {"symbol": "AVGO", "name": "Broadcom Inc.", "lastPrice": 340.1, "marketCap": 1.6e12,
         "marketWeight": 0.2, "dayChangePercent": -0.004, "ytdReturn": None,
         "rating": "Strong Buy", "targetPrice": 380.0}]
    assert body["topPerformingCompanies"] == [{"symbol": "ALAB", "name": "Astera Labs",
                                               "lastPrice": 150.0, "ytdReturn": 1.21,
                                               "targetPrice": 170.0}]
    assert body["topGrowthCompanies"] == [{"symbol": "CRDO", "name": "Credo Technology",
                                           "lastPrice": 120.0, "ytdReturn": 0.8,
                                           "growthEstimate": 2.5}]
    assert body["researchReports"][0]["title"] == "Utilities hold up"


def test_industry_format_and_fields(api, semis):
    body = api.get("/v2/industries/semiconductors?format=pretty&fields=sectorKey,"
                   "topGrowthCompanies").json()
    assert body == {"sectorKey": "technology", "topGrowthCompanies": [{
        "symbol": "CRDO", "name": "Credo Technology", "lastPrice": "120.00",
        "ytdReturn": "80.00%", "growthEstimate": "250.00%"}]}


# -- the sandbox -----------------------------------------------------------------------------
@pytest.mark.parametrize("sector", [*SECTORS, *SECTOR_ALIASES])
def test_every_sector_through_the_sandbox(api, sandbox_upstream, sector):
    response = api.get(f"/v2/sectors/{sector}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == list(member_names(SectorProfile))
    assert body["key"] == SECTOR_ALIASES.get(sector, sector)
    assert body["topCompanies"] and body["industries"] and body["researchReports"]
    assert isinstance(body["performance"]["dayChangePercent"], float)


def test_the_sandbox_sector_lists_its_equities_and_etf(api, sandbox_upstream):
    tech = api.get("/v2/sectors/technology").json()
    assert "AAPL" in [c["symbol"] for c in tech["topCompanies"]]
    assert tech["topEtfs"][0]["symbol"] == "XLK"


def test_every_industry_through_the_sandbox(api, sandbox_upstream):
    for slug in INDUSTRY_SLUGS:
        response = api.get(f"/v2/industries/{slug}")
        assert response.status_code == 200, (slug, response.content)
        body = response.json()
        assert list(body) == list(member_names(IndustryProfile)), slug
        assert body["key"] == slug and body["topCompanies"], slug
        assert body["topPerformingCompanies"] and body["topGrowthCompanies"], slug


def test_sector_industry_keys_are_industry_paths_in_the_sandbox(api, sandbox_upstream):
    body = api.get("/v2/sectors/energy").json()
    keys = [i["key"] for i in body["industries"]]
    assert "oil-gas-ep" in keys
    response = api.get("/v2/industries/oil-gas-ep?format=both")
    assert response.status_code == 200
    assert set(response.json()["performance"]["ytdChangePercent"]) >= {"raw", "fmt"}


def test_the_openapi_paths_list_their_values(api):
    document = api.get("/openapi.json").json()
    for path, name, values in [("/v2/sectors/{sector}", "sector", [*SECTORS, *SECTOR_ALIASES]),
                               ("/v2/industries/{industry}", "industry", list(INDUSTRY_SLUGS))]:
        (param,) = [p for p in document["paths"][path]["get"]["parameters"]
                    if p["name"] == name]
        assert param["in"] == "path" and param["schema"]["enum"] == values


def test_every_industry_a_sector_names_is_a_path(api, sandbox_upstream):
    """A client can follow each `industries[].key` of every sector to its industry."""
    for sector in SECTORS:
        body = api.get(f"/v2/sectors/{sector}?fields=industries").json()
        keys = [row["key"] for row in body["industries"]]
        assert keys and set(keys) <= set(INDUSTRY_SLUGS), (sector,
                                                            set(keys) - set(INDUSTRY_SLUGS))
    assert api.get("/v2/industries/airlines?fields=name,sectorKey").json() == {
        "name": "Airlines", "sectorKey": "industrials"}
