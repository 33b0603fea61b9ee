"""Operations through the real server (bin/serve -> gunicorn, two worker processes):
/metrics adds up both workers' samples, /readyz and the index answer, and gunicorn's
control socket lives in the instance's var directory (not ~/.gunicorn, shared by every
instance of a user)."""

from __future__ import annotations

import json
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.servers import ROOT, http, start_service

pytestmark = [pytest.mark.integration,
              pytest.mark.slow(
                  "the production command's own layout: a fresh data folder, prepared")]


def _metric(text: str, line_start: str) -> float:
    for line in text.splitlines():
        if line.startswith(line_start):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_two_workers_metrics_readyz_and_control_socket(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    service = start_service(tmp_path, {
        "MARKETDATA_UPSTREAM": "sandbox", "WEB_CONCURRENCY": "2", "HOME": str(home),
        "NUMBA_CACHE_DIR": str(ROOT / "var" / "numba"), "METRICS_TOKEN": "scrape-token",
        "ALLOWED_HOSTS": "md.example.com,127.0.0.1"},
        own_var_dir=True)  # the production layout: its own data folder and control socket
    var_dir = Path(service.env["MARKETDATA_VAR_DIR"])
    try:
        socket_path = var_dir / "gunicorn.ctl"
        assert stat.S_ISSOCK(socket_path.stat().st_mode)
        assert not (home / ".gunicorn").exists()

        status, headers, raw = http("GET", f"{service.base_url}/readyz")
        assert status == 200, raw
        assert json.loads(raw)["status"] == "ready"
        status, _, raw = http("GET", f"{service.base_url}/")
        assert status == 200
        assert json.loads(raw)["links"]["docs"] == "/docs"

        # The image's HEALTHCHECK command, against this server, with a restricted host list.
        probe = subprocess.run([sys.executable, str(ROOT / "bin" / "healthcheck")],
                               env={"PORT": service.env["PORT"],
                                    "ALLOWED_HOSTS": "md.example.com"},
                               capture_output=True, text=True, timeout=30)
        assert probe.returncode == 0, probe.stdout + probe.stderr
        assert probe.stdout.startswith("readyz: 200")

        # Each request on a new connection: the two workers share them out.
        for _ in range(40):
            assert http("GET", f"{service.base_url}/v2/hours")[0] == 200

        assert http("GET", f"{service.base_url}/metrics")[0] == 401
        status, headers, raw = http("GET", f"{service.base_url}/metrics",
                                    headers={"Authorization": "Bearer scrape-token"})
        assert status == 200
        assert headers["Content-Type"].startswith("text/plain")
        text = raw.decode()
        assert _metric(text, 'marketdata_http_requests_total{method="GET",route="v2/hours",'
                             'status="200"}') == 40
        assert _metric(text, 'marketdata_http_request_duration_seconds_count{method="GET",'
                             'route="v2/hours"}') == 40
        assert _metric(text, 'marketdata_http_requests_total{method="GET",route="readyz",'
                             'status="200"}') == 2  # this test's and the healthcheck's
        # Each worker's loop-lag monitor ticks every 20 ms from its start.
        assert "# TYPE marketdata_event_loop_lag_seconds histogram" in text
        assert _metric(text, "marketdata_event_loop_lag_seconds_count ") > 10
        assert _metric(text, 'marketdata_event_loop_lag_seconds_bucket{le="+Inf"}') == \
            _metric(text, "marketdata_event_loop_lag_seconds_count ")
        # Both workers write their samples under the var directory.
        pids = {re.search(r"_(\d+)\.db$", p.name).group(1)
                for p in (var_dir / "prometheus").glob("*.db")}
        assert len(pids) >= 2, pids
        # bin/serve's allocator: jemalloc where the system has it, else glibc with 2 arenas.
        has_jemalloc = any(Path(lib).exists() for lib in (
            "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
            "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2", "/usr/local/lib/libjemalloc.so.2",
            "/usr/lib64/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2"))
        for pid in pids:
            maps = Path(f"/proc/{pid}/maps").read_text()
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            if has_jemalloc:
                assert "libjemalloc" in maps
            else:
                assert b"MALLOC_ARENA_MAX=2" in environ
    finally:
        service.stop()
    assert not (var_dir / "gunicorn.ctl").exists()  # removed on shutdown
