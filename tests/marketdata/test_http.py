"""marketdata.http.UpstreamClient over `responses`: host map, retries, errors, breaker, logs."""

from __future__ import annotations

import logging
import threading
import time

import pytest
import requests
import responses
import structlog

from marketdata import http as md_http
from marketdata.errors import (
    UpstreamBadResponse,
    UpstreamRateLimited,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from marketdata.http import ProviderConfig, UpstreamClient, parse_host_map
from tests.conftest import capture_logs

URL = "https://api.example.com/v1/thing"


def make_client(host_map=None, **overrides) -> UpstreamClient:
    options = {"max_attempts": 3, "backoff_seconds": 0.001, "backoff_max_seconds": 0.002,
               "breaker_fail_max": 100, "breaker_reset_seconds": 30.0, **overrides}
    client = UpstreamClient(host_map=host_map)
    client.register(ProviderConfig(name="ex", display_name="Example Provider", **options))
    return client


@pytest.fixture
def mock():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as m:
        yield m


@pytest.fixture
def log_lines():
    """marketdata.http records as the project's formatter renders them."""
    with capture_logs("marketdata.http", logging.INFO) as capture:
        yield capture


# -- host map ---------------------------------------------------------------------------------
class TestHostMap:
    def test_parse(self):
        text = (" query1.finance.yahoo.com = http://127.0.0.1:9000/ ,"
                "*.Yahoo.com=https://replay.local:8443/base,, ")
        assert parse_host_map(text) == {
            "query1.finance.yahoo.com": "http://127.0.0.1:9000",
            "*.yahoo.com": "https://replay.local:8443/base",
        }

    @pytest.mark.parametrize("text", ["", "   ", ",", None])
    def test_empty(self, text):
        assert parse_host_map(text) == {}

    @pytest.mark.parametrize("text", [
        "query1.finance.yahoo.com",                 # no '='
        "query1.finance.yahoo.com=",                # no target
        "query1.finance.yahoo.com=   ",
        "a.com=127.0.0.1:9000",                     # no scheme
        "a.com=ftp://127.0.0.1",                    # wrong scheme
        "a.com=http://127.0.0.1:9000,b.com",        # one bad entry spoils the map
        "=http://127.0.0.1:9000",                   # no host
        " =http://127.0.0.1:9000",
        "a.com=http://",                            # no target host
    ])
    def test_bad_entries_raise(self, text):
        with pytest.raises(ValueError, match="UPSTREAM_HOST_MAP"):
            parse_host_map(text)

    def test_rewrite_exact_host_keeps_path_and_query(self):
        client = make_client({"query1.finance.yahoo.com": "http://127.0.0.1:9000"})
        assert client.rewrite("https://query1.finance.yahoo.com/v7/finance/quote?symbols=A") \
            == "http://127.0.0.1:9000/v7/finance/quote?symbols=A"
        assert client.rewrite("https://QUERY1.finance.yahoo.com/x") == "http://127.0.0.1:9000/x"
        assert client.rewrite("https://query2.finance.yahoo.com/x") \
            == "https://query2.finance.yahoo.com/x"

    def test_rewrite_with_base_path(self):
        client = make_client({"fc.yahoo.com": "http://replay:1/prefix"})
        assert client.rewrite("https://fc.yahoo.com/") == "http://replay:1/prefix/"
        assert client.rewrite("https://fc.yahoo.com/a/b?c=d") == "http://replay:1/prefix/a/b?c=d"

    @pytest.mark.parametrize(("url", "expected"), [
        ("https://query1.finance.yahoo.com/v8/x?a=1", "http://w:2/v8/x?a=1"),
        ("https://query2.finance.yahoo.com/v10/y", "http://w:2/v10/y"),
        ("https://fc.yahoo.com/", "http://w:2/"),
        ("https://guce.yahoo.com/consent", "http://w:2/consent"),
        ("https://yahoo.com/z", "http://w:2/z"),
        ("https://notyahoo.com/z", "https://notyahoo.com/z"),
        ("https://yahoo.com.evil.org/z", "https://yahoo.com.evil.org/z"),
        ("https://api.example.com/z", "https://api.example.com/z"),
    ])
    def test_rewrite_wildcard(self, url, expected):
        client = make_client({"*.yahoo.com": "http://w:2"})
        assert client.rewrite(url) == expected

    def test_exact_entry_beats_wildcard(self):
        client = make_client({"*.yahoo.com": "http://w:2", "fc.yahoo.com": "http://fc:3"})
        assert client.rewrite("https://fc.yahoo.com/") == "http://fc:3/"
        assert client.rewrite("https://query1.finance.yahoo.com/") == "http://w:2/"

    def test_no_map_leaves_urls_alone(self):
        assert make_client().rewrite(URL + "?a=1") == URL + "?a=1"

    def test_request_goes_to_the_rewritten_host(self, mock):
        mock.get("http://127.0.0.1:9000/v1/thing", json={"ok": True})
        client = make_client({"api.example.com": "http://127.0.0.1:9000"})
        response = client.request("ex", "thing", URL, params={"q": "1"})
        assert response.json() == {"ok": True}
        assert mock.calls[0].request.url == "http://127.0.0.1:9000/v1/thing?q=1"

    def test_settings_host_map_used_by_the_process_client(self, settings):
        settings.UPSTREAM_HOST_MAP = "*.yahoo.com=http://127.0.0.1:9999"
        md_http.reset_client()
        client = md_http.get_client()
        assert client is md_http.get_client()
        assert client.rewrite("https://fc.yahoo.com/") == "http://127.0.0.1:9999/"

    def test_bad_settings_host_map_fails_loudly(self, settings):
        settings.UPSTREAM_HOST_MAP = "fc.yahoo.com"
        md_http.reset_client()
        with pytest.raises(ValueError):
            md_http.get_client()


# -- answers, retries and errors ---------------------------------------------------------------
class TestRequests:
    def test_success(self, mock):
        mock.get(URL, json={"a": 1}, headers={"X-Thing": "y"})
        response = make_client().request("ex", "thing", URL)
        assert response.status == 200
        assert response.json() == {"a": 1}
        assert response.headers["X-Thing"] == "y"
        assert response.text == '{"a": 1}'
        assert len(mock.calls) == 1

    def test_default_headers(self, mock):
        mock.get(URL, body="ok")
        make_client().request("ex", "thing", URL)
        sent = mock.calls[0].request.headers
        assert "Mozilla/5.0" in sent["User-Agent"]
        assert sent["Accept-Language"].startswith("en-US")

    def test_non_json_body(self, mock):
        mock.get(URL, body="<html>", status=200)
        response = make_client().request("ex", "thing", URL)
        with pytest.raises(UpstreamBadResponse) as info:
            response.json()
        assert info.value.status_code == 502
        assert info.value.provider == "ex"
        assert "Example Provider" in info.value.detail

    @pytest.mark.parametrize("status", [500, 502, 503, 504])
    def test_5xx_retried_then_succeeds(self, mock, status):
        mock.get(URL, status=status, body="down")
        mock.get(URL, status=status, body="down")
        mock.get(URL, json={"ok": 1})
        response = make_client().request("ex", "thing", URL)
        assert response.json() == {"ok": 1}
        assert len(mock.calls) == 3

    def test_5xx_after_all_attempts(self, mock):
        mock.get(URL, status=500, body="down")
        with pytest.raises(UpstreamBadResponse) as info:
            make_client().request("ex", "thing", URL)
        assert len(mock.calls) == 3
        assert info.value.status_code == 502
        assert info.value.upstream_status == 500
        assert info.value.provider == "ex"
        assert "Example Provider" in info.value.detail

    def test_max_attempts_respected(self, mock):
        mock.get(URL, status=503)
        with pytest.raises(UpstreamBadResponse):
            make_client(max_attempts=5).request("ex", "thing", URL)
        assert len(mock.calls) == 5

    @pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 422])
    def test_4xx_is_an_answer_not_retried(self, mock, status):
        mock.get(URL, status=status, body="nope")
        response = make_client().request("ex", "thing", URL)
        assert response.status == status
        assert response.text == "nope"
        assert len(mock.calls) == 1

    def test_429_raises_rate_limited_without_retry(self, mock):
        mock.get(URL, status=429, body="Too Many Requests")
        with pytest.raises(UpstreamRateLimited) as info:
            make_client().request("ex", "thing", URL)
        assert info.value.status_code == 429
        assert info.value.provider == "ex"
        assert len(mock.calls) == 1

    def test_connection_error_retried_then_succeeds(self, mock):
        mock.get(URL, body=requests.exceptions.ConnectionError("refused"))
        mock.get(URL, json={"ok": 1})
        assert make_client().request("ex", "thing", URL).json() == {"ok": 1}
        assert len(mock.calls) == 2

    def test_connection_error_after_all_attempts(self, mock):
        mock.get(URL, body=requests.exceptions.ConnectionError("refused"))
        with pytest.raises(UpstreamUnavailable) as info:
            make_client().request("ex", "thing", URL)
        assert len(mock.calls) == 3
        assert info.value.status_code == 503
        assert info.value.provider == "ex"
        assert "Example Provider" in info.value.detail

    @pytest.mark.parametrize("exc", [requests.exceptions.ReadTimeout("slow"),
                                     requests.exceptions.ConnectTimeout("slow")])
    def test_timeout(self, mock, exc):
        mock.get(URL, body=exc)
        with pytest.raises(UpstreamTimeout) as info:
            make_client().request("ex", "thing", URL)
        assert info.value.status_code == 504
        assert info.value.provider == "ex"
        assert len(mock.calls) == 3

    def test_timeout_then_success(self, mock):
        mock.get(URL, body=requests.exceptions.ReadTimeout("slow"))
        mock.get(URL, json={"ok": 1})
        assert make_client().request("ex", "thing", URL).json() == {"ok": 1}
        assert len(mock.calls) == 2

    def test_post_form(self, mock):
        mock.post(URL, body="ok")
        make_client().request("ex", "thing", URL, method="POST", data={"a": "1"},
                              params={"s": "x"})
        assert mock.calls[0].request.method == "POST"
        assert mock.calls[0].request.body == "a=1"
        assert mock.calls[0].request.url == URL + "?s=x"

    def test_providers_have_separate_cookie_jars(self, mock):
        client = make_client()
        client.register(ProviderConfig(name="other", display_name="Other"))
        mock.get(URL, body="ok", headers={"Set-Cookie": "sid=abc; Path=/"})
        client.request("ex", "thing", URL)
        assert client.session("ex").cookies.get("sid") == "abc"
        assert client.session("other").cookies.get("sid") is None
        client.reset()
        assert client.session("ex").cookies.get("sid") is None

    def test_register_is_idempotent(self):
        client = make_client()
        first = client.session("ex")
        again = client.register(ProviderConfig(name="ex", display_name="Changed"))
        assert again.display_name == "Example Provider"
        assert client.session("ex") is first

    def test_a_provider_is_usable_as_soon_as_another_thread_sees_it(self, monkeypatch):
        """The first concurrent calls after start-up: a thread that finds the provider on
        the lock-free path must find its session and breaker too (was a KeyError -> 500)."""
        client = UpstreamClient()
        new_session = client._new_session

        def slow_session():
            time.sleep(0.2)
            return new_session()

        monkeypatch.setattr(client, "_new_session", slow_session)
        config = ProviderConfig(name="slow", display_name="Slow")
        first = threading.Thread(target=client.register, args=(config,))
        first.start()
        time.sleep(0.05)  # the first thread is inside the lock, building the session
        client.register(config)
        assert client.breaker_state("slow") == "closed"
        assert client.session("slow") is not None
        first.join()


