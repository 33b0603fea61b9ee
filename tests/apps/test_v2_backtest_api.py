"""POST /v2/backtest/{symbol}.

Yahoo is mocked with a real recording (MSFT daily bars with four dividends: every fill and
the dividend income are computed by hand here) or small hand-made bodies in Yahoo's shape
(where a recording cannot show the case: no candles, failures); the sandbox tests run the
real client and parsers against the in-process simulator, for every strategy.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.backtest.services import BacktestAnswer, EquityPoint, RoundTrip
from apps.core.v2 import encode_cursor
from marketdata.backtest.metrics import INTEGER_METRICS, NUMBER_METRICS
from marketdata.backtest.strategies import STRATEGIES
from marketdata.records.members import as_json, member_names
from tests.apps.payloads import CHART_NOT_FOUND, FAILURES, QUERY2, chart_payload, fail_url
from tests.conftest import calls_to

MSFT_DIVIDENDS = "yahoo/v8-chart/historical-via-chart-MSFT-dividends-2021-02-01-to-2022-01-31.json"
URL = "/v2/backtest/{}"
RESULT_MEMBERS, TRADE_MEMBERS = member_names(BacktestAnswer), member_names(RoundTrip)
SIGNAL_KEYS = ["direction", "reason", "tags", "timestamp", "price", "strength"]


def post(api, symbol: str, body, **extra):
    data = body if isinstance(body, bytes | str) else json.dumps(body)
    return api.post(URL.format(symbol), data, content_type="application/json", **extra)


def ok(response) -> dict:
    assert response.status_code == 200, response.content
    return response.json()


def api_error(response, status: int) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == status and body["error"], body
    return body


def assert_finite(value) -> None:
    if isinstance(value, dict):
        for item in value.values():
            assert_finite(item)
    elif isinstance(value, list):
        for item in value:
            assert_finite(item)
    elif isinstance(value, float):
        assert math.isfinite(value)


@pytest.fixture
def msft(yahoo, recording):
    payload = recording(MSFT_DIVIDENDS)
    yahoo.chart("MSFT", payload)
    return payload["chart"]["result"][0]


def chart_calls(yahoo) -> list[dict[str, list[str]]]:
    return [parse_qs(urlsplit(c.request.url).query)
            for c in calls_to(yahoo.mock, "/v8/finance/chart/")]


# ---- a hand-checked run on real recorded candles ------------------------------------------------
def test_buy_and_hold_on_recorded_candles_by_hand(api, yahoo, msft):
    body = ok(post(api, "msft", {"strategy": "buy_and_hold",
                                 "params": {"commissionPct": 0.001, "slippagePct": 0}}))
    assert list(body) == list(RESULT_MEMBERS)
    quote = msft["indicators"]["quote"][0]
    stamps = msft["timestamp"]
    entry = quote["open"][1]  # the signal is the first bar's; the fill the second's open
    qty = 10_000 / (entry * 1.001)
    dividends = [d["amount"] for d in msft["events"]["dividends"].values()]
    assert len(dividends) == 4 and all(d["date"] > stamps[1]
                                       for d in msft["events"]["dividends"].values())
    income = qty * sum(dividends)
    last = quote["close"][-1]
    final = qty * last * (1 - 0.001) + income  # all-in: no cash left besides dividends

    assert (body["symbol"], body["strategyName"]) == ("MSFT", "Buy and Hold")
    assert (body["startTimestamp"], body["endTimestamp"]) == (stamps[0], stamps[-1])
    assert body["initialCapital"] == 10_000
    assert body["finalEquity"] == pytest.approx(final)
    [trade] = body["trades"]
    assert list(trade) == list(TRADE_MEMBERS)
    assert trade["side"] == "long" and trade["tags"] == ["end_of_data"]
    assert (trade["entryTimestamp"], trade["exitTimestamp"]) == (stamps[1], stamps[-1])
    assert (trade["entryPrice"], trade["exitPrice"]) == (entry, last)
    assert trade["entryQuantity"] == trade["quantity"] == pytest.approx(qty)
    assert trade["dividendIncome"] == trade["unreinvestedDividends"] == pytest.approx(income)
    assert trade["commission"] == pytest.approx(qty * entry * 0.001 + qty * last * 0.001)
    assert trade["pnl"] == pytest.approx(final - 10_000)
    assert (trade["isPartial"], trade["scaleSequence"], trade["transactionTax"],
            trade["financingCost"]) == (False, 0, 0.0, 0.0)
    assert list(trade["entrySignal"]) == SIGNAL_KEYS
    assert trade["entrySignal"]["timestamp"] == stamps[0]
    assert trade["exitSignal"]["tags"] == ["end_of_data"]

    curve = body["equityCurve"]
    assert [p["timestamp"] for p in curve] == stamps  # one point per recorded bar
    assert curve[0] == {"timestamp": stamps[0], "equity": 10_000, "drawdownPct": 0.0}
    assert curve[-1]["equity"] == pytest.approx(final)
    # The first dividend's bar: the income is there, on top of the position's value.
    ex = stamps.index(1613572200)
    assert curve[ex]["equity"] == pytest.approx(qty * quote["close"][ex] + qty * 0.56)
    metrics = body["metrics"]
    assert list(metrics) == list(NUMBER_METRICS + INTEGER_METRICS)
    assert metrics["totalReturnPct"] == pytest.approx((final / 10_000 - 1) * 100)
    assert metrics["totalDividendIncome"] == pytest.approx(income)
    assert (metrics["totalTrades"], metrics["totalSignals"], metrics["executedSignals"]) == \
        (1, 1, 1)
    assert body["diagnostics"] == []
    assert chart_calls(yahoo) == [{"range": ["1y"], "interval": ["1d"],
                                   "includePrePost": ["false"],
                                   "events": ["div,split,capitalGain"]}]


def test_the_candles_are_the_charts_and_the_history_is_cached(api, yahoo, msft):
    chart = api.get("/v2/chart/MSFT?range=1y&interval=1d").json()
    first = ok(post(api, "MSFT", {"strategy": "sma_crossover", "range": "1y"}))
    second = ok(post(api, "MSFT", {"strategy": "rsi_reversal", "range": "1y",
                                   "params": {"period": 7}}))
    assert [p["timestamp"] for p in first["equityCurve"]] == \
        [c["timestamp"] for c in chart["candles"]]
    assert len(second["equityCurve"]) == len(chart["candles"])
    assert len(chart_calls(yahoo)) == 1  # one upstream call for the chart and both runs


def test_a_long_only_crossover_on_real_data(api, yahoo, msft):
    body = ok(post(api, "MSFT", {"strategy": "sma_crossover"}))
    trades = body["trades"]
    assert trades and all(t["side"] == "long" for t in trades)
    stamps = msft["timestamp"]
    for trade in trades:
        signal_bar = stamps.index(trade["entrySignal"]["timestamp"])
        assert trade["entryTimestamp"] == stamps[signal_bar + 1]
        assert trade["entryPrice"] == pytest.approx(
            msft["indicators"]["quote"][0]["open"][signal_bar + 1] * 1.001)
        assert trade["entrySignal"]["reason"].startswith("SMA(10) ")
    assert body["metrics"]["totalTrades"] == len(trades)
    assert_finite(body)


def test_the_curves_rows_are_its_points_records():
    """The equity curve is written by column from EquityPoint's members (thousands of
    points): the same JSON as the records'."""
    result = SimpleNamespace(timestamps=np.array([10, 20, 30]), equity=np.array([1.0, 2.0, 1.5]),
                             drawdown_pct=np.array([0.0, 0.0, 25.0]))
    rows = EquityPoint.rows(result)
    assert rows == tuple(as_json([EquityPoint(10, 1.0, 0.0), EquityPoint(20, 2.0, 0.0),
                                  EquityPoint(30, 1.5, 25.0)]))
    assert [list(row) for row in rows] == [list(member_names(EquityPoint))] * 3


