"""The ECB reference rates through Frankfurter: request, parsing, errors, cache.

No Frankfurter recording exists in ../shared/upstream: the payloads below are hand-made in
the API's real v1 time-series shape (``{"amount", "base", "start_date", "end_date",
"rates": {date: {code: rate}}}``; 404 ``{"message": "not found"}``; 422 ``{"message": ...}``),
with the ECB's published EUR/USD fixes of early January 2025.
"""

from __future__ import annotations

import dataclasses
from datetime import date
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from marketdata.errors import (
    NotFound,
    UpstreamBadResponse,
    UpstreamRateLimited,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from marketdata.providers import frankfurter
from marketdata.providers.frankfurter import (
    FrankfurterProvider,
    ReferenceRate,
    fetch_reference_rate,
    parse_timeseries,
    timeseries_url,
)
from marketdata.providers.registry import PROVIDERS, get_provider
from tests.conftest import calls_to

TODAY = date(2025, 1, 8)
URL = "https://api.frankfurter.dev/v1/2024-12-29.."
EUR_USD = {"amount": 1.0, "base": "EUR", "start_date": "2024-12-27", "end_date": "2025-01-07",
           "rates": {"2024-12-27": {"USD": 1.0444}, "2024-12-30": {"USD": 1.0444},
                     "2024-12-31": {"USD": 1.0389}, "2025-01-02": {"USD": 1.0321},
                     "2025-01-03": {"USD": 1.0299}, "2025-01-06": {"USD": 1.0426},
                     "2025-01-07": {"USD": 1.0393}}}
NOT_FOUND = {"message": "not found"}


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch):
    fast = dataclasses.replace(FrankfurterProvider.config, backoff_seconds=0.001,
                               backoff_max_seconds=0.001)
    monkeypatch.setattr(FrankfurterProvider, "config", fast)


# -- parsing ----------------------------------------------------------------------------------
def test_the_last_two_fixes():
    rate = parse_timeseries(EUR_USD, "EUR", "USD")
    assert rate == ReferenceRate("EUR", "USD", date(2025, 1, 7), 1.0393, date(2025, 1, 6),
                                 1.0426)
    assert rate.change == -0.0033  # exact in the fixes' decimals, no float noise
    assert rate.change_percent == round(-0.0033 / 1.0426 * 100, 6) == -0.316516
    assert rate.timestamp == 1736208000  # 2025-01-07T00:00:00Z


def test_dates_are_sorted_and_unusable_rows_skipped():
    payload = {"rates": {"2025-01-07": {"USD": 1.0393}, "2025-01-03": {"USD": 1.0299},
                         "2025-01-08": {"GBP": 0.83}, "not-a-date": {"USD": 9.0},
                         "2025-01-09": {"USD": 0}, "2025-01-10": {"USD": "1.1"},
                         "2025-01-11": "x", "2025-01-06": {"USD": {"raw": 1.0426}}}}
    rate = parse_timeseries(payload, "EUR", "USD")
    assert (rate.day, rate.rate, rate.previous_day, rate.previous_rate) == (
        date(2025, 1, 7), 1.0393, date(2025, 1, 6), 1.0426)


def test_one_fix_has_no_change():
    rate = parse_timeseries({"rates": {"2025-01-07": {"JPY": 163.5}}}, "EUR", "JPY")
    assert rate.previous_day is None and rate.change is None and rate.change_percent is None
    assert rate.rate == 163.5


@pytest.mark.parametrize("payload", [{**EUR_USD, "rates": {}},
                                     {**EUR_USD, "rates": {"2025-01-07": {"GBP": 0.83}}}])
def test_no_fix_is_not_found(payload):
    with pytest.raises(NotFound, match="No reference rate for EUR/USD"):
        parse_timeseries(payload, "EUR", "USD")


@pytest.mark.parametrize("payload", [NOT_FOUND, {"rates": []}, [1], "text", None])
def test_a_body_that_is_no_time_series_is_a_bad_answer(payload):
    with pytest.raises(UpstreamBadResponse) as info:
        parse_timeseries(payload, "EUR", "USD")
    assert info.value.provider == "frankfurter"


# -- the request --------------------------------------------------------------------------------
def test_registered_with_its_hosts():
    assert PROVIDERS["frankfurter"] == "marketdata.providers.frankfurter:FrankfurterProvider"
    assert frankfurter.PROVIDER.hosts == ("api.frankfurter.dev", "api.frankfurter.app")
    assert timeseries_url(date(2025, 1, 2)) == "https://api.frankfurter.dev/v1/2025-01-02.."


