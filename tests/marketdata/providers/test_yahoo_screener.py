"""Yahoo predefined screener: parsing every recording (raw Yahoo bodies and the re-serialized
bare result), {raw, fmt} values, error bodies, and the upstream request itself."""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.errors import UpstreamBadResponse
from marketdata.providers.yahoo.screener import (
    SCREENER_URL,
    ScreenerQuote,
    fetch_screener,
    parse_screener,
)
from tests.conftest import calls_to

GAINERS = "yahoo/v1-screener-predefined/day_gainers.json"
LOSERS = "yahoo/v1-screener-predefined/day_losers.json"
ACTIVES = "yahoo/v1-screener-predefined/most_actives-finance-query.json"

_FORMATTED_KEYS = ("regularMarketPrice", "regularMarketChange", "regularMarketChangePercent",
                   "regularMarketVolume", "priceHint")


def formatted(payload: Any) -> Any:
    """The same body as Yahoo sends it with formatted=true: numbers as {raw, fmt}."""
    out = copy.deepcopy(payload)
    result = out["finance"]["result"][0] if "finance" in out else out
    for quote in result["quotes"]:
        for key in _FORMATTED_KEYS:
            if isinstance(quote.get(key), int | float):
                quote[key] = {"raw": quote[key], "fmt": f"{quote[key]:,.2f}"}
    return out


def test_day_gainers_recording(recording):
    rows = parse_screener(recording(GAINERS))
    assert [r.symbol for r in rows] == ["U", "FTAI", "DBRG", "HAS", "GDS"]
    assert rows[0] == ScreenerQuote(symbol="U", name="Unity Software Inc.", price=28.0,
                                    change=6.53, change_percent=30.4145, volume=61661819,
                                    price_hint=2)
    assert all(r.change_percent > 0 for r in rows)


def test_day_losers_recording(recording):
    rows = parse_screener(recording(LOSERS))
    assert [r.symbol for r in rows] == ["TFII", "WRD", "FRPT", "FCN", "NICE"]
    first = rows[0]
    assert (first.name, first.price, first.change, first.change_percent) == (
        "TFI International Inc.", 101.48, -26.13, -20.4764)
    assert all(r.change_percent < 0 for r in rows)


def test_most_actives_bare_result_recording(recording):
    """The finance-query file has no envelope and alphabetized keys: the bare result."""
    payload = recording(ACTIVES)
    assert "finance" not in payload
    rows = parse_screener(payload)
    assert len(rows) == 25
    first = rows[0]
    assert first.symbol == "AAL"
    # longName wins over shortName ("American Airlines Group, Inc.")
    assert first.name == "American Airlines Group Inc."
    assert (first.price, first.change, first.change_percent) == (14.98, 0.33, 2.25256)
    assert first.volume == 152888435
    assert first.price_hint == 2  # no priceHint in this file: stock precision


@pytest.mark.parametrize("name", [GAINERS, LOSERS, ACTIVES])
def test_formatted_values_parse_like_bare_numbers(recording, name):
    payload = recording(name)
    assert parse_screener(formatted(payload)) == parse_screener(payload)


def test_name_falls_back_to_short_name_then_symbol(recording):
    payload = recording(GAINERS)
    quotes = payload["finance"]["result"][0]["quotes"]
    del quotes[0]["longName"]
    quotes[1]["longName"] = None
    quotes[1].pop("shortName")
    rows = parse_screener(payload)
    assert rows[0].name == "Unity Software Inc."  # shortName
    assert rows[1].name == "FTAI"


def test_rows_without_a_price_are_left_out(recording):
    payload = recording(GAINERS)
    quotes = payload["finance"]["result"][0]["quotes"]
    del quotes[1]["regularMarketPrice"]
    quotes[2]["regularMarketChangePercent"] = {}
    quotes[3] = {"shortName": "no symbol"}
    assert [r.symbol for r in parse_screener(payload)] == ["U", "GDS"]


def test_empty_quotes_is_an_empty_list(recording):
    payload = recording(GAINERS)
    payload["finance"]["result"][0]["quotes"] = []
    assert parse_screener(payload) == []


@pytest.mark.parametrize("payload", [
    {"finance": {"result": None, "error": {"code": "Bad Request", "description": "nope"}}},
    {"finance": {"result": [], "error": None}},
    {"finance": None},
    {"quoteResponse": {"result": []}},
    [],
    "<html></html>",
])
def test_unusable_bodies_are_bad_upstream_answers(payload):
    with pytest.raises(UpstreamBadResponse) as info:
        parse_screener(payload)
    assert info.value.provider == "yahoo"


# -- the upstream request ------------------------------------------------------------------
def test_fetch_sends_the_screener_request_with_a_crumb(yahoo, recording):
    yahoo.get(SCREENER_URL, recording(GAINERS))
    rows = fetch_screener("DAY_GAINERS", 25)
    assert [r.symbol for r in rows] == ["U", "FTAI", "DBRG", "HAS", "GDS"]
    calls = calls_to(yahoo.mock, "/v1/finance/screener/predefined/saved")
    assert len(calls) == 1
    url = urlsplit(calls[0].request.url)
    assert (url.scheme, url.netloc, url.path) == (
        "https", "query1.finance.yahoo.com", "/v1/finance/screener/predefined/saved")
    query = parse_qs(url.query)
    assert query["scrIds"] == ["DAY_GAINERS"]
    assert query["count"] == ["25"]
    assert query["formatted"] == ["false"]
    assert query["crumb"] == ["haT3oykhHqZ"]
    assert {"symbol", "longName", "shortName", "regularMarketPrice", "regularMarketChange",
            "regularMarketChangePercent"} <= set(query["fields"][0].split(","))


def test_fetch_never_returns_more_than_count(yahoo, recording):
    payload = recording(ACTIVES)
    payload["quotes"] = payload["quotes"] * 3  # Yahoo sent 75 rows for count=50
    yahoo.get(SCREENER_URL, payload)
    rows = fetch_screener("MOST_ACTIVES", 50)
    assert len(rows) == 50
    assert rows[0].symbol == "AAL"


def test_one_cache_entry_per_screener_and_count(yahoo, recording):
    yahoo.get(SCREENER_URL, recording(GAINERS))
    fetch_screener("DAY_GAINERS", 25)
    fetch_screener("DAY_GAINERS", 25)
    assert len(calls_to(yahoo.mock, "/screener/")) == 1
    fetch_screener("DAY_GAINERS", 50)
    fetch_screener("DAY_LOSERS", 25)
    assert len(calls_to(yahoo.mock, "/screener/")) == 3


def test_yahoo_404_for_a_screener_is_an_upstream_fault(yahoo):
    yahoo.get(SCREENER_URL, {"finance": {"result": None, "error": {
        "code": "Not Found", "description": "No screener"}}}, status=404)
    with pytest.raises(UpstreamBadResponse) as info:
        fetch_screener("DAY_GAINERS", 25)
    assert info.value.status_code == 502