# ---- every strategy through the sandbox --------------------------------------------------------
@pytest.mark.parametrize("name", list(STRATEGIES))
def test_every_strategy_through_the_sandbox(api, sandbox_upstream, name):
    body = ok(post(api, "AAPL", {"strategy": name, "range": "2y",
                                 "params": {"allowShort": True, "stopLossPct": 0.08}}))
    assert list(body) == list(RESULT_MEMBERS)
    assert body["strategyName"] == STRATEGIES[name].title
    assert body["trades"], body["diagnostics"]
    chart = api.get("/v2/chart/AAPL?range=2y").json()
    assert len(body["equityCurve"]) == len(chart["candles"])
    assert_finite(body)
    assert body["finalEquity"] == body["equityCurve"][-1]["equity"]


def test_defaults_and_a_no_trade_run_explained(api, sandbox_upstream):
    body = ok(post(api, "KO", {"strategy": "sma_crossover", "interval": "1mo", "range": "1y",
                               "params": {"fastPeriod": 50, "slowPeriod": 100}}))
    assert body["trades"] == [] and body["metrics"]["totalTrades"] == 0
    assert body["finalEquity"] == body["initialCapital"] == 10_000
    assert "warm-up" in body["diagnostics"][0]
    assert all(p["equity"] == 10_000 and p["drawdownPct"] == 0 for p in body["equityCurve"])
    assert_finite(body)
    default = ok(post(api, "KO", {"strategy": "buy_and_hold"}))
    span = default["endTimestamp"] - default["startTimestamp"]
    assert 350 * 86400 < span <= 366 * 86400  # 1y of 1d bars
    assert all(b - a <= 5 * 86400 for a, b in zip(
        [p["timestamp"] for p in default["equityCurve"]],
        [p["timestamp"] for p in default["equityCurve"]][1:], strict=False))


