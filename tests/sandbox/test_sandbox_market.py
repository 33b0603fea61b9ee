"""The sandbox's trending, market-summary and spark endpoints: Yahoo's envelopes, the
limits Yahoo enforces, determinism, and agreement with the v7 quote and the v8 chart."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from marketdata.providers.yahoo.market_summary import parse_market_summary
from marketdata.providers.yahoo.spark import parse_spark
from marketdata.providers.yahoo.trending import parse_trending
from marketdata.sandbox import SandboxResponse, UpstreamSandbox

REGULAR = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)  # Friday 12:00 New York


def make() -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: REGULAR)


def get(sb: UpstreamSandbox, path: str, **query: str) -> SandboxResponse:
    first = sb.handle("GET", "fc.yahoo.com", "/", {}, {})
    cookie = first.headers["Set-Cookie"].split(";")[0]
    crumb = sb.handle("GET", "query1.finance.yahoo.com", "/v1/test/getcrumb", {},
                      {"Cookie": cookie}).body.decode()
    args = {k: [v] for k, v in query.items()} | {"crumb": [crumb]}
    return sb.handle("GET", "query2.finance.yahoo.com", path, args, {})


def body(resp: SandboxResponse) -> Any:
    return json.loads(resp.body)


def test_trending_envelope_count_and_determinism():
    sb = make()
    payload = body(get(sb, "/v1/finance/trending/US", count="5"))
    first = payload["finance"]["result"][0]
    assert first["count"] == 5 and len(first["quotes"]) == 5
    assert parse_trending(payload) == parse_trending(body(get(make(), "/v1/finance/trending/US",
                                                              count="5")))
    assert len(parse_trending(body(get(sb, "/v1/finance/trending/JP")))) == 20
    assert get(sb, "/v1/finance/trending/XX").status == 404
    assert get(sb, "/v1/finance/trending/us").status == 404


def test_market_summary_agrees_with_the_quote():
    sb = make()
    items = parse_market_summary(body(get(sb, "/v6/finance/quote/marketSummary",
                                          region="US", lang="en-US")))
    quote = body(get(sb, "/v7/finance/quote", symbols="^GSPC"))["quoteResponse"]["result"][0]
    first = items[0]
    assert first.symbol == "^GSPC" and first.regular_market_price["raw"] == quote[
        "regularMarketPrice"]
    assert first.spark is not None and len(first.spark.timestamps) == len(first.spark.closes)


def test_spark_is_the_chart_reduced_to_closes():
    sb = make()
    spark = body(get(sb, "/v7/finance/spark", symbols="AAPL,ZZZZ", interval="1d", range="1mo",
                     includeTimestamps="true"))
    (item,) = spark["spark"]["result"]
    chart = body(get(sb, "/v8/finance/chart/AAPL", interval="1d", range="1mo"))
    result = chart["chart"]["result"][0]
    assert item["response"][0]["timestamp"] == result["timestamp"]
    assert item["response"][0]["indicators"]["quote"][0]["close"] == \
        result["indicators"]["quote"][0]["close"]
    assert set(parse_spark(spark, "1d")) == {"AAPL"}


def test_spark_limits():
    sb = make()
    many = ",".join(f"S{i}" for i in range(21))
    assert get(sb, "/v7/finance/spark", symbols=many).status == 400
    assert get(sb, "/v7/finance/spark", symbols="ZZZZ").status == 404
    assert get(sb, "/v7/finance/spark", symbols="AAPL", interval="7m").status == 400
    assert get(sb, "/v7/finance/spark", symbols="").status == 400
    no_stamps = body(get(sb, "/v7/finance/spark", symbols="SPY"))
    assert "timestamp" not in no_stamps["spark"]["result"][0]["response"][0]
