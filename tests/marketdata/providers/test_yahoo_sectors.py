"""v1 finance/sectors/{key}: parse_sector and fetch_sector.

No recording of this endpoint exists in ../shared/upstream, so the payloads are written here
by hand in the wire shape Yahoo sends (``{"data": {...}}``, ``formatted=true`` numbers as
``{raw, fmt}``, bare integer counts, an "All Industries" aggregate row first); the values
are invented.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers.yahoo.sectors import (
    SECTOR_KEYS,
    SECTOR_NAMES,
    fetch_sector,
    parse_sector,
)
from tests.conftest import QUERY1, calls_to


def _v(raw: float, fmt: str | None = None) -> dict[str, Any]:
    return {"raw": raw, "fmt": fmt or f"{raw * 100:.2f}%"}


def _perf(day: float, ytd: float, one: float, three: float, five: float) -> dict[str, Any]:
    return {"regMarketChangePercent": _v(day), "ytdChangePercent": _v(ytd),
            "oneYearChangePercent": _v(one), "threeYearChangePercent": _v(three),
            "fiveYearChangePercent": _v(five)}


def _industry(key: str, name: str, weight: float) -> dict[str, Any]:
    return {"key": key, "name": name, "symbol": f"^YH9{len(key):04d}",
            "marketWeight": _v(weight), "regMarketChangePercent": _v(0.001),
            "ytdReturn": _v(0.05)}


def _company(symbol: str, weight: float) -> dict[str, Any]:
    return {"symbol": symbol, "name": f"{symbol} Corp", "rating": "Buy",
            "lastPrice": _v(101.5, "101.50"), "targetPrice": _v(120.0, "120.00"),
            "marketCap": _v(5.0e11, "500B"), "marketWeight": _v(weight),
            "regMarketChangePercent": _v(0.004), "ytdReturn": _v(0.12)}


def sector_payload(key: str = "utilities") -> dict[str, Any]:
    """A hand-written sector body in Yahoo's wire shape (values invented)."""
    return {"data": {
        "name": SECTOR_NAMES[key], "key": key, "symbol": "^YH207",
        "overview": {
            "companiesCount": 97,
            "marketCap": {"raw": 1_612_345_678_901.0, "fmt": "1.612T",
                          "longFmt": "1,612,345,678,901"},
            "messageBoardId": "finmb_sector_utilities",
            "description": "Electric, gas and water utilities (test description).",
            "industriesCount": 6,
            "marketWeight": {"raw": 0.02347, "fmt": "2.35%"},
            "employeeCount": {"raw": 401234, "fmt": "401.23k", "longFmt": "401,234"},
        },
        "performance": _perf(-0.004, 0.0821, 0.1555, 0.0, -0.12),
        "performanceOverviewBenchmark": {"name": "S&P 500",
                                         **_perf(0.002, 0.05, 0.2, 0.3, 0.8)},
        "topETFs": [{"symbol": "XLU", "name": "Utilities Fund", "netAssets": _v(1.7e10, "17B"),
                     "expenseRatio": _v(0.0009), "lastPrice": _v(80.1, "80.10"),
                     "ytdReturn": _v(0.08)}],
        "topMutualFunds": [],
        "topCompanies": [_company(s, w) for s, w in (
            ("NEE", 0.1301), ("SO", 0.0702), ("DUK", 0.0655), ("CEG", 0.0811),
            ("AEP", 0.041), ("SRE", 0.039), ("D", 0.038), ("EXC", 0.03), ("PCG", 0.029),
            ("XEL", 0.028), ("ED", 0.027), ("PEG", 0.026))],
        "industries": [
            {"name": "All Industries", "marketWeight": _v(1.0),
             "regMarketChangePercent": _v(-0.004), "ytdReturn": _v(0.0821)},
            _industry("utilities-regulated-electric", "Utilities - Regulated Electric",
                      0.6123),
            _industry("utilities-renewable", "Utilities - Renewable", 0.0412),
            _industry("utilities-diversified", "Utilities - Diversified", 0.1811),
            _industry("utilities-regulated-gas", "Utilities - Regulated Gas", 0.0721),
            _industry("utilities-independent-power-producers",
                      "Utilities - Independent Power Producers", 0.0789),
            _industry("utilities-regulated-water", "Utilities - Regulated Water", 0.0144),
        ],
        "researchReports": [],
    }}