# ---- paging and fields -------------------------------------------------------------------------
def test_equity_curve_and_trades_are_paged_separately(api, sandbox_upstream):
    base = {"strategy": "ema_crossover", "range": "2y", "params": {"allowShort": True}}
    everything = ok(post(api, "MSFT", base))
    page = ok(post(api, "MSFT", {**base, "equityLimit": 3}))
    assert isinstance(page["trades"], list) and page["trades"] == everything["trades"]
    curve = page["equityCurve"]
    assert curve["nodes"] == everything["equityCurve"][:3]
    assert [e["cursor"] for e in curve["edges"]] == [encode_cursor(i) for i in range(3)]
    assert curve["pageInfo"] == {"startCursor": encode_cursor(0), "endCursor": encode_cursor(2),
                                 "hasNextPage": True, "hasPreviousPage": False}
    following = ok(post(api, "MSFT", {**base, "equityCursor": curve["pageInfo"]["endCursor"],
                                      "equityLimit": 2, "tradesLimit": 1,
                                      "tradesCursor": encode_cursor(0)}))
    assert following["equityCurve"]["nodes"] == everything["equityCurve"][3:5]
    assert following["trades"]["nodes"] == everything["trades"][1:2]
    assert following["trades"]["pageInfo"]["hasPreviousPage"] is True
    past = ok(post(api, "MSFT", {**base, "tradesCursor": encode_cursor(10_000)}))["trades"]
    assert past["nodes"] == [] and past["pageInfo"]["hasNextPage"] is False
    zero = ok(post(api, "MSFT", {**base, "equityLimit": 0}))["equityCurve"]
    assert zero["nodes"] == [] and zero["pageInfo"]["hasNextPage"] is True


def test_fields_in_the_body_or_the_query(api, sandbox_upstream):
    body = ok(post(api, "AAPL", {"strategy": "macd_signal", "fields": "metrics,symbol,nope"}))
    assert list(body) == ["symbol", "metrics"]
    query = api.post(URL.format("AAPL") + "?fields=finalEquity",
                     json.dumps({"strategy": "macd_signal"}), content_type="application/json")
    assert list(ok(query)) == ["finalEquity"]
    both = api.post(URL.format("AAPL") + "?fields=finalEquity",
                    json.dumps({"strategy": "macd_signal", "fields": "diagnostics"}),
                    content_type="application/json")
    assert list(ok(both)) == ["diagnostics"]  # the body's wins
    assert list(ok(post(api, "AAPL", {"strategy": "macd_signal", "fields": "x"}))) == \
        list(RESULT_MEMBERS)


@pytest.fixture
def no_v2_bucket(settings):
    """Hundreds of pages in one test (every example shares the client's bucket): the v2
    token bucket is off, as the bucket is not what is tested here."""
    settings.V2_RATE_LIMIT_CAPACITY = 0


