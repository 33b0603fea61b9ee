"""Tiingo's end-of-day prices: the parser, the real request (URL, parameters, the key in the
Authorization header only), the status map, the bars built from daily rows, what is not
served (without a call), the keyed base's refusal memory, and the secrecy of the key.

No Tiingo recording exists here: the bodies are hand-written in the shape Tiingo's
end-of-day documentation shows (an array of daily objects with raw and adjusted prices,
``divCash`` and ``splitFactor``; ``{"detail": ...}`` errors).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from datetime import date, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from marketdata.capabilities import bars as price_history
from marketdata.errors import (
    CredentialsRejected,
    NotServed,
    UpstreamBadResponse,
    UpstreamRateLimited,
    UpstreamUnavailable,
)
from marketdata.providers import tiingo
from marketdata.providers.base import KEY_REFUSAL_MEMORY_SECONDS
from marketdata.providers.registry import PROVIDERS, provider_class
from tests.conftest import capture_logs

KEY = "tiingo-secret-key-0123456789abcdef"
URL = "https://api.tiingo.com/tiingo/daily"
NY = tiingo.NEW_YORK


def row(day: str, open_: float, high: float, low: float, close: float, volume: int = 1000,
        adj: float | None = None, div: float = 0.0, split: float = 1.0) -> dict:
    return {"date": f"{day}T00:00:00.000Z", "close": close, "high": high, "low": low,
            "open": open_, "volume": volume, "adjClose": close if adj is None else adj,
            "adjHigh": high, "adjLow": low, "adjOpen": open_, "adjVolume": volume,
            "divCash": div, "splitFactor": split}


# Two weeks of a stock in January 2025 (Monday the 6th to Friday the 17th), one dividend
# going ex on the 10th and a 4-for-1 split on the 13th.
DAYS = [
    row("2025-01-06", 10.0, 11.0, 9.5, 10.5, 100),
    row("2025-01-07", 10.5, 12.0, 10.0, 11.5, 200),
    row("2025-01-08", 11.5, 11.75, 11.0, 11.25, 300),
    row("2025-01-09", 11.25, 11.5, 10.75, 11.0, 400),
    row("2025-01-10", 11.0, 11.25, 10.5, 10.75, 500, adj=10.5, div=0.24),
    row("2025-01-13", 2.7, 2.9, 2.6, 2.8, 4000, split=4.0),
    row("2025-01-14", 2.8, 3.0, 2.75, 2.95, 4100),
    row("2025-01-15", 2.95, 3.1, 2.9, 3.05, 4200),
    row("2025-01-16", 3.05, 3.2, 3.0, 3.1, 4300),
    row("2025-01-17", 3.1, 3.15, 2.95, 3.0, 4400),
]


def at_open(day: str) -> int:
    return int(datetime.combine(date.fromisoformat(day), tiingo.SESSION_OPEN, NY).timestamp())


@pytest.fixture(autouse=True)
def _key_and_fast_retries(settings, monkeypatch):
    settings.TIINGO_API_KEY = KEY
    fast = dataclasses.replace(tiingo.PROVIDER, backoff_seconds=0.001,
                               backoff_max_seconds=0.001)
    monkeypatch.setattr(tiingo.TiingoProvider, "config", fast)
    monkeypatch.setattr(tiingo, "new_york_today", lambda: date(2025, 1, 18))


@pytest.fixture
def upstream():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def serve(mock, ticker: str, body, status: int = 200):
    import re

    return mock.add(responses.GET, re.compile(re.escape(f"{URL}/{ticker}/prices") + r"(\?.*)?$"),
                    body=json.dumps(body), status=status, content_type="application/json")


# -- the parser -------------------------------------------------------------------------------
def test_parse_keeps_usable_rows_oldest_first_and_the_last_of_a_repeated_day():
    body = [DAYS[1], {"date": "2025-01-08T00:00:00.000Z", "open": None, "high": 1, "low": 1,
                      "close": 1}, DAYS[0], {**DAYS[1], "close": 11.6}, "not a row",
            {"date": "junk", "open": 1, "high": 1, "low": 1, "close": 1}]
    rows = tiingo.parse_prices(body)
    assert [r.day for r in rows] == [date(2025, 1, 6), date(2025, 1, 7)]
    assert rows[1].close == 11.6 and rows[0].volume == 100 and rows[0].adjclose == 10.5


@pytest.mark.parametrize("body", [{"detail": "Something happened"}, "text", None, 3])
def test_a_body_that_is_not_a_list_is_a_bad_answer(body):
    with pytest.raises(UpstreamBadResponse) as caught:
        tiingo.parse_prices(body)
    assert not isinstance(caught.value, CredentialsRejected)
    assert caught.value.provider == "tiingo"


def test_a_200_body_naming_the_token_is_a_refused_key():
    with pytest.raises(CredentialsRejected, match="TIINGO_API_KEY"):
        tiingo.parse_prices({"detail": "Invalid token."})


# -- the record ---------------------------------------------------------------------------------
def test_daily_bars_are_the_rows_stamped_at_the_open():
    bars = tiingo.to_bars(tiingo.parse_prices(DAYS), "ACME", "1d", "1mo")
    assert bars.source == "tiingo" and len(bars) == 10
    assert bars.timestamps[0] == at_open("2025-01-06") == 1736173800
    assert (bars.open[0], bars.high[0], bars.low[0], bars.close[0]) == (10.0, 11.0, 9.5, 10.5)
    assert bars.volume[:2] == [100, 200] and bars.adjclose[4] == 10.5
    meta = bars.meta
    assert (meta["symbol"], meta["currency"], meta["exchangeTimezoneName"]) == (
        "ACME", "USD", "America/New_York")
    assert (meta["regularMarketPrice"], meta["previousClose"], meta["priceHint"]) == (
        3.0, 3.1, 2)
    assert meta["regularMarketTime"] == at_open("2025-01-17") + 6 * 3600 + 1800
    assert (meta["dataGranularity"], meta["range"]) == ("1d", "1mo")


def test_events_come_from_the_dividend_and_split_columns():
    events = tiingo.to_bars(tiingo.parse_prices(DAYS), "ACME", "1d", "1mo").events
    assert events.dividends == [(at_open("2025-01-10"), 0.24)]
    assert events.splits == [(at_open("2025-01-13"), 4.0, 1.0, "4:1")]
    reverse = tiingo.to_bars(tiingo.parse_prices([row("2025-01-06", 1, 1, 1, 1, split=0.5)]),
                             "ACME", "1d", "1mo").events
    assert reverse.splits[0][1:] == (1.0, 2.0, "1:2")


def test_weekly_bars_aggregate_each_week_from_its_first_session():
    bars = tiingo.to_bars(tiingo.parse_prices(DAYS), "ACME", "1wk", "1mo")
    assert bars.timestamps == [at_open("2025-01-06"), at_open("2025-01-13")]
    assert (bars.open, bars.high, bars.low, bars.close) == (
        [10.0, 2.7], [12.0, 3.2], [9.5, 2.6], [10.75, 3.0])
    assert bars.volume == [1500, 21000] and bars.adjclose == [10.5, 3.0]


def test_monthly_and_quarterly_bars_group_by_calendar_period():
    rows = tiingo.parse_prices([row("2024-12-31", 5, 6, 4, 5.5), *DAYS,
                                row("2025-04-01", 7, 8, 6, 7.5)])
    monthly = tiingo.to_bars(rows, "ACME", "1mo", "1y")
    assert monthly.timestamps == [at_open("2024-12-31"), at_open("2025-01-06"),
                                  at_open("2025-04-01")]
    assert monthly.close == [5.5, 3.0, 7.5]
    quarterly = tiingo.to_bars(rows, "ACME", "3mo", "max")
    assert len(quarterly) == 3 and quarterly.high[1] == 12.0


def test_prices_before_a_split_are_adjusted_for_it_as_yahoo_has_them():
    rows = tiingo.split_adjusted(tiingo.parse_prices(DAYS))
    before, ex_day = rows[4], rows[5]  # the 10th, and the 13th (4-for-1)
    assert (before.open, before.high, before.low, before.close) == (2.75, 2.8125, 2.625,
                                                                   2.6875)
    assert before.volume == 2000 and before.dividend == 0.06 and before.adjclose == 10.5
    assert (ex_day.close, ex_day.volume) == (2.8, 4000)
    assert rows[0].close == 2.625 and rows[0].volume == 400
    thirds = tiingo.split_adjusted(tiingo.parse_prices(
        [row("2025-01-06", 37.02, 37.02, 37.02, 37.02), row("2025-01-07", 1, 1, 1, 1,
                                                           split=3.0)]))
    assert thirds[0].close == 12.34  # no float noise


def test_no_rows_is_a_known_ticker_without_bars():
    bars = tiingo.to_bars([], "ACME", "1d", "5d")
    assert len(bars) == 0 and bars.meta["regularMarketPrice"] is None


# -- the request --------------------------------------------------------------------------------
def test_the_call_has_the_window_and_the_key_only_in_the_header(upstream):
    serve(upstream, "brk-b", DAYS)
    tiingo.bars("BRK-B", "1d", "1mo")
    tiingo.bars("BRK-B", "1wk", "1mo")  # the same daily call, from the cache
    assert len(upstream.calls) == 1
    request = upstream.calls[0].request
    assert urlsplit(request.url).path == "/tiingo/daily/brk-b/prices"
    assert parse_qs(urlsplit(request.url).query) == {"startDate": ["2024-12-18"],
                                                      "resampleFreq": ["daily"]}
    assert request.headers["Authorization"] == f"Token {KEY}"
    assert KEY not in request.url


@pytest.mark.parametrize(("range_", "start"), [("ytd", "2025-01-01"), ("max", "1900-01-01"),
                                               ("5d", "2025-01-08"), ("10y", "2015-01-18")])
def test_each_range_asks_from_its_first_day(upstream, range_, start):
    serve(upstream, "acme", DAYS)
    bars = tiingo.bars("ACME", "1d", range_)
    assert parse_qs(urlsplit(upstream.calls[0].request.url).query)["startDate"] == [start]
    if range_ == "5d":  # the last five sessions of what came back
        assert bars.timestamps[0] == at_open("2025-01-13") and len(bars) == 5


def test_an_absolute_window_asks_for_its_days_and_keeps_its_bars(upstream):
    serve(upstream, "acme", DAYS)
    start, end = at_open("2025-01-07") - 3600, at_open("2025-01-09") + 60
    bars = tiingo.bars("ACME", "1d", start=start, end=end)
    query = parse_qs(urlsplit(upstream.calls[0].request.url).query)
    # Up to today, so the splits after the window are known.
    assert query == {"startDate": ["2025-01-07"], "resampleFreq": ["daily"]}
    assert bars.timestamps == [at_open("2025-01-07"), at_open("2025-01-08"),
                               at_open("2025-01-09")]


@pytest.mark.parametrize(("symbol", "interval"), [
    ("AAPL", "1m"), ("AAPL", "1h"), ("AAPL", "5d"), ("^GSPC", "1d"), ("ES=F", "1d"),
    ("EURUSD=X", "1d"), ("7203.T", "1d"), ("BTC-USD", "1d"), ("0700.HK", "1wk")])
def test_what_tiingo_cannot_serve_is_passed_over_without_a_call(upstream, symbol, interval):
    with pytest.raises(NotServed):
        tiingo.bars(symbol, interval, "1mo")
    assert not upstream.calls


def test_an_unknown_ticker_is_not_served(upstream):
    serve(upstream, "zzzz", {"detail": "Error: Ticker 'ZZZZ' not found"}, 404)
    with pytest.raises(NotServed, match="ZZZZ"):
        tiingo.bars("ZZZZ", "1d", "1mo")


@pytest.mark.parametrize(("status", "error"), [(429, UpstreamRateLimited),
                                               (400, UpstreamBadResponse),
                                               (503, UpstreamBadResponse)])
def test_other_statuses(upstream, status, error):
    serve(upstream, "acme", {"detail": "no"}, status)
    with pytest.raises(error) as caught:
        tiingo.bars("ACME", "1d", "1mo")
    assert caught.value.provider == "tiingo"


def test_a_refused_key_is_not_sent_again_for_a_while_and_never_shown(upstream):
    serve(upstream, "acme", {"detail": "Invalid token."}, 401)
    serve(upstream, "msft", DAYS)
    provider = tiingo.tiingo_provider()
    now = [1000.0]
    provider.monotonic = lambda: now[0]
    with capture_logs("", logging.DEBUG) as logs, \
            pytest.raises(CredentialsRejected) as caught:
        tiingo.bars("ACME", "1d", "1mo")
    for text in (caught.value.detail, json.dumps(caught.value.to_dict()), logs.text()):
        assert KEY not in text
    assert "TIINGO_API_KEY" in caught.value.detail
    with pytest.raises(CredentialsRejected, match="recently"):
        tiingo.bars("MSFT", "1d", "1mo")
    assert len(upstream.calls) == 1
    now[0] += KEY_REFUSAL_MEMORY_SECONDS + 1
    assert len(tiingo.bars("MSFT", "1d", "1y")) == 10


def test_no_key_no_call(upstream, settings):
    settings.TIINGO_API_KEY = ""
    with pytest.raises(CredentialsRejected, match="not set"):
        tiingo.bars("ACME", "1d", "1mo")
    assert not upstream.calls


def test_the_registry_builds_it():
    assert provider_class("tiingo") is tiingo.TiingoProvider
    assert PROVIDERS["tiingo"].startswith("marketdata.providers.tiingo:")


# -- through the capability ---------------------------------------------------------------------
CHART = "https://query2.finance.yahoo.com/v8/finance/chart/"


def test_the_capability_falls_back_to_tiingo_when_yahoos_chart_fails(upstream):
    import re

    upstream.add(responses.GET, re.compile(re.escape(CHART) + r".*"), status=503)
    serve(upstream, "acme", DAYS)
    bars = price_history.chart("ACME", "1d", "1mo")
    assert bars.source == "tiingo" and len(bars) == 10
    assert price_history.candles("ACME", "1mo", "1d").close[-1] == 3.0


def test_without_a_key_yahoos_failure_is_the_answer(upstream, settings):
    import re

    settings.TIINGO_API_KEY = ""
    upstream.add(responses.GET, re.compile(re.escape(CHART) + r".*"), status=503)
    with pytest.raises(UpstreamBadResponse) as caught:
        price_history.chart("ACME", "1d", "1mo")
    assert caught.value.provider == "yahoo"
    assert not [c for c in upstream.calls if "tiingo" in c.request.url]


def test_intraday_is_yahoos_alone(upstream):
    import re

    upstream.add(responses.GET, re.compile(re.escape(CHART) + r".*"), status=503)
    with pytest.raises((UpstreamBadResponse, UpstreamUnavailable)) as caught:
        price_history.chart("ACME", "5m", "1d")
    assert caught.value.provider == "yahoo"
    assert not [c for c in upstream.calls if "tiingo" in c.request.url]


@pytest.mark.parametrize(("day", "months", "expected"), [
    (date(2025, 3, 31), 1, date(2025, 2, 28)), (date(2024, 3, 31), 1, date(2024, 2, 29)),
    (date(2025, 1, 18), 1, date(2024, 12, 18)), (date(2025, 12, 31), 120, date(2015, 12, 31)),
    (date(2025, 5, 31), 3, date(2025, 2, 28)), (date(2025, 1, 1), 12, date(2024, 1, 1))])
def test_months_before(day, months, expected):
    assert tiingo.months_before(day, months) == expected