# -- circuit breaker --------------------------------------------------------------------------
class TestCircuitBreaker:
    def test_opens_after_fail_max_failed_calls_and_refuses_without_calling(self, mock):
        mock.get(URL, status=500)
        client = make_client(max_attempts=2, breaker_fail_max=3)
        for _ in range(3):
            with pytest.raises(UpstreamBadResponse):
                client.request("ex", "thing", URL)
        assert len(mock.calls) == 6  # 3 calls x 2 attempts
        assert client.breaker_state("ex") == "open"
        with pytest.raises(UpstreamUnavailable) as info:
            client.request("ex", "thing", URL)
        assert info.value.status_code == 503
        assert info.value.provider == "ex"
        assert "Example Provider" in info.value.detail
        assert len(mock.calls) == 6  # refused without calling

    def test_success_resets_the_failure_count(self, mock):
        client = make_client(max_attempts=1, breaker_fail_max=2)
        mock.get(URL, status=500)
        mock.get(URL, json={})
        mock.get(URL, status=500)
        mock.get(URL, json={})
        for expect_error in (True, False, True, False):
            if expect_error:
                with pytest.raises(UpstreamBadResponse):
                    client.request("ex", "thing", URL)
            else:
                client.request("ex", "thing", URL)
        assert client.breaker_state("ex") == "closed"

    @pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 422])
    def test_4xx_does_not_count_as_a_failure(self, mock, status):
        client = make_client(max_attempts=1, breaker_fail_max=2)
        mock.get(URL, status=status)
        for _ in range(3):
            assert client.request("ex", "thing", URL).status == status
        assert client.breaker_state("ex", "thing") == "closed"

    def test_429_counts_as_a_failure(self, mock):
        """A provider that rate-limits us is unhealthy for us: back off."""
        client = make_client(max_attempts=1, breaker_fail_max=2)
        mock.get(URL, status=429)
        for _ in range(2):
            with pytest.raises(UpstreamRateLimited):
                client.request("ex", "thing", URL)
        assert client.breaker_state("ex", "thing") == "open"
        with pytest.raises(UpstreamUnavailable):
            client.request("ex", "thing", URL)
        assert len(mock.calls) == 2

    def test_timeouts_count_as_failures(self, mock):
        client = make_client(max_attempts=1, breaker_fail_max=2)
        mock.get(URL, body=requests.exceptions.ReadTimeout())
        for _ in range(2):
            with pytest.raises(UpstreamTimeout):
                client.request("ex", "thing", URL)
        assert client.breaker_state("ex") == "open"

    def test_half_open_trial_success_closes(self, mock):
        client = make_client(max_attempts=1, breaker_fail_max=2, breaker_reset_seconds=0.05)
        mock.get(URL, status=500)
        for _ in range(2):
            with pytest.raises(UpstreamBadResponse):
                client.request("ex", "thing", URL)
        assert client.breaker_state("ex") == "open"
        time.sleep(0.07)
        assert client.breaker_state("ex") == "half_open"
        mock.replace(responses.GET, URL, json={"ok": 1})
        assert client.request("ex", "thing", URL).json() == {"ok": 1}
        assert client.breaker_state("ex") == "closed"
        assert client.request("ex", "thing", URL).status == 200
        assert len(mock.calls) == 4

    def test_half_open_trial_failure_reopens(self, mock):
        client = make_client(max_attempts=1, breaker_fail_max=2, breaker_reset_seconds=0.05)
        mock.get(URL, status=500)
        for _ in range(2):
            with pytest.raises(UpstreamBadResponse):
                client.request("ex", "thing", URL)
        time.sleep(0.07)
        with pytest.raises(UpstreamBadResponse):
            client.request("ex", "thing", URL)  # the one trial call
        assert len(mock.calls) == 3
        assert client.breaker_state("ex") == "open"
        with pytest.raises(UpstreamUnavailable):
            client.request("ex", "thing", URL)
        assert len(mock.calls) == 3

    def test_half_open_lets_exactly_one_trial_through(self, mock):
        client = make_client(max_attempts=1, breaker_fail_max=1, breaker_reset_seconds=0.05)
        mock.get(URL, status=500)
        with pytest.raises(UpstreamBadResponse):
            client.request("ex", "thing", URL)
        time.sleep(0.07)
        entered, release = threading.Event(), threading.Event()

        def slow_ok(request):
            entered.set()
            release.wait(5)
            return 200, {}, "{}"

        mock.remove(responses.GET, URL)
        mock.add_callback(responses.GET, URL, callback=slow_ok)
        result = {}
        trial = threading.Thread(
            target=lambda: result.setdefault("status", client.request("ex", "thing", URL).status))
        trial.start()
        try:
            assert entered.wait(5)
            with pytest.raises(UpstreamUnavailable):
                client.request("ex", "thing", URL)  # refused while the trial runs
        finally:
            release.set()
            trial.join(5)
        assert result == {"status": 200}
        assert client.breaker_state("ex") == "closed"
        assert len(mock.calls) == 2

    def test_breakers_are_per_provider(self, mock):  # and per endpoint (below)
        client = make_client(max_attempts=1, breaker_fail_max=1)
        client.register(ProviderConfig(name="other", display_name="Other", max_attempts=1))
        mock.get(URL, status=500)
        mock.get("https://other.example.com/", body="ok")
        with pytest.raises(UpstreamBadResponse):
            client.request("ex", "thing", URL)
        assert client.breaker_state("ex") == "open"
        assert client.request("other", "x", "https://other.example.com/").status == 200

    def test_reset_closes(self, mock):
        client = make_client(max_attempts=1, breaker_fail_max=1)
        mock.get(URL, status=500)
        with pytest.raises(UpstreamBadResponse):
            client.request("ex", "thing", URL)
        client.reset()
        assert client.breaker_state("ex") == "closed"