@pytest.fixture
def frozen_sandbox(sandbox_upstream):
    """The sandbox's clock stopped at the test's start: hundreds of pages take longer than
    the chart's cache lifetime on a loaded machine, and a refetch at a later instant moves
    the last bar, and with it the whole backtest (a page from another run is no page of
    the first; seen in CI as a failure hypothesis could not replay)."""
    instant = datetime.now(UTC)
    sandbox_upstream.set_clock(lambda: instant)
    yield sandbox_upstream
    sandbox_upstream.set_clock(None)


@pytest.mark.parametrize("member", ["equityCurve", "trades"])
@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(limit=st.integers(min_value=1, max_value=40))
def test_following_end_cursor_visits_every_item_once(api, frozen_sandbox, no_v2_bucket,
                                                     member, limit):
    prefix = "equity" if member == "equityCurve" else "trades"
    base = {"strategy": "bollinger_mean_reversion", "range": "1y",
            "params": {"allowShort": True}, "fields": member}
    everything = ok(post(api, "NVDA", base))[member]
    seen, cursor = [], None
    for _ in range(len(everything) + 2):
        request = {**base, f"{prefix}Limit": limit}
        if cursor is not None:
            request[f"{prefix}Cursor"] = cursor
        page = ok(post(api, "NVDA", request))[member]
        seen.extend(page["nodes"])
        assert len(page["nodes"]) <= limit
        if not page["pageInfo"]["hasNextPage"]:
            break
        cursor = page["pageInfo"]["endCursor"]
    assert seen == everything


# ---- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("body", "names"), [
    ({"strategy": "nope"}, ["strategy: Input should be 'sma_crossover', 'ema_crossover', "
                            "'rsi_reversal', 'macd_signal', 'bollinger_mean_reversion', "
                            "'supertrend_follow', 'donchian_breakout' or 'buy_and_hold'"]),
    ({}, ["strategy: Field required"]),
    ({"strategy": "sma_crossover", "params": {"fastPeriod": "ten"}},
     ["params.fastPeriod: Input should be a valid integer"]),
    ({"strategy": "sma_crossover", "params": {"fastPeriod": 0, "commissionPct": 2}},
     ["params.fastPeriod: Input should be greater than or equal to 1",
      "params.commissionPct: Input should be less than or equal to 0.1"]),
    ({"strategy": "sma_crossover", "params": {"fastPeriod": 30}},
     ["params.fastPeriod: Input should be less than slowPeriod (20)"]),
    ({"strategy": "rsi_reversal", "params": {"oversold": 80}},
     ["params.oversold: Input should be less than overbought (70)"]),
    ({"strategy": "sma_crossover", "params": {"stopLoss": 0.1}},
     ["params.stopLoss: Unknown parameter; valid names: initialCapital"]),
    ({"strategy": "sma_crossover", "params": [1]},
     ["params: Input should be a valid dictionary"]),
    ({"strategy": "sma_crossover", "interval": "7m", "range": "forever"},
     ["interval: Input should be '1m'", "range: Input should be '1d'"]),
    ({"strategy": "sma_crossover", "equityLimit": -1, "tradesCursor": "%%%"},
     ["equityLimit: Input should be greater than or equal to 0", "tradesCursor: Invalid cursor"]),
    ({"strategy": "sma_crossover", "equityCursor": "eyJ4IjoxfQ"},
     ["equityCursor: Invalid cursor"]),
    ({"strategy": "sma_crossover", "interval": "1m", "range": "1y"},
     ["If interval is 1m, range must be 1d, 5d"]),
    # JSON types as the schema states them: no string for a number, no number for a string.
    ({"strategy": "sma_crossover", "fields": 0}, ["fields: Input should be a valid string"]),
    ({"strategy": "sma_crossover", "equityLimit": "5", "tradesLimit": True},
     ["equityLimit: Input should be a valid integer", "tradesLimit: Input should be a valid "
                                                      "integer"]),
    ({"strategy": "sma_crossover", "equityCursor": 0}, ["equityCursor: Invalid cursor"]),
    ({"strategy": 1}, ["strategy: Input should be 'sma_crossover'"]),
])
def test_bad_bodies_are_400_before_any_upstream_call(api, yahoo, body, names):
    error = api_error(post(api, "AAPL", body), 400)["error"]
    for name in names:
        assert name in error
    assert chart_calls(yahoo) == []


