"""GET /metrics: the Prometheus text format; counters that move with traffic (requests,
upstream calls, cache outcomes, rate-limit refusals), sampled gauges (breakers, streams),
the optional METRICS_TOKEN, and samples added up across processes (multiprocess mode)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from prometheus_client import REGISTRY

from marketdata import metrics

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def scrape(api, **headers) -> str:
    response = api.get("/metrics", **headers)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    return response.content.decode()


def test_requests_are_counted_by_route_method_and_status(api):
    before = value("marketdata_http_requests_total", route="readyz", method="GET",
                   status="200")
    count_before = value("marketdata_http_request_duration_seconds_count", route="readyz",
                         method="GET")
    for _ in range(3):
        api.get("/readyz")
    assert value("marketdata_http_requests_total", route="readyz", method="GET",
                 status="200") == before + 3
    assert value("marketdata_http_request_duration_seconds_count", route="readyz",
                 method="GET") == count_before + 3

    text = scrape(api)
    assert "# TYPE marketdata_http_requests_total counter" in text
    assert "# TYPE marketdata_http_request_duration_seconds histogram" in text
    assert re.search(r'marketdata_http_requests_total\{method="GET",route="readyz",'
                     r'status="200"\} \d', text)


def test_routes_are_url_patterns_never_raw_paths(api):
    api.get("/v2/quote/ZZZZ-NOT-A-SYMBOL?x=1")
    api.get("/no/such/page")
    api.get("/")
    text = scrape(api)
    assert "ZZZZ" not in text
    assert "/no/such/page" not in text
    assert 'route="<unmatched>",status="404"' in text
    assert 'route="/",status="200"' in text
    assert 'route="v2/quote/<str:symbol>"' in text


def test_the_loop_lag_monitor_records_how_late_the_loop_runs(api):
    """A timer due every 10 ms; a callback holding the loop for 80 ms makes the tick due
    then run ~80 ms late: the histogram has it, and /metrics exports it."""
    import asyncio
    import time

    from marketdata.loop_lag import LoopLagMonitor

    def count(le: str) -> float:
        return value("marketdata_event_loop_lag_seconds_bucket", le=le)

    before_all, before_fast = count("+Inf"), count("0.05")

    async def scenario() -> None:
        monitor = LoopLagMonitor(0.01)
        monitor.start(asyncio.get_running_loop())
        await asyncio.sleep(0.1)
        time.sleep(0.08)  # a stall: nothing else runs on the loop meanwhile
        await asyncio.sleep(0.1)
        monitor.stop()
        assert not monitor.running

    asyncio.run(scenario())
    ticks = count("+Inf") - before_all
    assert 4 <= ticks <= 30, ticks
    assert ticks - (count("0.05") - before_fast) >= 1, "the stall was seen as a late tick"
    text = scrape(api)
    assert "# TYPE marketdata_event_loop_lag_seconds histogram" in text
    assert re.search(r'marketdata_event_loop_lag_seconds_bucket\{le="0.001"\} \d', text)


def test_the_loop_lag_monitor_is_off_at_zero():
    import asyncio

    from marketdata import loop_lag

    async def scenario() -> None:
        assert loop_lag.start(asyncio.get_running_loop(), 0) is None
        monitor = loop_lag.start(asyncio.get_running_loop(), 0.5)
        assert monitor is not None and monitor.running
        monitor.stop()

    asyncio.run(scenario())


def test_record_request_bounds_the_method_label():
    before = value("marketdata_http_requests_total", route="x", method="other", status="405")
    metrics.record_request("BREW", "x", 405, 0.001)
    assert value("marketdata_http_requests_total", route="x", method="other",
                 status="405") == before + 1


def test_the_request_recorder_counts_as_record_request(monkeypatch):
    """The fast path's recorder keeps the labelled series: the same counts and histogram
    as record_request, and a failure is never raised."""
    recorder = metrics.RequestRecorder()
    before = value("marketdata_http_requests_total", route="rec", method="GET", status="200")
    count_before = value("marketdata_http_request_duration_seconds_count", route="rec",
                         method="GET")
    for _ in range(3):
        recorder("GET", "rec", 200, 0.002)
    recorder("BREW", "rec", 200, 0.002)
    assert value("marketdata_http_requests_total", route="rec", method="GET",
                 status="200") == before + 3
    assert value("marketdata_http_request_duration_seconds_count", route="rec",
                 method="GET") == count_before + 3
    assert value("marketdata_http_requests_total", route="rec", method="other",
                 status="200") >= 1

    class Broken:
        def labels(self, *args):
            raise RuntimeError("mmap full")

    monkeypatch.setattr(metrics, "REQUESTS", Broken())
    monkeypatch.setattr(metrics, "_failed_once", False)
    recorder("GET", "new-route", 500, 0.1)  # logged, not raised


def test_recording_never_raises(monkeypatch, caplog):
    class Broken:
        def labels(self, *args):
            raise RuntimeError("mmap full")

    monkeypatch.setattr(metrics, "REQUESTS", Broken())
    monkeypatch.setattr(metrics, "_failed_once", False)
    metrics.record_request("GET", "x", 200, 0.1)  # logged, not raised
    metrics.record_request("GET", "x", 200, 0.1)
    assert metrics._failed_once


def total(name: str, **match: str) -> float:
    """Sum of the samples of ``name`` whose labels include ``match``."""
    return sum(sample.value for family in REGISTRY.collect() for sample in family.samples
               if sample.name == name
               and all(sample.labels.get(k) == v for k, v in match.items()))


def test_upstream_calls_and_cache_outcomes_move_with_traffic(settings, sandbox_upstream):
    from django.test import Client

    settings.RESPONSE_CACHE_ENABLED = False  # every request reaches the data cache
    api = Client()
    before = (total("marketdata_upstream_requests_total", provider="yahoo"),
              total("marketdata_upstream_request_duration_seconds_count", provider="yahoo"),
              total("marketdata_cache_lookups_total", provider="yahoo", outcome="miss"),
              total("marketdata_cache_lookups_total", provider="yahoo", outcome="hit"))
    assert api.get("/v1/simple-quotes?symbols=AAPL").status_code == 200
    first = (total("marketdata_upstream_requests_total", provider="yahoo"),
             total("marketdata_upstream_request_duration_seconds_count", provider="yahoo"),
             total("marketdata_cache_lookups_total", provider="yahoo", outcome="miss"),
             total("marketdata_cache_lookups_total", provider="yahoo", outcome="hit"))
    calls = len(sandbox_upstream.requests_matching(provider="yahoo"))
    assert first[0] - before[0] == calls > 0  # one per upstream request the sandbox saw
    assert first[1] - before[1] == calls
    assert first[2] > before[2]
    assert api.get("/v1/simple-quotes?symbols=AAPL").status_code == 200
    assert total("marketdata_upstream_requests_total",
                 provider="yahoo") == first[0]  # answered from the data cache
    assert total("marketdata_cache_lookups_total", provider="yahoo", outcome="hit") > first[3]
    assert "marketdata_cache_lookups_total" in scrape(api)


def test_upstream_failures_and_open_breakers_are_counted(api):
    import responses

    from marketdata.errors import UpstreamError
    from marketdata.http import ProviderConfig, get_client

    client = get_client()
    client.register(ProviderConfig("metricstest", "Metrics test", max_attempts=1,
                                   breaker_fail_max=2))
    labels = dict(provider="metricstest", endpoint="thing")
    with responses.RequestsMock() as mock:
        mock.get("https://metrics.example/thing", status=503)
        for _ in range(2):
            with pytest.raises(UpstreamError):
                client.request("metricstest", "thing", "https://metrics.example/thing")
    with pytest.raises(UpstreamError):  # refused by the open breaker: no call at all
        client.request("metricstest", "thing", "https://metrics.example/thing")
    assert value("marketdata_upstream_requests_total", outcome="server_error", **labels) == 2
    assert value("marketdata_upstream_requests_total", outcome="circuit_open", **labels) == 1
    assert value("marketdata_upstream_request_duration_seconds_count", **labels) == 2

    text = scrape(api)  # a scrape samples this process's breakers first
    assert ('marketdata_circuit_breakers{endpoint="thing",provider="metricstest",'
            'state="open"} 1.0') in text
    assert ('marketdata_circuit_breakers{endpoint="thing",provider="metricstest",'
            'state="closed"} 0.0') in text


def test_rate_limit_refusals_are_counted_by_limit(api, limited):
    before = value("marketdata_rate_limited_total", limit="v1_daily")
    before_429 = value("marketdata_http_requests_total", route="v1/ping", method="GET",
                       status="429")
    statuses = [api.get("/v1/indices").status_code for _ in range(7)]
    assert statuses.count(429) == 2
    assert value("marketdata_rate_limited_total", limit="v1_daily") == before + 2
    # The refused requests keep their route although they never reached the URL resolver.
    assert value("marketdata_http_requests_total", route="v1/indices", method="GET",
                 status="429") >= 2
    assert value("marketdata_http_requests_total", route="v1/ping", method="GET",
                 status="429") == before_429


def test_v2_bucket_refusals_are_counted(api, settings, sandbox_upstream):
    settings.V2_RATE_LIMIT_CAPACITY = 1
    settings.V2_RATE_LIMIT_REFILL_PER_SECOND = 0.001
    before = value("marketdata_rate_limited_total", limit="v2_bucket")
    statuses = [api.get("/v2/hours").status_code for _ in range(3)]
    assert statuses.count(429) >= 1
    assert value("marketdata_rate_limited_total", limit="v2_bucket") == \
        before + statuses.count(429)


def test_an_upstream_429_is_not_a_rate_limit_refusal(api, yahoo):
    import responses

    yahoo.mock.replace(responses.GET, "https://query1.finance.yahoo.com/v1/test/getcrumb",
                       status=429, body="Too Many Requests", content_type="text/plain")
    limits = ("v1_daily", "v1_health", "v2_bucket")
    before = sum(value("marketdata_rate_limited_total", limit=name) for name in limits)
    response = api.get("/v1/simple-quotes?symbols=AAPL")
    assert response.status_code == 429  # Yahoo's refusal, passed on
    assert sum(value("marketdata_rate_limited_total", limit=name) for name in limits) == before
    assert value("marketdata_http_requests_total", route="v1/simple-quotes", method="GET",
                 status="429") >= 1


def test_stream_gauges_are_sampled(api, monkeypatch):
    from apps.stream import hub

    monkeypatch.setattr(hub, "stream_stats", lambda: {
        "connections": 3, "pollers": 2, "leading": 1, "subscriptions": 5,
        "interval_seconds": 10.0, "pid": os.getpid()})
    text = scrape(api)
    assert "marketdata_stream_connections 3.0" in text
    assert "marketdata_stream_pollers 2.0" in text
    assert "marketdata_stream_subscriptions 5.0" in text
    assert "marketdata_stream_leading_symbols 1.0" in text


def test_metrics_token_protects_the_endpoint(api, settings):
    settings.METRICS_TOKEN = "scrape-s3cret"
    response = api.get("/metrics")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert b"marketdata_" not in response.content
    assert api.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert api.get("/metrics", HTTP_AUTHORIZATION="Basic scrape-s3cret").status_code == 401
    assert "marketdata_http_requests_total" in scrape(
        api, HTTP_AUTHORIZATION="Bearer scrape-s3cret")


def test_token_comparison():
    assert metrics.token_matches("t0k", "Bearer t0k")
    assert metrics.token_matches("t0k", "bearer t0k")
    assert not metrics.token_matches("t0k", "Bearer t0k-longer")
    assert not metrics.token_matches("t0k", "Bearer ")
    assert not metrics.token_matches("t0k", "")
    assert not metrics.token_matches("t0k", "Bearer t\udcff")


def test_open_by_default_never_rate_limited_nor_cached(api, limited):
    for _ in range(8):  # the v1 quota is 5 a day here
        response = api.get("/metrics")
        assert response.status_code == 200
        assert "X-Cache" not in response
        assert "no-cache" in response["Cache-Control"]
    assert api.post("/metrics").status_code == 405


# -- across processes ---------------------------------------------------------------------
_WORKER = textwrap.dedent("""
    import os, sys
    import django
    django.setup()
    from django.test import Client
    client = Client()
    for _ in range(int(sys.argv[1])):
        assert client.get("/readyz").status_code == 200
    from marketdata import metrics
    metrics.STREAMS.set(int(sys.argv[2]))
    print("PID", os.getpid())