# -- logging ------------------------------------------------------------------------------------
class TestCallLog:
    def test_one_line_per_attempt(self, mock, log_lines):
        mock.get(URL, status=503)
        mock.get(URL, body=requests.exceptions.ConnectionError("x"))
        mock.get(URL, json={})
        make_client().request("ex", "thing", URL)
        calls = [line for line in log_lines.records() if line["message"] == "upstream call"]
        assert [(c["attempt"], c["outcome"], c["status"]) for c in calls] == [
            (1, "server_error", 503), (2, "unreachable", None), (3, "ok", 200)]
        for line in calls:
            assert line["provider"] == "ex"
            assert line["endpoint"] == "thing"
            assert line["method"] == "GET"
            assert line["path"] == "/v1/thing"
            assert isinstance(line["duration_ms"], int | float) and line["duration_ms"] >= 0
            assert line["logger"] == "marketdata.http"
        assert [c["level"] for c in calls] == ["WARNING", "WARNING", "INFO"]

    @pytest.mark.parametrize(("body", "status", "outcome"), [
        (requests.exceptions.ReadTimeout(), None, "timeout"),
        ("nope", 404, "client_error"),
    ])
    def test_outcomes(self, mock, log_lines, body, status, outcome):
        mock.get(URL, body=body, status=status or 200)
        try:
            make_client(max_attempts=1).request("ex", "thing", URL)
        except UpstreamTimeout:
            pass
        calls = [line for line in log_lines.records() if line["message"] == "upstream call"]
        assert [(c["outcome"], c["status"]) for c in calls] == [(outcome, status)]

    def test_query_string_never_logged(self, mock, log_lines):
        secret = "Cr7mbV4lue"
        mock.get(URL, status=500)
        mock.get(URL, json={})
        make_client().request("ex", "thing", URL + f"?crumb={secret}",
                              params={"crumb": secret, "symbols": "AAPL"})
        assert secret in mock.calls[0].request.url  # it did travel in the query string
        assert len([c for c in log_lines.records() if c["message"] == "upstream call"]) == 2
        assert secret not in log_lines.text()

    def test_circuit_state_change_logged(self, mock, log_lines):
        mock.get(URL, status=500)
        client = make_client(max_attempts=1, breaker_fail_max=1)
        with pytest.raises(UpstreamBadResponse):
            client.request("ex", "thing", URL)
        with pytest.raises(UpstreamUnavailable):
            client.request("ex", "thing", URL)
        messages = [line["message"] for line in log_lines.records()]
        assert "upstream circuit state change" in messages
        assert "upstream circuit open" in messages