@pytest.mark.parametrize("raw", [b"{", b"[1]", b"null", b"\"x\"", b"{\"strategy\": NaN}"])
def test_malformed_or_non_object_json_is_400(api, yahoo, raw):
    api_error(post(api, "AAPL", raw), 400)


def test_other_methods_are_405(api):
    for response in (api.get(URL.format("AAPL")), api.put(URL.format("AAPL")),
                     api.delete(URL.format("AAPL"))):
        api_error(response, 405)


def test_unknown_or_malformed_symbol_and_no_candles_are_404(api, yahoo):
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    api_error(post(api, "ZZZZ", {"strategy": "sma_crossover"}), 404)
    api_error(post(api, "A..B", {"strategy": "sma_crossover"}), 404)
    yahoo.chart("EMPTY", chart_payload("EMPTY", [], []))
    body = api_error(post(api, "EMPTY", {"strategy": "sma_crossover"}), 404)
    assert "No candles" in body["error"]


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures(api, yahoo, kind):
    fail_url(yahoo.mock, QUERY2 + "/v8/finance/chart/AAPL", kind)
    status, _ = FAILURES[kind]
    body = api_error(post(api, "AAPL", {"strategy": "sma_crossover"}), status)
    assert body["provider"] == "yahoo"


def test_the_v2_token_bucket_applies(api, settings, sandbox_upstream):
    settings.V2_RATE_LIMIT_CAPACITY = 2
    settings.V2_RATE_LIMIT_REFILL_PER_SECOND = 0.0001
    settings.V2_RATE_LIMIT_SCOPE = "global"
    statuses = [post(api, "AAPL", {"strategy": "buy_and_hold"}) for _ in range(3)]
    assert [r.status_code for r in statuses] == [200, 200, 429]
    assert set(statuses[-1].json()) == {"error", "message", "retryAfterSeconds"}


# ---- the OpenAPI document ----------------------------------------------------------------------
def _operation():
    from tests.apps.test_schema_validation_api import openapi

    document = openapi()
    return document, document["paths"]["/v2/backtest/{symbol}"]


@pytest.mark.parametrize("body", [
    {"strategy": "supertrend_follow", "params": {"allowShort": True}},
    {"strategy": "donchian_breakout", "equityLimit": 5, "tradesLimit": 2},
    {"strategy": "rsi_reversal", "fields": "metrics,trades"},
])
def test_answers_match_the_openapi_schema(api, sandbox_upstream, body):
    import jsonschema

    document, operation = _operation()
    schema = operation["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    jsonschema.Draft202012Validator({**schema, "components": document["components"]}
                                    ).validate(ok(post(api, "MSFT", body)))


def test_docs_describe_the_body_with_an_example_per_strategy():
    document, operation = _operation()
    assert list(operation) == ["post"]
    post_op = operation["post"]
    content = post_op["requestBody"]["content"]["application/json"]
    examples = [e["value"] for e in content["examples"].values()]
    assert sorted(e["strategy"] for e in examples) == sorted(STRATEGIES)
    body = document["components"]["schemas"]["BacktestRequest"]
    assert body["required"] == ["strategy"]
    assert document["components"]["schemas"]["StrategyEnum"]["enum"] == list(STRATEGIES)
    params = body["properties"]["params"]
    assert params["additionalProperties"] is False
    assert {"fastPeriod", "stopLossPct", "maintenanceMarginPct", "exitAtMiddle"} <= \
        set(params["properties"])
    for name in STRATEGIES:
        assert f"`{name}`" in post_op["description"]
    assert {"400", "404", "429", "500"} <= set(post_op["responses"])


def test_every_documented_example_runs(api, sandbox_upstream):
    _, operation = _operation()
    content = operation["post"]["requestBody"]["content"]["application/json"]
    for example in content["examples"].values():
        body = ok(post(api, "AAPL", example["value"]))
        assert body["strategyName"] == STRATEGIES[example["value"]["strategy"]].title
        assert len(body["equityCurve"]["nodes"]) == 50
