"""The simulated Tiingo: end-of-day rows in Tiingo's shape, the token check (header or query),
US listings only, closed sessions only, raw prices that the real provider module turns back
into the simulated Yahoo chart's bars (splits and dividends included), routing by host."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from marketdata.providers import tiingo
from marketdata.providers.yahoo.chart import parse_bars
from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.yahoo.chart import split_sessions

HOST = "api.tiingo.com"
CLOCK = datetime(2026, 11, 20, 22, 30, tzinfo=UTC)  # Friday, after the US close
KEY = "sandbox-tiingo-key"
MEMBERS = ["date", "close", "high", "low", "open", "volume", "adjClose", "adjHigh", "adjLow",
           "adjOpen", "adjVolume", "divCash", "splitFactor"]


def make(clock: datetime = CLOCK) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock)


def get(sb: UpstreamSandbox, ticker: str, key: str | None = KEY, header: bool = True,
        **query: str) -> tuple[int, Any]:
    params = {name: [value] for name, value in query.items()}
    headers = {}
    if key is not None and header:
        headers["Authorization"] = f"Token {key}"
    elif key is not None:
        params["token"] = [key]
    answer = sb.handle("GET", HOST, f"/tiingo/daily/{ticker}/prices", params, headers)
    return answer.status, json.loads(answer.body)


def yahoo_chart(sb: UpstreamSandbox, symbol: str, range_: str) -> Any:
    answer = sb.handle("GET", "query2.finance.yahoo.com", f"/v8/finance/chart/{symbol}",
                       {"range": [range_], "interval": ["1d"],
                        "events": ["div,split,capitalGain"]}, {})
    return parse_bars(json.loads(answer.body), "1d")


def test_rows_have_tiingos_members_and_only_closed_sessions():
    status, rows = get(make(), "aapl", startDate="2026-11-01")
    assert status == 200 and rows
    assert all(list(r) == MEMBERS for r in rows)
    assert rows[-1]["date"] == "2026-11-20T00:00:00.000Z"
    status, open_day = get(make(datetime(2026, 11, 20, 17, 0, tzinfo=UTC)), "AAPL",
                           startDate="2026-11-01")
    assert open_day[-1]["date"] == "2026-11-19T00:00:00.000Z"  # the 20th is still trading


def test_the_window_is_inclusive_and_without_a_start_only_the_latest_row():
    _, rows = get(make(), "MSFT", startDate="2026-11-16", endDate="2026-11-18")
    assert [r["date"][:10] for r in rows] == ["2026-11-16", "2026-11-17", "2026-11-18"]
    _, latest = get(make(), "MSFT")
    assert [r["date"][:10] for r in latest] == ["2026-11-20"]


@pytest.mark.parametrize("key", [None, "", "INVALID-key"])
def test_a_missing_or_invalid_token_is_401(key):
    assert get(make(), "AAPL", key=key) == (401, {"detail": "Invalid token."})


def test_the_token_may_be_a_query_parameter():
    status, _ = get(make(), "AAPL", header=False, startDate="2026-11-16")
    assert status == 200


@pytest.mark.parametrize("ticker", ["^GSPC", "ES=F", "EURUSD=X", "BTC-USD", "7203.T", "ZZZZQ"])
def test_what_tiingo_does_not_list_is_its_404(ticker):
    status, body = get(make(), ticker, startDate="2026-11-16")
    assert status == 404 and body == {"detail": f"Error: Ticker '{ticker}' not found"}


def test_bad_dates_and_other_frequencies_are_400():
    assert get(make(), "AAPL", startDate="2026-13-01")[0] == 400
    assert get(make(), "AAPL", startDate="2026-11-01", resampleFreq="weekly")[0] == 400


def test_deterministic():
    assert get(make(), "KO", startDate="2025-01-01") == get(make(), "KO", startDate="2025-01-01")


def _split_symbol() -> str:
    for symbol in ("AAPL", "MSFT", "KO", "NVDA", "AMZN", "GOOGL", "JPM", "XOM", "WMT", "PG"):
        if split_sessions(symbol):
            return symbol
    pytest.skip("no simulated split among the candidates")


def test_the_provider_turns_the_rows_back_into_the_yahoo_charts_bars():
    """The real parser and split adjustment on the simulated rows give the simulated Yahoo
    chart's daily bars: the same timestamps, prices, volumes, dividends and splits."""
    symbol = _split_symbol()
    sb = make()
    chart = yahoo_chart(sb, symbol, "max")
    first = datetime.fromtimestamp(chart.timestamps[0], tiingo.NEW_YORK).date()
    _, body = get(sb, symbol, startDate=first.isoformat())
    rows = tiingo.split_adjusted(tiingo.parse_prices(body))
    bars = tiingo.to_bars(rows, symbol, "1d", "max")
    assert bars.timestamps == chart.timestamps
    assert bars.close == pytest.approx(chart.close, rel=1e-9, abs=1e-4)
    assert bars.open == pytest.approx(chart.open, rel=1e-9, abs=1e-4)
    # Raw volumes are whole shares: before a 4:1 split a volume is off by less than 4.
    assert bars.volume == pytest.approx(chart.volume, rel=1e-5)
    assert [s[0] for s in bars.events.splits] == [s[0] for s in chart.events.splits]
    assert [s[3] for s in bars.events.splits] == [s[3] for s in chart.events.splits]
    assert [d[0] for d in bars.events.dividends] == [d[0] for d in chart.events.dividends]
    assert [d[1] for d in bars.events.dividends] == pytest.approx(
        [d[1] for d in chart.events.dividends], abs=1e-4)
    assert bars.adjclose == pytest.approx(chart.adjclose, rel=1e-6)


def test_routed_by_host_only():
    answer = make().handle("GET", "query2.finance.yahoo.com", "/tiingo/daily/AAPL/prices", {},
                           {"Authorization": f"Token {KEY}"})
    assert answer.status == 404