def test_structlog_is_configured_for_stdlib():
    # The log_lines fixture relies on structlog handing events to stdlib logging.
    assert structlog.is_configured()


# -- breakers per upstream endpoint ----------------------------------------------------------
class TestBreakersPerEndpoint:
    OTHER = "https://api.example.com/v1/other"

    def test_a_failing_endpoint_never_refuses_another(self, mock):
        client = make_client(max_attempts=1, breaker_fail_max=2)
        mock.get(URL, status=503)
        mock.get(self.OTHER, json={"ok": True})
        for _ in range(5):
            with pytest.raises((UpstreamBadResponse, UpstreamUnavailable)):
                client.request("ex", "sector", URL)
        assert client.breaker_state("ex", "sector") == "open"
        assert client.breaker_state("ex", "chart") == "closed"
        for _ in range(5):
            assert client.request("ex", "chart", self.OTHER).status == 200
        assert len(calls := [c for c in mock.calls if c.request.url.startswith(URL)]) == 2, calls

    def test_states_are_listed_per_provider_and_endpoint(self, mock):
        client = make_client(max_attempts=1, breaker_fail_max=1, breaker_reset_seconds=30)
        mock.get(URL, status=500)
        mock.get(self.OTHER, json={})
        with pytest.raises(UpstreamBadResponse):
            client.request("ex", "sector", URL)
        client.request("ex", "chart", self.OTHER)
        states = {(b.provider, b.endpoint): b for b in client.breaker_states()}
        assert states["ex", "sector"].state == "open"
        assert states["ex", "sector"].consecutive_failures == 1
        assert 0 < states["ex", "sector"].retry_in_seconds <= 30
        assert states["ex", "chart"].as_dict() == {
            "provider": "ex", "endpoint": "chart", "state": "closed",
            "consecutive_failures": 0, "retry_in_seconds": None}
        # Without an endpoint: the worst state of the provider.
        assert client.breaker_state("ex") == "open"


