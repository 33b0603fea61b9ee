"""GET /v2/exchanges: Yahoo's exchanges and suffixes, from the maintained table
(marketdata.records.exchanges), with no upstream call; and the risk metrics' suffix map,
derived from the same table."""

from __future__ import annotations

import re

import pytest

from apps.risk.services import SUFFIX_REGIONS
from marketdata import exchange_hours
from marketdata.records.exchanges import EXCHANGES, NO_SUFFIX, REAL_TIME, suffix_regions

MEMBERS = ["country", "market", "suffix", "delay", "dataProvider"]


def test_every_market_with_the_five_members(api, yahoo):
    response = api.get("/v2/exchanges")
    assert response.status_code == 200, response.content
    body = response.json()
    assert len(body) == len(EXCHANGES) > 70
    assert all(list(item) == MEMBERS for item in body)
    assert all(isinstance(v, str) and v for item in body for v in item.values())
    assert len(yahoo.mock.calls) == 0  # no upstream call, not even the handshake


@pytest.mark.parametrize("row", [
    {"country": "United States of America", "market": "NASDAQ Stock Exchange",
     "suffix": NO_SUFFIX, "delay": REAL_TIME, "dataProvider": "ICE Data Services"},
    {"country": "Canada", "market": "Toronto Stock Exchange (TSX)", "suffix": ".TO",
     "delay": "15 min", "dataProvider": "ICE Data Services"},
    {"country": "United Kingdom", "market": "London Stock Exchange", "suffix": ".L",
     "delay": "20 min", "dataProvider": "ICE Data Services"},
    {"country": "Germany", "market": "Deutsche Boerse XETRA", "suffix": ".DE",
     "delay": "15 min", "dataProvider": "ICE Data Services"},
    {"country": "Japan", "market": "Tokyo Stock Exchange", "suffix": ".T", "delay": "20 min",
     "dataProvider": "ICE Data Services"},
    {"country": "Hong Kong", "market": "Hong Kong Stock Exchange (HKEX)", "suffix": ".HK",
     "delay": "15 min", "dataProvider": "ICE Data Services"},
])
def test_known_rows(api, row):
    assert row in api.get("/v2/exchanges").json()


def test_the_united_states_first():
    assert EXCHANGES[0].country == "United States of America"
    countries = [e.country for e in EXCHANGES if e.country != "United States of America"]
    assert countries == sorted(countries)


def test_suffixes_are_unique_and_well_formed():
    suffixes = [e.suffix for e in EXCHANGES if e.suffix != NO_SUFFIX]
    assert len(suffixes) == len(set(suffixes))
    assert all(re.fullmatch(r"\.[A-Z]{1,3}", s) for s in suffixes), suffixes
    assert all(e.delay == REAL_TIME or re.fullmatch(r"\d+ min", e.delay) for e in EXCHANGES)


def test_fields_selects_members(api):
    body = api.get("/v2/exchanges?fields=suffix,country,bogus").json()
    assert body[0] == {"country": "United States of America", "suffix": ".CBT"}
    assert all(set(item) == {"suffix", "country"} for item in body)


def test_fields_may_be_empty_and_other_parameters_are_ignored(api):
    assert api.get("/v2/exchanges?fields=").json() == api.get("/v2/exchanges?x=1").json()


def test_never_stored_by_the_response_cache(api):
    first = api.get("/v2/exchanges")
    second = api.get("/v2/exchanges")
    assert second.get("X-Cache") != "HIT" and first.json() == second.json()


def test_other_methods_are_405(api):
    response = api.post("/v2/exchanges")
    assert response.status_code == 405 and response.json()["status"] == 405


# -- the one suffix table ---------------------------------------------------------------------
def test_risk_suffix_regions_come_from_the_table():
    table = suffix_regions()
    assert SUFFIX_REGIONS == {s: r for s, r in table.items() if r in exchange_hours.EXCHANGES}
    for suffix, region in [("TO", "CA"), ("V", "CA"), ("L", "GB"), ("IL", "GB"), ("DE", "DE"),
                           ("F", "DE"), ("T", "JP"), ("HK", "HK"), ("SS", "CN"),
                           ("AX", "AU"), ("NS", "IN"), ("KS", "KR"), ("TWO", "TW"),
                           ("AT", "GR"), ("TA", "IL"), ("VN", "VN")]:
        assert SUFFIX_REGIONS[suffix] == region, suffix
    # A market of several countries (Euronext, Cboe Europe) has no region.
    assert "NX" not in table and "XD" not in table