def test_fetch_asks_for_ten_days_of_the_pair(yahoo):
    yahoo.get(URL, EUR_USD)
    assert fetch_reference_rate("EUR", "USD", today=TODAY).rate == 1.0393
    (call,) = calls_to(yahoo.mock, "frankfurter")
    parts = urlsplit(call.request.url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "api.frankfurter.dev",
                                                        "/v1/2024-12-29..")
    assert parse_qs(parts.query) == {"base": ["EUR"], "symbols": ["USD"]}


def test_today_defaults_to_the_utc_date(yahoo, monkeypatch):
    monkeypatch.setattr(frankfurter, "utc_today", lambda: TODAY)
    yahoo.get(URL, EUR_USD)
    assert fetch_reference_rate("EUR", "USD").day == date(2025, 1, 7)


def test_fetch_is_cached_per_pair_and_window(yahoo):
    yahoo.get(URL, EUR_USD)
    first = fetch_reference_rate("EUR", "USD", today=TODAY)
    assert fetch_reference_rate("EUR", "USD", today=TODAY) == first
    assert len(calls_to(yahoo.mock, "frankfurter")) == 1
    yahoo.get("https://api.frankfurter.dev/v1/2024-12-30..", EUR_USD)
    fetch_reference_rate("EUR", "USD", today=date(2025, 1, 9))  # the window rolled: new key
    assert len(calls_to(yahoo.mock, "frankfurter")) == 2


@pytest.mark.parametrize(("status", "body"), [(404, NOT_FOUND),
                                              (422, {"message": "bad currency pair"})])
def test_404_and_422_mean_no_rate(yahoo, status, body):
    yahoo.get(URL, body, status=status)
    with pytest.raises(NotFound, match="No reference rate for EUR/XXX"):
        fetch_reference_rate("EUR", "XXX", today=TODAY)
    with pytest.raises(NotFound):  # remembered like data: no second call
        fetch_reference_rate("EUR", "XXX", today=TODAY)
    assert len(calls_to(yahoo.mock, "frankfurter")) == 1


def test_other_client_errors_are_bad_answers(yahoo):
    yahoo.get(URL, {"message": "forbidden"}, status=403)
    with pytest.raises(UpstreamBadResponse) as info:
        fetch_reference_rate("EUR", "USD", today=TODAY)
    assert (info.value.provider, info.value.upstream_status) == ("frankfurter", 403)
    assert len(calls_to(yahoo.mock, "frankfurter")) == 1  # a 4xx is an answer: no retry


def test_server_errors_are_retried_once_then_bad_answers(yahoo):
    yahoo.get(URL, "<html>502</html>", status=502)
    with pytest.raises(UpstreamBadResponse) as info:
        fetch_reference_rate("EUR", "USD", today=TODAY)
    assert info.value.provider == "frankfurter"
    assert len(calls_to(yahoo.mock, "frankfurter")) == frankfurter.PROVIDER.max_attempts == 2


@pytest.mark.parametrize(("error", "expected"), [
    (requests.exceptions.ConnectionError("refused"), UpstreamUnavailable),
    (requests.exceptions.ReadTimeout("slow"), UpstreamTimeout),
])
def test_transport_failures(yahoo, error, expected):
    yahoo.mock.add("GET", URL, body=error)
    with pytest.raises(expected) as info:
        fetch_reference_rate("EUR", "USD", today=TODAY)
    assert info.value.provider == "frankfurter"


def test_rate_limited(yahoo):
    yahoo.get(URL, "Too Many Requests", status=429, content_type="text/plain")
    with pytest.raises(UpstreamRateLimited) as info:
        fetch_reference_rate("EUR", "USD", today=TODAY)
    assert info.value.provider == "frankfurter"


def test_a_body_that_is_not_json_is_a_bad_answer(yahoo):
    yahoo.get(URL, "<html>captive portal</html>")
    with pytest.raises(UpstreamBadResponse):
        fetch_reference_rate("EUR", "USD", today=TODAY)


def test_provider_instance_is_keyless():
    provider = get_provider("frankfurter")
    assert isinstance(provider, FrankfurterProvider) and provider.credentials == {}