# -- request deadline, bulkhead, single attempt ----------------------------------------------
class TestDeadline:
    def test_no_call_once_the_deadline_has_passed(self, mock):
        from marketdata import deadline
        from marketdata.errors import DeadlineExceeded

        client = make_client(max_attempts=3, breaker_fail_max=1)
        mock.get(URL, json={})
        token = deadline.set_deadline(time.monotonic() - 1)
        try:
            with pytest.raises(DeadlineExceeded) as info:
                client.request("ex", "thing", URL)
        finally:
            deadline.reset(token)
        assert info.value.status_code == 504
        assert len(mock.calls) == 0
        # A refusal of our own making says nothing about the upstream.
        assert client.breaker_state("ex", "thing") == "closed"

    def test_attempt_timeouts_shrink_to_the_time_left(self, monkeypatch):
        from marketdata import deadline

        client = make_client(max_attempts=1)
        seen = {}

        def fake_request(self, method, url, **kwargs):
            seen["timeout"] = kwargs["timeout"]
            raise requests.exceptions.ReadTimeout()

        monkeypatch.setattr(requests.Session, "request", fake_request)
        with deadline.within(1.5), pytest.raises(UpstreamTimeout):
            client.request("ex", "thing", URL)
        connect, read = seen["timeout"]
        assert 0.5 < read <= 1.5 and connect <= 1.5
        # Cut short by the deadline (1.5 s of a 10 s read timeout): not the upstream's fault.
        assert client.breaker_state("ex", "thing") == "closed"

    def test_no_retry_past_the_deadline(self, mock, monkeypatch):
        from marketdata import deadline

        # Backoff at its ceiling (1 s): the first pause would end past the 0.3 s deadline,
        # so there is no second attempt and no sleep; without the deadline: 5 calls, ~4 s.
        monkeypatch.setattr(md_http.random, "uniform", lambda low, high: high)
        client = make_client(max_attempts=5, backoff_seconds=1.0, backoff_max_seconds=1.0)
        mock.get(URL, status=503)
        started = time.monotonic()
        with deadline.within(0.3), pytest.raises(UpstreamBadResponse):
            client.request("ex", "thing", URL)
        assert time.monotonic() - started < 1.0
        assert len(mock.calls) == 1

    def test_single_attempt_turns_retries_off(self, mock):
        client = make_client(max_attempts=3)
        mock.get(URL, status=503)
        with md_http.single_attempt(), pytest.raises(UpstreamBadResponse):
            client.request("ex", "thing", URL)
        assert len(mock.calls) == 1

    @staticmethod
    def _slow_calls(monkeypatch, client, endpoints):
        """Start one call per item of ``endpoints`` that stays in flight until released;
        returns (release event, threads) once every call is in flight."""
        entered, release = threading.Semaphore(0), threading.Event()

        def slow_request(self, method, url, **kwargs):
            entered.release()
            release.wait(5)
            response = requests.Response()
            response.status_code, response._content = 200, b"{}"
            return response

        monkeypatch.setattr(requests.Session, "request", slow_request)
        threads = [threading.Thread(target=client.request, args=("ex", endpoint, URL))
                   for endpoint in endpoints]
        for thread in threads:
            thread.start()
        for _ in endpoints:
            assert entered.acquire(timeout=5)
        return release, threads

    def test_an_endpoint_leaves_a_quarter_of_its_providers_slots_to_the_others(
            self, monkeypatch):
        from marketdata import deadline
        from marketdata.errors import UpstreamBusy

        client = make_client(max_attempts=1, max_concurrency=4)
        release, threads = self._slow_calls(monkeypatch, client, ["thing"] * 3)
        try:
            # A fourth call to the slow endpoint waits for a slot, within its deadline.
            started = time.monotonic()
            with deadline.within(0.3), pytest.raises(UpstreamBusy) as info:
                client.request("ex", "thing", URL)
            assert 0.1 < time.monotonic() - started < 3.0  # not the 5 s the calls take
            assert info.value.status_code == 503 and "thing" in info.value.detail
            assert client.breaker_state("ex", "thing") == "closed"
            # Another endpoint of the provider gets the slot kept for it at once: it is
            # in flight (and held) when the slow call's release lets it finish.
            other = threading.Thread(target=client.request, args=("ex", "other", URL))
            other.start()
            threads.append(other)
            time.sleep(0.2)
            states = {s.lane: s for s in client.lane_states()}
            assert states["other"].in_flight == 1 and states[""].in_flight == 4
        finally:
            release.set()
            for thread in threads:
                thread.join(5)
        states = {s.lane: s for s in client.lane_states()}
        assert all(s.occupants == 0 and s.in_flight == 0 for s in states.values())

    def test_the_provider_caps_its_calls_in_flight(self, monkeypatch):
        from marketdata import deadline
        from marketdata.errors import UpstreamBusy

        client = make_client(max_attempts=1, max_concurrency=4)
        release, threads = self._slow_calls(monkeypatch, client,
                                            ["thing", "thing", "thing", "other"])
        try:
            with deadline.within(0.2), pytest.raises(UpstreamBusy):
                client.request("ex", "third", URL)
            assert client.breaker_state("ex", "third") == "closed"
        finally:
            release.set()
            for thread in threads:
                thread.join(5)

    def test_own_lanes_stand_outside_the_providers(self, monkeypatch):
        from marketdata import deadline

        client = make_client(max_attempts=1, max_concurrency=4, own_lanes=("auth.",))
        release, threads = self._slow_calls(monkeypatch, client,
                                            ["thing", "thing", "thing", "other"])
        try:
            # Every provider slot is taken, yet the handshake goes out at once.
            done = threading.Event()

            def handshake():
                with deadline.within(0.5):
                    client.request("ex", "auth.crumb", URL)
                done.set()

            thread = threading.Thread(target=handshake)
            thread.start()
            threads.append(thread)
            time.sleep(0.2)
            states = {s.lane: s for s in client.lane_states()}
            assert states["auth.crumb"].in_flight == 1
            assert states[""].occupants == 4  # the handshake is not one of them
        finally:
            release.set()
            for thread in threads:
                thread.join(5)
        assert done.is_set()


