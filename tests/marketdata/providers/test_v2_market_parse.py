"""Parsers of the market-wide v2 routes on every recording there is (trending: 3, market
summary: 1) and on Yahoo-shaped bodies where none exists (the market summary's spark, the
v7 spark)."""

from __future__ import annotations

import pytest

from marketdata.errors import UpstreamBadResponse
from marketdata.providers.yahoo.market_summary import parse_market_summary, parse_spark
from marketdata.providers.yahoo.spark import parse_spark as parse_v7_spark
from marketdata.providers.yahoo.trending import parse_trending

TRENDING = "yahoo/v1-trending"
SUMMARY = "yahoo/v6-marketSummary/marketSummary-finance-query.json"


def test_trending_us(recording):
    assert parse_trending(recording(f"{TRENDING}/US.json")) == [
        "BTC-USD", "PLTR", "MSTR", "HIMS", "TEM"]


def test_trending_gb(recording):
    assert parse_trending(recording(f"{TRENDING}/GB.json")) == ["BTC-USD", "PLTR"]


def test_trending_finance_query_list(recording):
    # finance-query kept the quotes list only: the envelope is put back around it.
    quotes = recording(f"{TRENDING}/US-finance-query.json")
    symbols = parse_trending({"finance": {"result": [{"quotes": quotes}], "error": None}})
    assert len(symbols) == 20
    assert symbols[:5] == ["BTC-USD", "ETH-USD", "XRP-USD", "BTC-CAD", "CL=F"]
    assert symbols[-3:] == ["^FTSE", "KTOS", "QBTS"]


@pytest.mark.parametrize("body", [{}, {"finance": {}}, {"finance": {"result": None}}, [], "x"])
def test_trending_without_a_result_is_a_bad_answer(body):
    with pytest.raises(UpstreamBadResponse):
        parse_trending(body)


def test_trending_skips_junk_and_duplicates():
    body = {"finance": {"result": [{"quotes": [{"symbol": "aapl"}, "x", {"symbol": ""},
                                               {"symbol": "AAPL"}, {}, {"symbol": "^N225"}]}]}}
    assert parse_trending(body) == ["AAPL", "^N225"]
    assert parse_trending({"finance": {"result": []}}) == []


def test_market_summary_recording(recording):
    result = recording(SUMMARY)
    items = parse_market_summary({"marketSummaryResponse": {"result": result, "error": None}})
    assert [i.symbol for i in items] == [r["symbol"] for r in result]
    assert len(items) == 15
    first = items[0]
    assert (first.symbol, first.short_name, first.exchange, first.full_exchange_name,
            first.quote_type, first.market_state) == (
        "^GSPC", "S&P 500", "SNP", "SNP", "INDEX", "CLOSED")
    assert (first.regular_market_price, first.regular_market_change,
            first.regular_market_change_percent, first.regular_market_previous_close,
            first.regular_market_time) == (
        {"raw": 6506.48, "fmt": "6,506.48"}, {"raw": -100.010254, "fmt": "-100.01"},
        {"raw": -1.5138183, "fmt": "-1.51%"}, {"raw": 6606.49, "fmt": "6,606.49"},
        {"raw": 1774040720})
    assert first.spark is None  # finance-query's fixture has no spark
    oil = next(i for i in items if i.symbol == "CL=F")
    assert oil.regular_market_price == {"raw": 98.23, "fmt": "98.23"}
    assert oil.quote_type == "FUTURE" and oil.market_state == "REGULAR"


@pytest.mark.parametrize("body", [{}, {"marketSummaryResponse": {"result": None}}, [], 3])
def test_market_summary_without_a_result_is_a_bad_answer(body):
    with pytest.raises(UpstreamBadResponse):
        parse_market_summary(body)


def test_summary_spark_keeps_positions():
    spark = parse_spark({"symbol": "^GSPC", "timestamp": [1, 2, None, 4, 5],
                         "close": [10.5, None, 11.0, 12.0], "previousClose": 9.5,
                         "chartPreviousClose": {"raw": 9.4}, "dataGranularity": 300})
    assert spark is not None
    assert spark.timestamps == [1, 2, 4] and spark.closes == [10.5, None, 12.0]
    assert (spark.symbol, spark.previous_close, spark.chart_previous_close) == (
        "^GSPC", 9.5, 9.4)
    assert parse_spark(None) is None


def _spark_body(*items):
    return {"spark": {"result": list(items), "error": None}}


def _item(symbol, stamps, closes, **meta):
    return {"symbol": symbol, "response": [{
        "meta": {"symbol": symbol, "currency": "USD", "gmtoffset": -18000,
                 "regularMarketPrice": 101.0, "dataGranularity": "1d", "range": "5d", **meta},
        "timestamp": stamps, "indicators": {"quote": [{"close": closes}]}}]}


def test_v7_spark_drops_a_null_close_with_its_timestamp():
    found = parse_v7_spark(_spark_body(
        _item("AAPL", [100, 200, 300, 400], [1.0, None, 3.0, 4.0]),
        _item("spy", [100], [None]), {"symbol": "X"}, "junk", {"response": []}), "1d")
    assert set(found) == {"AAPL", "SPY"}
    aapl = found["AAPL"]
    assert aapl.timestamps == [100, 300, 400] and aapl.closes == [1.0, 3.0, 4.0]
    assert aapl.meta["gmtOffset"] == -18000 and aapl.meta["regularMarketPrice"] == 101.0
    assert aapl.meta["range"] == "5d" and aapl.meta["exchangeName"] is None
    assert found["SPY"].timestamps == [] and found["SPY"].closes == []


@pytest.mark.parametrize("body", [{}, [], {"chart": {}}])
def test_v7_spark_without_a_spark_object_is_a_bad_answer(body):
    with pytest.raises(UpstreamBadResponse):
        parse_v7_spark(body, "1d")
