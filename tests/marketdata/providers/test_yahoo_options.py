"""Yahoo's v7 options: the parser on every recording (values exactly as recorded), the
request (URL, ``date``, the crumb), the cache key per expiry, and the status map."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers.yahoo import options
from marketdata.records.members import as_json, member_names
from marketdata.records.options import OptionContract
from tests.conftest import QUERY2, calls_to

DIR = "yahoo/v7-options"
AAPL = f"{DIR}/options-AAPL.json"


def test_aapl_chain_exactly_as_recorded(recording):
    payload = recording(AAPL)
    result = payload["optionChain"]["result"][0]
    chain = options.parse_options(payload, "AAPL")
    assert chain.symbol == "AAPL"
    assert chain.expiration_dates == sorted(result["expirationDates"])
    assert chain.expiration_date == result["options"][0]["expirationDate"] == 1740700800
    assert chain.strikes == sorted(result["strikes"]) and len(chain.strikes) == 58
    recorded_calls = sorted(result["options"][0]["calls"], key=lambda c: c["strike"])
    assert len(chain.calls) == 54 and len(chain.puts) == 48
    calls = as_json(chain.calls)
    for parsed, raw in zip(calls, recorded_calls, strict=True):
        assert list(parsed) == list(member_names(OptionContract))
        assert {k: v for k, v in parsed.items() if v is not None} == raw
    assert calls[0] == {
        "contractSymbol": "AAPL250228C00110000", "strike": 110, "currency": "USD",
        "lastPrice": 111.67, "change": 0, "percentChange": 0, "volume": None,
        "openInterest": 0, "bid": 135.9, "ask": 136.65, "contractSize": "REGULAR",
        "expiration": 1740700800, "lastTradeDate": 1737487202,
        "impliedVolatility": 3.58593853515625, "inTheMoney": True}


@pytest.mark.parametrize("name", ["options-BTC-USD.json", "options-EURUSD_X.json",
                                  "options-idx_VXAPL.json"])
def test_underlyings_without_options_are_empty_chains(recording, name):
    chain = options.parse_options(recording(f"{DIR}/{name}"), "X")
    assert (chain.expiration_dates, chain.expiration_date, chain.strikes, chain.calls,
            chain.puts) == ([], None, [], [], [])


def test_an_expired_date_has_empty_sides(recording):
    chain = options.parse_options(recording(f"{DIR}/options-AAPL-expire-2022-03-01.json"),
                                  "AAPL")
    assert chain.expiration_date == 1646092800
    assert chain.calls == [] and chain.puts == [] and chain.strikes == []
    assert chain.expiration_dates[:3] == [1740700800, 1741305600, 1741910400]


def test_the_2026_recording(recording):
    chain = options.parse_options(recording(f"{DIR}/options-finance-query-2026.json"), "AAPL")
    assert chain.expiration_dates[:3] == [1781481600, 1781654400, 1781740800]


@pytest.mark.parametrize("body", [{"optionChain": {"result": [], "error": None}}])
def test_an_empty_result_is_not_found(body):
    with pytest.raises(NotFound, match="ZZZZ"):
        options.parse_options(body, "ZZZZ")


@pytest.mark.parametrize("body", [{}, {"optionChain": {}}, [], "x"])
def test_other_bodies_are_bad_answers(body):
    with pytest.raises(UpstreamBadResponse):
        options.parse_options(body, "AAPL")


def test_the_request_and_one_cache_entry_per_expiry(yahoo, recording):
    yahoo.get(f"{QUERY2}/v7/finance/options/AAPL", recording(AAPL))
    options.option_chain("AAPL")
    options.option_chain("AAPL")
    options.option_chain("AAPL", 1741305600)
    calls = calls_to(yahoo.mock, "/v7/finance/options/AAPL")
    assert len(calls) == 2
    first, second = (parse_qs(urlsplit(c.request.url).query) for c in calls)
    assert "date" not in first and second["date"] == ["1741305600"]
    assert first["crumb"] and first["formatted"] == ["false"]


def test_a_404_is_not_found(yahoo):
    yahoo.get(f"{QUERY2}/v7/finance/options/ZZZZ", {"finance": {"error": {
        "code": "Not Found", "description": "No data found"}}}, status=404)
    with pytest.raises(NotFound):
        options.option_chain("ZZZZ")
