"""GET /v1/sectors, /v1/sectors/symbol/{symbol}, /v1/sectors/details/{sector}: bodies,
404/422 bodies, upstream failures, caching and path safety.

The sector JSON has no recording; bodies come from the hand-written wire-shape payload of
the provider test. The symbol -> sector step uses the assetProfile recordings.
"""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlsplit

import pytest

from marketdata.providers.yahoo.sectors import SECTOR_NAMES
from tests.apps.payloads import FAILURES, QUOTE_SUMMARY_NOT_FOUND, fail_url
from tests.apps.test_malformed_symbols_api import MALFORMED
from tests.conftest import QUERY1, QUERY2, calls_to
from tests.marketdata.providers.test_yahoo_sectors import sector_payload

SECTORS_URL = f"{QUERY1}/v1/finance/sectors/"
ORDER = ["Technology", "Healthcare", "Financial Services", "Consumer Cyclical", "Industrials",
         "Consumer Defensive", "Energy", "Real Estate", "Utilities", "Basic Materials",
         "Communication Services"]
SECTOR_MESSAGE = ("Input should be 'Basic Materials', 'Communication Services', "
                  "'Consumer Cyclical', 'Consumer Defensive', 'Energy', 'Financial Services', "
                  "'Healthcare', 'Industrials', 'Real Estate', 'Technology' or 'Utilities'")
INVALID_SECTOR = {"detail": "Invalid request", "errors": {"sector": [SECTOR_MESSAGE]}}
UTILITIES = {"sector": "Utilities", "dayReturn": "-0.40%", "ytdReturn": "+8.21%",
             "yearReturn": "+15.55%", "threeYearReturn": "+0.00%",
             "fiveYearReturn": "-12.00%"}


def payload_for(key: str, position: int = 0) -> dict:
    """The hand-written body re-labelled for ``key``; the day change encodes the position so
    rows can be told apart."""
    payload = sector_payload()
    payload["data"].update(key=key, name=SECTOR_NAMES[key])
    payload["data"]["performance"]["regMarketChangePercent"] = {
        "raw": position / 1000, "fmt": f"{position / 10:.2f}%"}
    return payload


def mock_all(yahoo, skip: tuple[str, ...] = ()) -> None:
    for position, key in enumerate(SECTOR_NAMES):
        if key not in skip:
            yahoo.get(SECTORS_URL + key, payload_for(key, position))


def sector_calls(yahoo) -> list[str]:
    return [urlsplit(c.request.url).path.rsplit("/", 1)[-1]
            for c in calls_to(yahoo.mock, "/v1/finance/sectors/")]


# -- GET /v1/sectors ---------------------------------------------------------------------------
def test_all_sectors(api, yahoo):
    mock_all(yahoo)
    response = api.get("/v1/sectors")
    assert response.status_code == 200
    body = response.json()
    assert [row["sector"] for row in body] == ORDER
    assert [row["dayReturn"] for row in body] == [f"+{i / 10:.2f}%" for i in range(11)]
    assert body[8] == {**UTILITIES, "dayReturn": "+0.80%"}
    assert sorted(sector_calls(yahoo)) == sorted(SECTOR_NAMES)
    assert "no-store" not in response.get("Cache-Control", "")


def test_all_sectors_cached(api, yahoo):
    mock_all(yahoo)
    assert api.get("/v1/sectors").status_code == 200
    second = api.get("/v1/sectors")
    assert second.status_code == 200
    assert second["X-Cache"] == "HIT"
    assert len(sector_calls(yahoo)) == 11


def test_one_failing_sector_is_left_out(api, yahoo, logs):
    mock_all(yahoo, skip=("energy",))
    fail_url(yahoo.mock, SECTORS_URL + "energy", "yahoo_500")
    response = api.get("/v1/sectors")
    assert response.status_code == 200
    assert [row["sector"] for row in response.json()] == [s for s in ORDER if s != "Energy"]
    assert response["Cache-Control"] == "no-store"
    assert "sector left out" in logs.text()


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_all_sectors_failing(api, yahoo, kind):
    for key in SECTOR_NAMES:
        fail_url(yahoo.mock, SECTORS_URL + key, kind)
    response = api.get("/v1/sectors")
    status, code = FAILURES[kind]
    assert response.status_code == status
    body = response.json()
    assert set(body) == {"detail", "provider", "code"}
    assert body["provider"] == "yahoo"
    assert body["code"] == code