class TestLaneShares:
    """A lane's share bounds the threads in it; past it a call parks its request at once
    (LaneFull) where parking is allowed, else waits for room within its deadline (503)."""

    def _client(self, endpoint_share, provider_share, **config):
        from marketdata import lanes

        client = md_http.UpstreamClient(lane_policy=lanes.LanePolicy(
            endpoint_share=endpoint_share, provider_share=provider_share))
        client.register(md_http.ProviderConfig(name="ex", display_name="Example",
                                               max_attempts=1, **config))
        return client

    def test_a_full_endpoint_share_parks_or_waits_without_touching_the_breaker(
            self, monkeypatch):
        from marketdata import deadline, lanes
        from marketdata.errors import UpstreamBusy

        client = self._client(endpoint_share=2, provider_share=10, max_concurrency=1)
        release, threads = TestDeadline._slow_calls(monkeypatch, client, ["thing"])
        # The second occupant waits for the only slot; the third finds the share full.
        waiter = threading.Thread(target=client.request, args=("ex", "thing", URL))
        waiter.start()
        threads.append(waiter)
        try:
            for _ in range(50):
                if {s.lane: s for s in client.lane_states()}["thing"].occupants == 2:
                    break
                time.sleep(0.02)
            started = time.monotonic()
            with lanes.parking(True), pytest.raises(lanes.LaneFull) as parked:
                client.request("ex", "thing", URL)
            assert time.monotonic() - started < 1.0  # at once
            assert parked.value.lane.name == "thing"
            started = time.monotonic()
            with deadline.within(0.3), pytest.raises(UpstreamBusy) as info:
                client.request("ex", "thing", URL)
            assert 0.2 < time.monotonic() - started < 3.0  # waited for room, in vain
            assert "Example (thing) is busy" in info.value.detail
            # Another endpoint of the provider is still served.
            assert {s.lane: s for s in client.lane_states()}[""].occupants == 2
            assert client.breaker_state("ex", "thing") == "closed"
        finally:
            release.set()
            for thread in threads:
                thread.join(5)

    def test_a_full_provider_share_refuses_its_other_endpoints(self, monkeypatch):
        from marketdata import deadline
        from marketdata.errors import UpstreamBusy

        client = self._client(endpoint_share=5, provider_share=2, max_concurrency=8)
        release, threads = TestDeadline._slow_calls(monkeypatch, client, ["thing", "other"])
        try:
            with deadline.within(0.2), pytest.raises(UpstreamBusy) as info:
                client.request("ex", "third", URL)
            assert info.value.detail.startswith("Example is busy")
        finally:
            release.set()
            for thread in threads:
                thread.join(5)

    def test_waiters_occupy_the_providers_lane(self, monkeypatch):
        from marketdata import deadline
        from marketdata.errors import UpstreamBusy

        client = self._client(endpoint_share=5, provider_share=1, max_concurrency=8)
        with client.waiting("ex"):
            with deadline.within(0.1), pytest.raises(UpstreamBusy):
                client.request("ex", "thing", URL)
        assert all(s.occupants == 0 for s in client.lane_states())
        with client.waiting("unknown provider"):  # nothing registered: nothing to count
            pass


def test_a_rewritten_call_names_its_original_host(mock):
    client = make_client(host_map={"api.example.com": "http://127.0.0.1:9"})
    mock.get("http://127.0.0.1:9/v1/thing", json={})
    client.request("ex", "thing", URL)
    assert mock.calls[0].request.headers["X-Upstream-Host"] == "api.example.com"


def test_an_unmapped_call_sends_no_upstream_host_header(mock):
    client = make_client()
    mock.get(URL, json={})
    client.request("ex", "thing", URL)
    assert "X-Upstream-Host" not in mock.calls[0].request.headers
