"""v7 quote: parse_quotes on every recording, {raw, fmt} shape, fetch_quotes batching."""

from __future__ import annotations

import copy
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.errors import UpstreamBadResponse
from marketdata.providers.yahoo.quote import MAX_BATCH, fetch_quotes, parse_quote, parse_quotes
from tests.conftest import calls_to

from .helpers import recordings, wrap_numbers

QUOTES = recordings("yahoo/v7-quote")
EMPTY = "yahoo/v7-quote/quote-AAPL220121C00025000.json"


def items(payload) -> list[dict]:
    return payload["quoteResponse"]["result"]


@pytest.mark.parametrize("path", QUOTES)
def test_every_quote_recording(recording, path):
    payload = recording(path)
    parsed = parse_quotes(payload)
    assert list(parsed) == [item["symbol"].upper() for item in items(payload)]
    for item in items(payload):
        snap = parsed[item["symbol"]]
        assert snap.symbol == item["symbol"]
        assert snap.price == item.get("regularMarketPrice")
        assert snap.change == item.get("regularMarketChange")
        assert snap.change_percent == item.get("regularMarketChangePercent")
        assert snap.previous_close == item.get("regularMarketPreviousClose")
        assert snap.day_high == item.get("regularMarketDayHigh")
        assert snap.day_low == item.get("regularMarketDayLow")
        assert snap.open == item.get("regularMarketOpen")
        assert snap.market_time == item.get("regularMarketTime")
        assert snap.price_hint == item.get("priceHint", 2)
        assert snap.market_state == item.get("marketState")
        assert snap.currency == item.get("currency")
        assert snap.quote_type == item.get("quoteType")
        assert snap.name == (item.get("longName") or item.get("shortName")
                             or item.get("displayName"))
        volume = item.get("regularMarketVolume")
        assert snap.volume == (int(volume) if volume is not None else None)
        assert snap.post_market_price == item.get("postMarketPrice")
        assert snap.pre_market_price == item.get("preMarketPrice")


@pytest.mark.parametrize("path", QUOTES)
def test_raw_fmt_shape_parses_to_the_same_values(recording, path):
    payload = recording(path)
    wrapped = copy.deepcopy(payload)
    wrapped["quoteResponse"]["result"] = wrap_numbers(items(payload))
    assert parse_quotes(wrapped) == parse_quotes(payload)


def test_the_expired_option_recording_is_empty(recording):
    assert parse_quotes(recording(EMPTY)) == {}


class TestKnownValues:
    def test_aapl(self, recording):
        snap = parse_quotes(recording("yahoo/v7-quote/quote-AAPL.json"))["AAPL"]
        assert snap.price == 244.6
        assert snap.change_percent == 1.2710667
        assert snap.name == "Apple Inc."
        assert snap.volume == 40896227
        assert snap.post_market_price == 244.64
        assert snap.post_market_current  # 1739581198 > 1739566800
        assert not snap.pre_market_current

    def test_two_symbols(self, recording):
        parsed = parse_quotes(recording("yahoo/v7-quote/quote-AAPL-BABA.json"))
        assert list(parsed) == ["AAPL", "BABA"]
        assert parsed["BABA"].price == 124.73
        assert parsed["BABA"].change_percent == 4.34164

    @pytest.mark.parametrize(("path", "symbol", "price", "hint", "pct"), [
        ("quote-EURUSD_X.json", "EURUSD=X", 1.0489877, 4, -0.052457344),
        ("quote-GC_F.json", "GC=F", 2910.3, 2, 0.33095798),
        ("quote-idx_VXAPL.json", "^VXAPL", 23.77, 2, -2.100495),
        ("quote-BTC-USD.json", "BTC-USD", 96077.45, 2, -1.2598631),
        ("quote-0P000071W8.TO.json", "0P000071W8.TO", 152.63, 2, -0.072018206),
        ("quote-LDO.MI.json", "LDO.MI", 33.38, 2, 5.366164),
        ("quote-QQQ.json", "QQQ", 538.15, 2, 0.41985443),
    ])
    def test_instruments(self, recording, path, symbol, price, hint, pct):
        snap = parse_quotes(recording(f"yahoo/v7-quote/{path}"))[symbol]
        assert (snap.price, snap.price_hint, snap.change_percent) == (price, hint, pct)

    def test_sparse_fields(self, recording):
        tsla = parse_quotes(recording("yahoo/v7-quote/quote-TSLA-fields-symbol-shortName.json"))
        assert tsla["TSLA"].name == "Tesla"  # displayName when there is no long/short name
        assert tsla["TSLA"].change is None and tsla["TSLA"].volume is None
        msft = parse_quotes(recording("yahoo/v7-quote/quote-MSFT-fields-beta.json"))["MSFT"]
        assert msft.price == 408.43 and msft.change_percent is None