def _unwrap(value: Any) -> Any:
    """The same body with bare numbers (what formatted=false, or a re-serialiser, sends)."""
    if isinstance(value, dict):
        if "raw" in value and "fmt" in value:
            return value["raw"]
        return {k: _unwrap(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    return value


# -- parse_sector -------------------------------------------------------------------------
def test_parse_formatted_body():
    data = parse_sector(sector_payload(), "utilities")
    assert data.key == "utilities"
    assert data.name == "Utilities"
    assert (data.day_change, data.ytd_change, data.one_year_change, data.three_year_change,
            data.five_year_change) == (-0.004, 0.0821, 0.1555, 0.0, -0.12)
    assert data.market_cap == 1_612_345_678_901.0
    assert data.market_weight == 0.02347
    assert data.industries_count == 6
    assert data.companies_count == 97
    # "All Industries" is Yahoo's aggregate row, not an industry; largest weight first
    assert [(i.name, i.weight) for i in data.industries] == [
        ("Utilities - Regulated Electric", 0.6123), ("Utilities - Diversified", 0.1811),
        ("Utilities - Independent Power Producers", 0.0789),
        ("Utilities - Regulated Gas", 0.0721), ("Utilities - Renewable", 0.0412),
        ("Utilities - Regulated Water", 0.0144)]
    # sorted by market weight: CEG (8.11%) ahead of SO and DUK
    assert data.top_companies[:5] == ["NEE", "CEG", "SO", "DUK", "AEP"]
    assert len(data.top_companies) == 12


def test_parse_bare_numbers_gives_the_same_result():
    formatted = parse_sector(sector_payload(), "utilities")
    bare = parse_sector(_unwrap(sector_payload()), "utilities")
    assert bare == formatted


def test_parse_re_serialised_day_change_name():
    """finance-query's re-serialised bodies call the day change dayChangePercent."""
    payload = _unwrap(sector_payload())
    perf = payload["data"]["performance"]
    perf["dayChangePercent"] = perf.pop("regMarketChangePercent")
    assert parse_sector(payload, "utilities").day_change == -0.004


def test_parse_missing_values_are_none_and_counts_fall_back():
    payload = sector_payload()
    del payload["data"]["performance"]["fiveYearChangePercent"]
    payload["data"]["performance"]["ytdChangePercent"] = {}  # Yahoo's empty value
    del payload["data"]["overview"]["industriesCount"]
    del payload["data"]["overview"]["companiesCount"]
    payload["data"]["topCompanies"][0]["marketWeight"] = {}
    data = parse_sector(payload, "utilities")
    assert data.five_year_change is None
    assert data.ytd_change is None
    assert data.industries_count == 6  # the industry rows, without the aggregate
    assert data.companies_count == 0
    assert data.top_companies[-1] == "NEE"  # no weight: after the weighted ones


def test_parse_skips_malformed_rows():
    payload = sector_payload()
    payload["data"]["industries"].append("junk")
    payload["data"]["industries"].append({"key": "x", "marketWeight": _v(0.9)})  # no name
    payload["data"]["topCompanies"].insert(0, {"name": "No symbol", "marketWeight": _v(0.9)})
    payload["data"]["topCompanies"].append(copy.deepcopy(payload["data"]["topCompanies"][1]))
    data = parse_sector(payload, "utilities")
    assert len(data.industries) == 6
    assert data.top_companies.count("NEE") == 1


@pytest.mark.parametrize("payload", [
    {}, {"data": None}, {"data": {"overview": {}}}, [], "text",
    {"finance": {"result": None, "error": {"code": "Not Found", "description": "x"}}},
])
def test_parse_unusable_bodies_are_bad_responses(payload):
    with pytest.raises(UpstreamBadResponse):
        parse_sector(payload, "utilities")


def test_sector_tables_match_the_spec():
    assert sorted(SECTOR_KEYS) == [
        "Basic Materials", "Communication Services", "Consumer Cyclical",
        "Consumer Defensive", "Energy", "Financial Services", "Healthcare", "Industrials",
        "Real Estate", "Technology", "Utilities"]
    assert SECTOR_KEYS["Basic Materials"] == "basic-materials"
    assert SECTOR_NAMES["communication-services"] == "Communication Services"


# -- fetch_sector -------------------------------------------------------------------------
URL = f"{QUERY1}/v1/finance/sectors/utilities"


def test_fetch_sends_yahoo_page_parameters_with_a_crumb(yahoo):
    yahoo.get(URL, sector_payload())
    data = fetch_sector("utilities")
    assert data.name == "Utilities"
    calls = calls_to(yahoo.mock, "/v1/finance/sectors/")
    assert len(calls) == 1
    parts = urlsplit(calls[0].request.url)
    assert parts.netloc == "query1.finance.yahoo.com"
    assert parts.path == "/v1/finance/sectors/utilities"
    assert parse_qs(parts.query) == {"formatted": ["true"], "withReturns": ["true"],
                                     "lang": ["en-US"], "region": ["US"],
                                     "crumb": ["haT3oykhHqZ"]}


def test_fetch_is_cached(yahoo):
    yahoo.get(URL, sector_payload())
    first = fetch_sector("utilities")
    assert fetch_sector("utilities") == first
    assert len(calls_to(yahoo.mock, "/v1/finance/sectors/")) == 1


def test_fetch_unknown_key_never_calls_upstream(yahoo):
    with pytest.raises(NotFound):
        fetch_sector("../quote")
    assert calls_to(yahoo.mock, "/v1/finance/") == []


def test_fetch_yahoo_404_for_a_known_key_is_an_upstream_failure(yahoo):
    yahoo.get(URL, {"finance": {"result": None, "error": {
        "code": "Not Found", "description": "HTTP 404 Not Found"}}}, status=404)
    with pytest.raises(UpstreamBadResponse) as info:
        fetch_sector("utilities")
    assert info.value.status_code == 502
    assert info.value.provider == "yahoo"