""")

_SCRAPER = textwrap.dedent("""
    import sys
    import django
    django.setup()
    from django.test import Client
    if len(sys.argv) > 1:
        from prometheus_client import multiprocess
        multiprocess.mark_process_dead(int(sys.argv[1]))
    sys.stdout.write(Client().get("/metrics").content.decode())
""")


_FORKER = textwrap.dedent("""
    import os
    from marketdata import metrics
    for _ in range(2):
        metrics.record_request("GET", "forked", 200, 0.001)
    pid = os.fork()
    if pid == 0:  # a worker forked by gunicorn's master: its own file, its own counts
        for _ in range(3):
            metrics.record_request("GET", "forked", 200, 0.001)
        os._exit(0)
    os.waitpid(pid, 0)
    metrics.record_request("GET", "forked", 200, 0.001)
    print("PIDS", os.getpid(), pid)
""")


@pytest.mark.process
def test_a_forked_process_counts_in_a_file_of_its_own(tmp_path):
    """The process id the multiprocess files are named by is read once per process (not
    at every increment) and again after a fork: parent and child each write their own."""
    shared = tmp_path / "prometheus"
    shared.mkdir()
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(shared), "PYTHONPATH": str(ROOT)}
    parent, child = _run(_FORKER, env).split("PIDS ", 1)[1].split()
    names = {p.name for p in shared.glob("counter_*.db")}
    assert names == {f"counter_{parent}.db", f"counter_{child}.db"}, names
    from prometheus_client import CollectorRegistry, generate_latest, multiprocess

    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(shared))
    text = generate_latest(registry).decode()
    assert _sample(text, 'marketdata_http_requests_total{method="GET",route="forked",'
                         'status="200"}') == 6


def _run(code: str, env: dict[str, str], *args: str) -> str:
    result = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _pid(output: str) -> str:
    return next(line.split()[1] for line in output.splitlines() if line.startswith("PID "))


def _sample(text: str, line_start: str) -> float:
    for line in text.splitlines():
        if line.startswith(line_start):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


@pytest.mark.process
@pytest.mark.slow("two worker processes and a third that scrapes them")
def test_counters_add_up_across_processes(tmp_path):
    """Two worker processes answer requests, a third scrapes: the scrape counts them all
    (what gunicorn's workers do with PROMETHEUS_MULTIPROC_DIR, set by gunicorn.conf.py)."""
    shared = tmp_path / "prometheus"
    shared.mkdir()
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(shared),
           "DJANGO_SETTINGS_MODULE": "config.settings", "MARKETDATA_VAR_DIR": str(tmp_path),
           "LOG_LEVEL": "WARNING", "PYTHONPATH": str(ROOT)}
    env.pop("REDIS_URL", None)  # each process its own local cache: nothing shared but files
    env.pop("DATABASE_URL", None)
    # The pid from its own line: a slow first request (a loaded machine) also writes a
    # WARNING line to stdout.
    first = _pid(_run(_WORKER, env, "3", "2"))
    second = _pid(_run(_WORKER, env, "4", "5"))
    assert first != second

    text = _run(_SCRAPER, env)
    requests = 'marketdata_http_requests_total{method="GET",route="readyz",status="200"}'
    assert _sample(text, requests) == 7
    histogram = 'marketdata_http_request_duration_seconds_count{method="GET",route="readyz"}'
    assert _sample(text, histogram) == 7
    assert _sample(text, "marketdata_stream_connections ") == 7  # livesum: 2 + 5

    # gunicorn's child_exit drops a dead worker's live gauges; its counters stay.
    text = _run(_SCRAPER, env, first)
    assert _sample(text, "marketdata_stream_connections ") == 5
    assert _sample(text, requests) == 7