class TestShapes:
    @pytest.mark.parametrize("payload", [None, {}, [], {"quoteResponse": None},
                                         {"quoteResponse": {}}])
    def test_not_a_quote_answer(self, payload):
        with pytest.raises(UpstreamBadResponse):
            parse_quotes(payload)

    def test_null_result(self):
        assert parse_quotes({"quoteResponse": {"result": None, "error": None}}) == {}

    def test_items_without_symbol_skipped_and_symbols_upper_cased(self):
        parsed = parse_quotes({"quoteResponse": {"result": [
            {"regularMarketPrice": 1}, "junk", {"symbol": "aapl", "regularMarketPrice": 2}]}})
        assert list(parsed) == ["AAPL"]
        assert parsed["AAPL"].price == 2

    def test_nan_and_empty_values_are_none(self):
        snap = parse_quote({"symbol": "X", "regularMarketPrice": float("nan"),
                            "regularMarketChange": {}, "priceHint": {"raw": 4, "fmt": "4"},
                            "regularMarketVolume": {"raw": 12.0, "fmt": "12"}})
        assert snap.price is None and snap.change is None
        assert snap.price_hint == 4
        assert snap.volume == 12 and isinstance(snap.volume, int)

    def test_pre_and_post_market_current(self):
        snap = parse_quote({"symbol": "X", "regularMarketTime": 100, "preMarketPrice": 1,
                            "preMarketTime": 150, "postMarketPrice": 2, "postMarketTime": 50})
        assert snap.pre_market_current
        assert not snap.post_market_current


class TestFetchQuotes:
    def test_one_batch_call_unknown_symbols_remembered(self, yahoo, recording):
        yahoo.quote(recording("yahoo/v7-quote/quote-AAPL-BABA.json"))
        result = fetch_quotes(["BABA", "ZZZZ", "AAPL"])
        assert list(result) == ["BABA", "AAPL"]
        assert result["AAPL"].price == 244.6
        calls = calls_to(yahoo.mock, "/v7/finance/quote")
        assert len(calls) == 1
        sent = parse_qs(urlsplit(calls[0].request.url).query)
        assert sent["symbols"] == ["BABA,ZZZZ,AAPL"]
        assert sent["crumb"] == ["haT3oykhHqZ"]
        again = fetch_quotes(["AAPL", "ZZZZ", "BABA"])
        assert list(again) == ["AAPL", "BABA"]
        assert len(calls_to(yahoo.mock, "/v7/finance/quote")) == 1

    def test_large_requests_are_chunked(self, yahoo, recording):
        yahoo.quote(recording("yahoo/v7-quote/quote-AAPL.json"))
        symbols = ["AAPL"] + [f"S{i}" for i in range(2 * MAX_BATCH + 9)]
        result = fetch_quotes(symbols)
        assert list(result) == ["AAPL"]
        calls = calls_to(yahoo.mock, "/v7/finance/quote")
        sizes = [len(parse_qs(urlsplit(c.request.url).query)["symbols"][0].split(","))
                 for c in calls]
        assert sizes == [MAX_BATCH, MAX_BATCH, 10]
        assert len(calls_to(yahoo.mock, "getcrumb")) == 1

    def test_empty_answer(self, yahoo, recording):
        yahoo.quote(recording(EMPTY))
        assert fetch_quotes(["AAPL220121C00025000"]) == {}
