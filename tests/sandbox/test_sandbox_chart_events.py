"""Sandbox v8 chart events: splits and capital gains in Yahoo's shape, consistent with the
prices, deterministic; absolute (period1/period2) windows."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import numpy as np

from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.instruments import stable_hash
from marketdata.sandbox.prices import series_for
from marketdata.sandbox.yahoo.chart import (
    SPLIT_TRIGGERS,
    capital_gain_sessions,
    split_sessions,
)

Q2 = "query2.finance.yahoo.com"
CLOCK = datetime(2026, 11, 20, 22, 30, tzinfo=UTC)  # Friday, after the US close


def chart(symbol: str, **query: str) -> dict[str, Any]:
    sb = UpstreamSandbox(clock=lambda: CLOCK)
    resp = sb.handle("GET", Q2, f"/v8/finance/chart/{symbol}",
                     {k: [v] for k, v in query.items()}, {})
    assert resp.status == 200, resp.body
    return json.loads(resp.body)["chart"]["result"][0]


def test_split_events_shape_and_window():
    # XYZQ: a generated equity (the well-known ones have their real splits, see
    # test_sandbox_corporate_actions.py); its one split of the last ten years.
    res = chart("XYZQ", range="10y", interval="1d", events="div|split|capitalGain")
    splits = res["events"]["splits"]
    assert len(splits) == 1
    (key, item), = splits.items()
    assert list(item) == ["date", "numerator", "denominator", "splitRatio"]
    assert int(key) == item["date"] and item["date"] in res["timestamp"]
    assert item["splitRatio"] == f"{item['numerator']}:{item['denominator']}"
    assert "capitalGains" not in res["events"]  # a stock: none
    # Outside the window, no split; not asked for, none either.
    assert "splits" not in chart("XYZQ", range="1mo", interval="1d", events="split").get(
        "events", {})
    assert "splits" not in chart("XYZQ", range="10y", interval="1d",
                                 events="div").get("events", {})


def test_splits_follow_the_prices():
    """A generated split goes ex after the price grew by at least its ratio since the last
    one."""
    for symbol in ("IBM", "XYZQ", "FOOB", "PLMK"):
        series = series_for(symbol)
        ref = 0
        splits = split_sessions(symbol)
        assert splits, symbol
        for k, ratio, denominator in splits:
            assert 2 <= ratio <= 10 and denominator == 1
            growth = series.c[k - 1] / series.c[ref]
            assert ratio == min(int(growth), 10)
            # The first close that grew by the symbol's trigger: none before it did.
            trigger = SPLIT_TRIGGERS[stable_hash("split-trigger", symbol) % len(SPLIT_TRIGGERS)]
            assert growth >= trigger
            assert np.all(series.c[ref:k - 1] < series.c[ref] * trigger)
            ref = k
    assert split_sessions("SPY") == () and split_sessions("VFIAX") == ()


def test_split_in_an_absolute_window():
    (k, ratio, _), *_ = split_sessions("XYZQ")
    series = series_for("XYZQ")
    ts = int(series.opens[k])
    res = chart("XYZQ", period1=str(ts - 3 * 86400), period2=str(ts + 3 * 86400),
                interval="1d", events="div,split")
    assert res["events"]["splits"] == {str(ts): {"date": ts, "numerator": ratio,
                                                 "denominator": 1,
                                                 "splitRatio": f"{ratio}:1"}}
    assert all(ts - 3 * 86400 <= t < ts + 3 * 86400 for t in res["timestamp"])
    assert res["meta"]["range"] == ""


def test_capital_gains_shape_and_adjclose():
    res = chart("VFIAX", range="10y", interval="1d", events="div,split,capitalGain")
    gains = res["events"]["capitalGains"]
    assert gains
    for key, item in gains.items():
        assert list(item) == ["amount", "date"]
        assert int(key) == item["date"] and item["date"] in res["timestamp"]
        assert 0 < item["amount"]
    closes = res["indicators"]["quote"][0]["close"]
    adj = res["indicators"]["adjclose"][0]["adjclose"]
    last_gain = max(int(k) for k in gains)
    i = res["timestamp"].index(last_gain)
    assert adj[-1] == closes[-1]
    assert adj[i - 1] < closes[i - 1]  # adjusted down for the distribution after it
    assert adj[i] == closes[i] or adj[i] < closes[i]


def test_capital_gains_follow_the_year_and_are_deterministic():
    series = series_for("VFIAX")
    gains = capital_gain_sessions("VFIAX")
    assert gains == capital_gain_sessions("VFIAX")
    for k, amount in gains:
        assert str(series.days[k])[5:7] == "12"
        prev = float(series.c[k - 1])
        assert series.c[k - 1] / series.c[k - 1 - 252] > 1.02
        assert amount <= 0.05 * prev + 1e-9
    assert capital_gain_sessions("AAPL") == ()
    assert capital_gain_sessions("IWM")  # one ETF in four distributes
    monthly = chart("VFIAX", range="max", interval="1mo", events="capitalGain")
    assert {int(k) for k in monthly["events"]["capitalGains"]} == {
        int(series.opens[k]) for k, _ in gains if series.opens[k] <= CLOCK.timestamp()}
