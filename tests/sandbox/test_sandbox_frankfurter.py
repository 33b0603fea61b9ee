"""The sandbox's Frankfurter (ECB reference rates): the v1 time-series shape, TARGET business
days and publication time, agreement with the sandbox's Yahoo FX series, Frankfurter's error
bodies, both hosts, determinism, faults, and the service's parser reading the answer."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

import numpy as np
import pytest

from marketdata.providers.frankfurter import parse_timeseries
from marketdata.sandbox import SandboxResponse, UpstreamSandbox
from marketdata.sandbox.frankfurter.ecb_calendar import (
    is_fix_day,
    last_published,
    target_holidays,
)
from marketdata.sandbox.frankfurter.rates import ECB_CURRENCIES, publish_round
from marketdata.sandbox.prices import series_for

HOST = "api.frankfurter.dev"
CLOCK = datetime(2025, 1, 8, 17, 0, tzinfo=UTC)  # after the 8 January fix (16:00 CET)


def make(clock: datetime = CLOCK, **kwargs: Any) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock, **kwargs)


def get(sb: UpstreamSandbox, path: str, host: str = HOST, **query: str) -> SandboxResponse:
    return sb.handle("GET", host, path, {k: [v] for k, v in query.items()}, {})


def data(response: SandboxResponse) -> Any:
    return json.loads(response.body)


def close_of(symbol: str, day: date) -> float:
    series = series_for(symbol)
    assert series is not None
    i = int(np.searchsorted(series.days, np.datetime64(day, "D")))
    assert series.days[i] == np.datetime64(day, "D")
    return float(series.c[i])


# -- shape ------------------------------------------------------------------------------------
def test_time_series_shape():
    response = get(make(), "/v1/2024-12-29..", base="EUR", symbols="USD")
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("application/json")
    assert response.headers["X-Data-Source"] == "sandbox"
    body = data(response)
    assert list(body) == ["amount", "base", "start_date", "end_date", "rates"]
    assert (body["amount"], body["base"]) == (1.0, "EUR")
    days = list(body["rates"])
    assert days == ["2024-12-27", "2024-12-30", "2024-12-31", "2025-01-02", "2025-01-03",
                    "2025-01-06", "2025-01-07", "2025-01-08"]
    assert (body["start_date"], body["end_date"]) == (days[0], days[-1])
    assert all(list(row) == ["USD"] for row in body["rates"].values())


def test_the_start_rolls_back_to_the_last_fix_on_or_before_it():
    """Frankfurter starts a series at the nearest fix on or before `start` (27 December,
    the Friday before the Sunday asked for)."""
    body = data(get(make(), "/v1/2024-12-29..2024-12-31", symbols="GBP"))
    assert list(body["rates"]) == ["2024-12-27", "2024-12-30", "2024-12-31"]


def test_every_ecb_currency_when_symbols_is_absent():
    body = data(get(make(), "/v1/2025-01-08..2025-01-08"))
    (row,) = body["rates"].values()
    assert list(row) == sorted(ECB_CURRENCIES - {"EUR"}) and len(row) == 29
    rebased = data(get(make(), "/v1/2025-01-08..2025-01-08", base="USD"))
    (row,) = rebased["rates"].values()
    assert "EUR" in row and "USD" not in row and list(row) == sorted(row)


def test_from_and_to_are_synonyms():
    assert data(get(make(), "/v1/2025-01-06..", **{"from": "USD", "to": "JPY"})) == data(
        get(make(), "/v1/2025-01-06..", base="USD", symbols="JPY"))


# -- ECB business days and publication --------------------------------------------------------
def test_target_holidays():
    assert target_holidays(2025) == {date(2025, 1, 1), date(2025, 4, 18), date(2025, 4, 21),
                                     date(2025, 5, 1), date(2025, 12, 25), date(2025, 12, 26)}
    assert not is_fix_day(date(2025, 1, 4))  # Saturday
    assert is_fix_day(date(2025, 1, 2))


def test_easter_is_skipped():
    clock = datetime(2025, 4, 30, 17, 0, tzinfo=UTC)
    body = data(get(make(clock), "/v1/2025-04-16..2025-04-23", symbols="USD"))
    assert list(body["rates"]) == ["2025-04-16", "2025-04-17", "2025-04-22", "2025-04-23"]


@pytest.mark.parametrize(("clock", "last"), [
    (datetime(2025, 1, 7, 14, 59, tzinfo=UTC), date(2025, 1, 6)),  # 15:59 CET
    (datetime(2025, 1, 7, 15, 0, tzinfo=UTC), date(2025, 1, 7)),  # 16:00 CET
    (datetime(2025, 7, 1, 13, 59, tzinfo=UTC), date(2025, 6, 30)),  # 15:59 CEST
    (datetime(2025, 7, 1, 14, 0, tzinfo=UTC), date(2025, 7, 1)),
    (datetime(2025, 1, 5, 12, 0, tzinfo=UTC), date(2025, 1, 3)),  # Sunday
    (datetime(2025, 12, 27, 12, 0, tzinfo=UTC), date(2025, 12, 24)),  # after Christmas
])
def test_a_fix_is_out_at_16_cet(clock, last):
    assert last_published(clock) == last
    body = data(get(make(clock), "/v1/2024-12-01..", symbols="USD"))
    assert body["end_date"] == last.isoformat()


# -- agreement with the Yahoo sandbox ----------------------------------------------------------
def test_a_fix_is_the_yahoo_series_close_of_that_day():
    day = date(2025, 1, 2)  # the sandbox's anchor day: EUR/USD 1.08
    body = data(get(make(), "/v1/2025-01-02..2025-01-02", symbols="USD,JPY,GBP"))
    row = body["rates"]["2025-01-02"]
    for quote in ("USD", "JPY", "GBP"):
        assert row[quote] == float(f"{close_of(f'EUR{quote}=X', day):.5g}")
    assert row["USD"] == 1.08


def test_rebased_fixes_use_the_pairs_own_series():
    day = date(2025, 1, 7)
    body = data(get(make(), "/v1/2025-01-07..2025-01-07", base="USD", symbols="JPY,EUR"))
    row = body["rates"]["2025-01-07"]
    assert row["JPY"] == round(close_of("USDJPY=X", day), 2)  # above 80: two decimals
    assert row["EUR"] == round(close_of("USDEUR=X", day), 5)  # below 1: five decimals


def test_the_yahoo_quote_and_the_last_fix_agree_roughly():
    """Yahoo's quote later the same evening moves on from the fix, but not far."""
    sb = make()
    fix = data(get(sb, "/v1/2025-01-08..", symbols="USD"))["rates"]["2025-01-08"]["USD"]
    crumb_free = sb.handle("GET", "query1.finance.yahoo.com", "/v8/finance/chart/EURUSD=X",
                           {"range": ["1d"], "interval": ["1d"]}, {})
    price = data(crumb_free)["chart"]["result"][0]["meta"]["regularMarketPrice"]
    assert abs(fix / price - 1) < 0.02


