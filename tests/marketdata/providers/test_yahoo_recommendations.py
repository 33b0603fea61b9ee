"""v6 recommendationsbysymbol: every recording through parse_recommendations, then
fetch_recommendations (URL, count, crumb, encoding, cache)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers.yahoo.recommendations import (
    Recommendation,
    fetch_recommendations,
    parse_recommendations,
)
from tests.conftest import QUERY2, calls_to

from .helpers import recordings

FOLDER = "yahoo/v6-recommendationsbysymbol"

# recording -> (symbol asked, number of peers, first peer, its score, last peer)
EXPECTED = {
    f"{FOLDER}/0P000071W8.TO.json": ("0P000071W8.TO", 5, "0P000071WA.TO", 0.056955,
                                     "0P000071WU.TO"),
    f"{FOLDER}/AAPL-BMW.DE.json": ("AAPL", 5, "AMZN", 0.297723, "MSFT"),
    f"{FOLDER}/AAPL.json": ("AAPL", 5, "AMZN", 0.297723, "MSFT"),
    f"{FOLDER}/EURUSD_X.json": ("EURUSD=X", 5, "GBPUSD=X", 0.073401, "^TNX"),
    f"{FOLDER}/WSKT.JK.json": ("WSKT.JK", 0, None, None, None),
}


def test_every_recording_is_covered():
    assert sorted(recordings(FOLDER)) == sorted(EXPECTED) or not recordings(FOLDER)


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_recordings(recording, path):
    symbol, count, first, score, last = EXPECTED[path]
    peers = parse_recommendations(recording(path), symbol)
    assert len(peers) == count
    if count:
        assert peers[0] == Recommendation(first, score)
        assert peers[-1].symbol == last
        scores = [p.score for p in peers]
        assert scores == sorted(scores, reverse=True)


def test_two_symbol_answer_picks_the_asked_symbol(recording):
    payload = recording(f"{FOLDER}/AAPL-BMW.DE.json")
    bmw = parse_recommendations(payload, "BMW.DE")
    assert [p.symbol for p in bmw] == ["VOW3.DE", "MBG.DE", "BAS.DE", "VOW.DE", "SIE.DE"]
    assert bmw[0].score == 0.11923
    assert parse_recommendations(payload, "bmw.de") == bmw  # case-insensitive match
    assert parse_recommendations(payload, "MSFT") == []  # not in this answer


def test_formatted_scores_and_junk_rows():
    payload = {"finance": {"result": [{"symbol": "KO", "recommendedSymbols": [
        {"symbol": "pep", "score": {"raw": 0.25, "fmt": "0.25"}}, {"score": 0.2}, "junk",
        {"symbol": "MDLZ"}]}], "error": None}}
    assert parse_recommendations(payload, "KO") == [Recommendation("PEP", 0.25),
                                                    Recommendation("MDLZ", None)]


@pytest.mark.parametrize("payload", [
    {}, [], "text", {"finance": None}, {"finance": {"result": "x"}},
])
def test_unusable_bodies(payload):
    with pytest.raises(UpstreamBadResponse):
        parse_recommendations(payload, "AAPL")


def test_null_result_is_no_peers():
    assert parse_recommendations({"finance": {"result": None, "error": None}}, "AAPL") == []


# -- fetch_recommendations ----------------------------------------------------------------
def test_fetch_url_count_and_crumb(yahoo, recording):
    yahoo.get(f"{QUERY2}/v6/finance/recommendationsbysymbol/AAPL",
              recording(f"{FOLDER}/AAPL.json"))
    peers = fetch_recommendations("AAPL", 11)
    assert [p.symbol for p in peers] == ["AMZN", "TSLA", "GOOG", "META", "MSFT"]
    calls = calls_to(yahoo.mock, "/v6/finance/recommendationsbysymbol/")
    assert len(calls) == 1
    parts = urlsplit(calls[0].request.url)
    assert parts.netloc == "query2.finance.yahoo.com"
    assert parts.path == "/v6/finance/recommendationsbysymbol/AAPL"
    assert parse_qs(parts.query) == {"count": ["11"], "crumb": ["haT3oykhHqZ"]}


def test_fetch_encodes_the_symbol(yahoo, recording):
    yahoo.get(f"{QUERY2}/v6/finance/recommendationsbysymbol/EURUSD%3DX",
              recording(f"{FOLDER}/EURUSD_X.json"))
    peers = fetch_recommendations("EURUSD=X", 6)
    assert peers[0] == Recommendation("GBPUSD=X", 0.073401)
    call = calls_to(yahoo.mock, "/recommendationsbysymbol/")[0]
    assert urlsplit(call.request.url).path == "/v6/finance/recommendationsbysymbol/EURUSD%3DX"


def test_fetch_is_cached_per_symbol_and_count(yahoo, recording):
    yahoo.get(f"{QUERY2}/v6/finance/recommendationsbysymbol/AAPL",
              recording(f"{FOLDER}/AAPL.json"))
    first = fetch_recommendations("AAPL", 4)
    assert fetch_recommendations("AAPL", 4) == first
    assert len(calls_to(yahoo.mock, "/recommendationsbysymbol/")) == 1
    fetch_recommendations("AAPL", 6)
    assert len(calls_to(yahoo.mock, "/recommendationsbysymbol/")) == 2


def test_fetch_empty_answer(yahoo, recording):
    yahoo.get(f"{QUERY2}/v6/finance/recommendationsbysymbol/WSKT.JK",
              recording(f"{FOLDER}/WSKT.JK.json"))
    assert fetch_recommendations("WSKT.JK", 3) == []


def test_fetch_404_is_not_found(yahoo):
    yahoo.get(f"{QUERY2}/v6/finance/recommendationsbysymbol/ZZZZ", {"finance": {
        "result": None, "error": {"code": "Not Found", "description": "x"}}}, status=404)
    with pytest.raises(NotFound):
        fetch_recommendations("ZZZZ", 3)