# -- GET /v1/sectors/details/{sector} ---------------------------------------------------------
def test_details(api, yahoo):
    yahoo.get(SECTORS_URL + "utilities", sector_payload())
    response = api.get("/v1/sectors/details/Utilities")
    assert response.status_code == 200
    assert response.json() == {
        **UTILITIES,
        "marketCap": "1.61T",
        "marketWeight": "2.35%",
        "industries": 6,
        "companies": 97,
        "topIndustries": ["Utilities - Regulated Electric: 61.23%",
                          "Utilities - Diversified: 18.11%",
                          "Utilities - Independent Power Producers: 7.89%",
                          "Utilities - Regulated Gas: 7.21%", "Utilities - Renewable: 4.12%",
                          "Utilities - Regulated Water: 1.44%"],
        # largest weight first, at most 10 of the 12 Yahoo sent
        "topCompanies": ["NEE", "CEG", "SO", "DUK", "AEP", "SRE", "D", "EXC", "PCG", "XEL"],
    }
    assert sector_calls(yahoo) == ["utilities"]


def test_details_caps_industries_at_ten(api, yahoo):
    payload = payload_for("technology")
    payload["data"]["industries"] += [
        {"key": f"ind-{i}", "name": f"Industry {i}", "marketWeight": {"raw": i / 1000}}
        for i in range(1, 9)]
    yahoo.get(SECTORS_URL + "technology", payload)
    body = api.get("/v1/sectors/details/Technology").json()
    assert len(body["topIndustries"]) == 10
    assert body["topIndustries"][0] == "Utilities - Regulated Electric: 61.23%"
    assert body["topIndustries"][-4:] == ["Industry 8: 0.80%", "Industry 7: 0.70%",
                                         "Industry 6: 0.60%", "Industry 5: 0.50%"]
    assert body["industries"] == 6  # Yahoo's own count is reported as is


def test_details_missing_values(api, yahoo):
    payload = payload_for("energy")
    del payload["data"]["performance"]["oneYearChangePercent"]
    payload["data"]["overview"] = {}
    yahoo.get(SECTORS_URL + "energy", payload)
    body = api.get("/v1/sectors/details/Energy").json()
    assert body["yearReturn"] == ""
    assert body["marketCap"] == ""
    assert body["marketWeight"] == ""
    assert body["companies"] == 0
    assert body["industries"] == 6


def test_details_url_encoded_name(api, yahoo):
    yahoo.get(SECTORS_URL + "basic-materials", payload_for("basic-materials"))
    response = api.get("/v1/sectors/details/Basic%20Materials")
    assert response.status_code == 200
    assert response.json()["sector"] == "Basic Materials"
    assert sector_calls(yahoo) == ["basic-materials"]


def test_details_cached(api, yahoo):
    yahoo.get(SECTORS_URL + "utilities", sector_payload())
    first = api.get("/v1/sectors/details/Utilities")
    assert first["X-Cache"] == "MISS"
    second = api.get("/v1/sectors/details/Utilities")
    assert second.json() == first.json()
    assert second["X-Cache"] == "HIT"
    assert len(sector_calls(yahoo)) == 1


@pytest.mark.parametrize("value", [
    "Foo", "technology", "TECHNOLOGY", "Basic%20materials", "Basic_Materials",
    "Real%20Estate%20", "Technology%2FUtilities", "Tech/nology", "..%2F..%2Fquote",
    quote("Énergie"), "A" * 500, "%00",
])
def test_details_invalid_sector_422(api, yahoo, value):
    response = api.get(f"/v1/sectors/details/{value}")
    assert response.status_code == 422, response.content
    assert response.json() == INVALID_SECTOR
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_details_upstream_failure(api, yahoo, kind):
    fail_url(yahoo.mock, SECTORS_URL + "technology", kind)
    response = api.get("/v1/sectors/details/Technology")
    status, code = FAILURES[kind]
    assert response.status_code == status
    assert response.json()["provider"] == "yahoo"
    assert response.json()["code"] == code


