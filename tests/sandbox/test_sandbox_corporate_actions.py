"""The sandbox's well-known companies carry their real splits and (approximately) their real
dividends, the same in the chart's events, /v2/splits, /v2/dividends, quoteSummary and the
Tiingo sandbox's raw prices; split-adjusted prices stay continuous across a split while the
raw close jumps by the ratio.

The expected splits are written here by hand from the companies' public announcements, not
read from marketdata/sandbox/corporate_actions.py.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.instruments import get_instrument
from marketdata.sandbox.prices import series_for

CLOCK = datetime(2026, 11, 20, 22, 30, tzinfo=UTC)  # Friday, after the US close
NEW_YORK = ZoneInfo("America/New_York")

# (ex-date, numerator, denominator): what every user of these stocks knows.
REAL_SPLITS: dict[str, list[tuple[str, int, int]]] = {
    "AAPL": [("1987-06-16", 2, 1), ("2000-06-21", 2, 1), ("2005-02-28", 2, 1),
             ("2014-06-09", 7, 1), ("2020-08-31", 4, 1)],
    "TSLA": [("2020-08-31", 5, 1), ("2022-08-25", 3, 1)],
    "NVDA": [("2000-06-27", 2, 1), ("2001-09-17", 2, 1), ("2006-04-07", 2, 1),
             ("2007-09-11", 3, 2), ("2021-07-20", 4, 1), ("2024-06-10", 10, 1)],
    "GOOG": [("2022-07-18", 20, 1)],
    "GOOGL": [("2022-07-18", 20, 1)],
    "AMZN": [("1998-06-02", 2, 1), ("1999-01-05", 3, 1), ("1999-09-02", 2, 1),
             ("2022-06-06", 20, 1)],
    "META": [],
    "BRK-B": [("2010-01-21", 50, 1)],
    "WMT": [("2024-02-26", 3, 1)],
    "AVGO": [("2024-07-15", 10, 1)],
    "CMG": [("2024-06-26", 50, 1)],
}


@pytest.fixture(scope="module", autouse=True)
def _warm_series():
    """Build the symbols' series (and the XNYS calendar) before the first request, so a
    cold build on a busy machine cannot run into the request deadline."""
    for symbol in (*REAL_SPLITS, "MSFT"):
        series_for(symbol)


def new_york_day(timestamp: int) -> str:
    return datetime.fromtimestamp(timestamp, NEW_YORK).date().isoformat()


def splits_seen(items: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    return [(new_york_day(s["timestamp"]), s["numerator"], s["denominator"]) for s in items]


def expected_splits(symbol: str) -> list[tuple[str, int, int]]:
    """The real splits inside the sandbox's history of the symbol (generated symbols such
    as WMT start on a hashed first trading day)."""
    first = str(series_for(symbol).days[0])
    return [s for s in REAL_SPLITS[symbol] if s[0] > first]


# ---- through the service, on the in-process sandbox ------------------------------------------
@pytest.mark.parametrize("symbol", sorted(REAL_SPLITS))
def test_splits_endpoint_gives_the_real_history(api, sandbox_upstream, symbol):
    response = api.get(f"/v2/splits/{symbol}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert splits_seen(body) == expected_splits(symbol)
    assert all(s["ratio"] == f"{s['numerator']}:{s['denominator']}" for s in body)


def test_chart_events_splits_and_dividends_agree(api, sandbox_upstream):
    symbols = ("AAPL", "TSLA", "NVDA", "GOOG", "MSFT")
    for symbol in symbols:
        chart = api.get(f"/v2/chart/{symbol}?interval=1mo&range=max&events=true").json()
        splits = api.get(f"/v2/splits/{symbol}").json()
        dividends = api.get(f"/v2/dividends/{symbol}").json()["dividends"]
        assert chart["events"]["splits"] == splits, symbol
        assert chart["events"]["dividends"] == dividends, symbol
    batch = api.get("/v2/splits?symbols=" + ",".join(symbols)).json()
    assert {entry["symbol"]: splits_seen(entry["splits"]) for entry in batch["splits"]} == {
        symbol: REAL_SPLITS[symbol] for symbol in ("AAPL", "TSLA", "NVDA", "GOOG")} | {
        "MSFT": splits_seen(api.get("/v2/splits/MSFT").json())}


def test_dividends_follow_the_real_schedules(api, sandbox_upstream):
    def dividends(symbol: str) -> list[tuple[str, float]]:
        body = api.get(f"/v2/dividends/{symbol}").json()["dividends"]
        return [(new_york_day(d["timestamp"]), d["amount"]) for d in body]

    assert dividends("TSLA") == [] and dividends("AMZN") == [] and dividends("CMG") == []
    aapl = dividends("AAPL")
    # Reinstated in August 2012 (2.65 a share then: 2.65 / 7 / 4 in today's shares).
    assert aapl[0] == ("2012-08-09", pytest.approx(2.65 / 28, abs=1e-6))
    assert all(day[5:7] in ("02", "05", "08", "11") for day, _ in aapl)
    recent = [amount for day, amount in aapl if day >= "2024-06-01"]
    assert recent and all(0.24 <= a <= 0.27 for a in recent)  # about a quarter a share
    msft = dividends("MSFT")
    assert msft[0][0].startswith("2004") and all(a > 0 for _, a in msft)
    assert next(a for day, a in msft if day >= "2025-01-01") == pytest.approx(0.83, abs=0.05)
    nvda = [a for day, a in dividends("NVDA") if day >= "2024-07-01"]
    assert nvda and all(a <= 0.011 for a in nvda)  # a cent a share after the 10:1 split
    goog = dividends("GOOG")
    assert goog[0] == ("2024-06-10", pytest.approx(0.20)) and len(goog) >= 4
    meta = dividends("META")
    assert meta[0] == ("2024-02-21", pytest.approx(0.50))
    # Quarterly: about four ex-dates a year.
    for symbol, payments in (("AAPL", aapl), ("MSFT", msft)):
        for year in range(2013, 2026):
            assert len([d for d, _ in payments if d.startswith(str(year))]) in (4, 5), symbol


# ---- in the sandbox itself ---------------------------------------------------------------------
def sandbox_get(host: str, path: str, **query: str) -> Any:
    headers = {"Authorization": "Token sandbox-key"} if "tiingo" in host else {}
    answer = UpstreamSandbox(clock=lambda: CLOCK).handle(
        "GET", host, path, {k: [v] for k, v in query.items()}, headers)
    assert answer.status == 200, answer.body
    return json.loads(answer.body)


@pytest.mark.parametrize(("symbol", "day", "ratio"), [
    ("AAPL", "2020-08-31", 4.0), ("AAPL", "2014-06-09", 7.0), ("TSLA", "2022-08-25", 3.0),
    ("NVDA", "2024-06-10", 10.0), ("NVDA", "2007-09-11", 1.5), ("GOOG", "2022-07-18", 20.0)])
def test_adjusted_close_is_continuous_and_raw_close_jumps_by_the_ratio(symbol, day, ratio):
    split_day = date.fromisoformat(day)
    start = date(split_day.year, split_day.month, 1).isoformat()
    chart = sandbox_get("query2.finance.yahoo.com", f"/v8/finance/chart/{symbol}",
                        interval="1d", events="split",
                        period1=str(int(datetime.fromisoformat(start + "T00:00:00+00:00")
                                        .timestamp())),
                        period2=str(int(datetime.fromisoformat(day + "T00:00:00+00:00")
                                        .timestamp()) + 10 * 86400))["chart"]["result"][0]
    days = [new_york_day(t) for t in chart["timestamp"]]
    k = days.index(day)
    closes = chart["indicators"]["quote"][0]["close"]
    adjusted = chart["indicators"]["adjclose"][0]["adjclose"]
    # No jump larger than a normal day's move in the split-adjusted prices.
    normal = 6 * get_instrument(symbol).daily_vol
    assert abs(math.log(closes[k] / closes[k - 1])) < normal
    assert abs(math.log(adjusted[k] / adjusted[k - 1])) < normal
    event = chart["events"]["splits"][str(chart["timestamp"][k])]
    assert event["numerator"] / event["denominator"] == ratio
    # Tiingo's raw close: the same prices times the later splits, so it drops by the ratio.
    rows = sandbox_get("api.tiingo.com", f"/tiingo/daily/{symbol}/prices", startDate=start,
                       endDate=days[-1])
    raw = {r["date"][:10]: r for r in rows}
    before, after = raw[days[k - 1]], raw[day]
    assert after["splitFactor"] == ratio
    assert before["close"] / after["close"] == pytest.approx(
        ratio * closes[k - 1] / closes[k], rel=1e-3)


def test_quote_summary_gives_the_last_real_split():
    sb = UpstreamSandbox(clock=lambda: CLOCK)
    first = sb.handle("GET", "fc.yahoo.com", "/", {}, {})
    cookie = first.headers["Set-Cookie"].split(";")[0]
    crumb = sb.handle("GET", "query1.finance.yahoo.com", "/v1/test/getcrumb", {},
                      {"Cookie": cookie}).body.decode()

    def statistics(symbol: str) -> dict[str, Any]:
        answer = sb.handle("GET", "query2.finance.yahoo.com",
                           f"/v10/finance/quoteSummary/{symbol}",
                           {"modules": ["defaultKeyStatistics"], "formatted": ["false"],
                            "crumb": [crumb]}, {})
        body = json.loads(answer.body)["quoteSummary"]["result"][0]
        return body["defaultKeyStatistics"]

    aapl = statistics("AAPL")
    assert aapl["lastSplitFactor"] == "4:1"
    assert aapl["lastSplitDate"] == int(datetime(2020, 8, 31, tzinfo=UTC).timestamp())
    assert statistics("NVDA")["lastSplitFactor"] == "10:1"
    assert statistics("META")["lastSplitFactor"] is None


def test_unknown_symbols_keep_their_generated_behaviour():
    """Any plausible symbol still answers, deterministically, with generated events."""
    body = sandbox_get("query2.finance.yahoo.com", "/v8/finance/chart/XYZQ", range="max",
                       interval="1mo", events="split")["chart"]["result"][0]
    again = sandbox_get("query2.finance.yahoo.com", "/v8/finance/chart/XYZQ", range="max",
                        interval="1mo", events="split")["chart"]["result"][0]
    assert body["events"]["splits"] and body["events"] == again["events"]