@pytest.mark.parametrize(("value", "base", "published"), [
    (1.038912, "EUR", 1.0389), (162.8812, "EUR", 162.88), (16886.73, "EUR", 16887.0),
    (0.831183, "EUR", 0.83118), (16886.73, "USD", 16887.0), (150.1234, "USD", 150.12),
    (36.73291, "USD", 36.733), (1.38765, "USD", 1.3877), (0.923456, "USD", 0.92346),
    (0.0000623, "USD", 0.000062),
])
def test_publish_round(value, base, published):
    assert publish_round(value, base) == published


# -- errors and hosts ----------------------------------------------------------------------------
@pytest.mark.parametrize("query", [{"base": "ARS"}, {"symbols": "ARS"}, {"base": "USD",
                                                                         "symbols": "XYZ"},
                                   {"base": "BGN", "symbols": "EUR"}])
def test_unknown_currencies_are_404(query):
    response = get(make(), "/v1/2025-01-02..", **query)
    assert (response.status, data(response)) == (404, {"message": "not found"})


@pytest.mark.parametrize("path", ["/v1/2025-02-01..", "/v1/1999-01-04..1999-01-08"])
def test_a_window_without_fixes_is_404(path):
    """A start after today, or before the pair's history."""
    response = get(make(), path, symbols="USD")
    assert (response.status, data(response)) == (404, {"message": "not found"})


@pytest.mark.parametrize(("path", "query", "message"), [
    ("/v1/2025-01-02..", {"base": "USD", "symbols": "usd"}, "bad currency pair"),
    ("/v1/2025-02-30..", {}, "invalid date"),
    ("/v1/2025-01-02..2025-13-01", {}, "invalid date"),
])
def test_unprocessable_queries_are_422(path, query, message):
    response = get(make(), path, **query)
    assert (response.status, data(response)) == (422, {"message": message})


@pytest.mark.parametrize("path", ["/v1/latest", "/v1/currencies", "/", "/v2/rates"])
def test_other_paths_are_frankfurters_404(path):
    response = get(make(), path)
    assert (response.status, data(response)) == (404, {"message": "not found"})


def test_the_older_host_serves_the_paths_without_v1():
    new = data(get(make(), "/v1/2025-01-02..", symbols="USD"))
    for path in ("/2025-01-02..", "/v1/2025-01-02.."):
        assert data(get(make(), path, host="api.frankfurter.app", symbols="USD")) == new


def test_answers_are_deterministic():
    first = get(make(), "/v1/2024-12-20..", base="GBP", symbols="USD,JPY").body
    assert get(make(seed=7), "/v1/2024-12-20..", base="GBP", symbols="USD,JPY").body == first


def test_faults_answer_in_frankfurters_shape():
    response = get(make(fail_rate=1.0), "/v1/2025-01-02..", symbols="USD")
    assert response.status == 503
    assert set(data(response)) == {"message"}


def test_requests_are_logged_under_the_provider():
    sb = make()
    get(sb, "/v1/2025-01-02..", symbols="USD")
    (entry,) = sb.requests_matching("/v1/", provider="frankfurter")
    assert entry["status"] == 200 and entry["upstream_host"] == HOST


def test_the_services_parser_reads_the_answer():
    body = data(get(make(), "/v1/2024-12-29..", base="EUR", symbols="USD"))
    rate = parse_timeseries(body, "EUR", "USD")
    assert (rate.day, rate.previous_day) == (date(2025, 1, 8), date(2025, 1, 7))
    assert rate.rate == body["rates"]["2025-01-08"]["USD"]