def test_details_unusable_body_502(api, yahoo):
    yahoo.get(SECTORS_URL + "technology", {"data": {"overview": {}}})
    response = api.get("/v1/sectors/details/Technology")
    assert response.status_code == 502
    assert response.json()["provider"] == "yahoo"


# -- GET /v1/sectors/symbol/{symbol} ----------------------------------------------------------
def test_sector_for_symbol(api, yahoo, recording):
    yahoo.summary("AAPL", recording("yahoo/v10-quoteSummary/assetProfile/AAPL.json"))
    yahoo.get(SECTORS_URL + "technology", payload_for("technology", 7))
    response = api.get("/v1/sectors/symbol/aapl")
    assert response.status_code == 200
    assert response.json() == {**UTILITIES, "sector": "Technology", "dayReturn": "+0.70%"}
    summary = calls_to(yahoo.mock, "/quoteSummary/")
    assert len(summary) == 1
    parts = urlsplit(summary[0].request.url)
    assert parts.path == "/v10/finance/quoteSummary/AAPL"
    assert parse_qs(parts.query)["modules"] == ["assetProfile,quoteType"]
    assert sector_calls(yahoo) == ["technology"]


def test_sector_for_symbol_non_us(api, yahoo, recording):
    yahoo.summary("OCDO.L", recording("yahoo/v10-quoteSummary/assetProfile/OCDO.L.json"))
    yahoo.get(SECTORS_URL + "consumer-defensive", payload_for("consumer-defensive"))
    response = api.get("/v1/sectors/symbol/OCDO.L")
    assert response.status_code == 200
    assert response.json()["sector"] == "Consumer Defensive"


def test_sector_for_symbol_by_sector_key(api, yahoo):
    yahoo.summary("XYZ", {"quoteSummary": {"result": [{"assetProfile": {
        "sector": "Tech (renamed)", "sectorKey": "technology"}}], "error": None}})
    yahoo.get(SECTORS_URL + "technology", payload_for("technology"))
    assert api.get("/v1/sectors/symbol/XYZ").json()["sector"] == "Technology"


@pytest.mark.parametrize(("symbol", "path"), [
    ("QQQ", "yahoo/v10-quoteSummary/assetProfile/QQQ.json"),
    ("BTC-USD", "yahoo/v10-quoteSummary/_all-modules/BTC-USD.json"),
])
def test_symbol_without_sector_404(api, yahoo, recording, symbol, path):
    yahoo.summary(symbol, recording(path))
    response = api.get(f"/v1/sectors/symbol/{symbol}")
    assert response.status_code == 404
    assert response.json() == {"detail": f"Sector for {symbol} not found."}
    assert sector_calls(yahoo) == []


def test_index_without_asset_profile_404(api, yahoo):
    yahoo.summary("%5EGSPC", {"quoteSummary": {"result": [{"quoteType": {
        "symbol": "^GSPC", "quoteType": "INDEX"}}], "error": None}})
    response = api.get("/v1/sectors/symbol/%5EGSPC")
    assert response.status_code == 404
    assert response.json() == {"detail": "Sector for ^GSPC not found."}


def test_unknown_symbol_404(api, yahoo):
    yahoo.summary("ZZZZ", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v1/sectors/symbol/ZZZZ")
    assert response.status_code == 404
    assert response.json() == {"detail": "Symbol ZZZZ not found"}
    assert sector_calls(yahoo) == []


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_sector_for_symbol_upstream_failure(api, yahoo, kind):
    fail_url(yahoo.mock, f"{QUERY2}/v10/finance/quoteSummary/AAPL", kind)
    response = api.get("/v1/sectors/symbol/AAPL")
    status, code = FAILURES[kind]
    assert response.status_code == status
    assert response.json()["code"] == code
    assert response.json()["provider"] == "yahoo"


@pytest.mark.parametrize("raw", [value for _, value in MALFORMED],
                         ids=[name for name, _ in MALFORMED])
def test_malformed_symbol_never_reaches_yahoo(api, yahoo, raw):
    response = api.get(f"/v1/sectors/symbol/{raw}")
    assert response.status_code in (404, 422), response.content
    body = response.json()
    assert set(body) == {"detail"}
    assert len(body["detail"]) < 200
    assert len(yahoo.mock.calls) == 0
