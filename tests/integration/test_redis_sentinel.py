"""The service's Redis clients through a real Sentinel set on loopback (three sentinels,
a primary and a replica): the settings the service builds from REDIS_SENTINELS reach the
primary with every client (django-redis's cache, the event loop's client, the stream's
leader locks, the channel layer), and after the primary is killed and a replica promoted
they reach the new primary without a restart."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from tests.integration import redis_sentinel
from tests.integration.servers import ROOT

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("a Redis Sentinel set and a real failover"),
              pytest.mark.skipif(not redis_sentinel.available(), reason="needs redis-server")]

# Runs in a fresh interpreter with the Sentinel variables, so config.settings builds every
# client from them as a deployed service would.
CLIENT_SCRIPT = r"""
import asyncio, json, sys, time
import django
django.setup()
from django.conf import settings
from django.core.cache import cache
from django_redis import get_redis_connection
from marketdata import redis_async
from apps.stream.leadership import make_leadership
from channels.layers import get_channel_layer

mode = sys.argv[1]

def port():
    return get_redis_connection("default").info("server")["tcp_port"]

async def async_roundtrip():
    client = redis_async.connect()
    try:
        await client.set("sentinel-test:async", "a")
        value = await client.get("sentinel-test:async")
        info = await client.info("server")
        return value.decode(), info["tcp_port"]
    finally:
        await client.aclose()

async def leader_and_layer():
    leadership = make_leadership(1.0)
    won = await leadership.claim(["AAPL"])
    await leadership.close()
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "tick", "n": 1})
    message = await asyncio.wait_for(layer.receive(channel), 5)
    return sorted(won), message["n"]

if mode == "roundtrip":
    cache.set("sentinel-test:cache", {"x": 1}, 60)
    out = {"cache": cache.get("sentinel-test:cache"), "port": port(),
           "location": settings.CACHES["default"]["LOCATION"]}
    out["async"], out["async_port"] = asyncio.run(async_roundtrip())
    out["leader"], out["layer"] = asyncio.run(leader_and_layer())
    print(json.dumps(out))
elif mode == "failover":
    # Writes and reads every 50 ms until 2 s of success follow a failure (or 40 s pass).
    print(json.dumps({"ready": port()}), flush=True)
    first_error = last_error = None
    errors = successes_after = 0
    started = time.monotonic()
    while time.monotonic() - started < 40:
        try:
            cache.set("sentinel-test:tick", time.time(), 60)
            count = get_redis_connection("default").incr("sentinel-test:counter")
            if first_error is not None:
                successes_after += 1
                if time.monotonic() - last_error > 2:
                    break
        except Exception as exc:
            errors += 1
            now = time.monotonic()
            first_error = first_error or now
            last_error = now
        time.sleep(0.05)
    print(json.dumps({"errors": errors, "port": port(), "counter": count,
                      "outage_seconds": (last_error - first_error) if first_error else 0,
                      "async_port": asyncio.run(async_roundtrip())[1]}))
"""


@pytest.fixture(scope="module")
def sentinel_set(tmp_path_factory):
    group = redis_sentinel.start(tmp_path_factory.mktemp("sentinel"))
    yield group
    group.stop()


def _env(group: redis_sentinel.SentinelSet) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REDIS_SENTINELS")}
    env.update(group.env(db=3), DJANGO_SETTINGS_MODULE="config.settings",
               CACHE_KEY_PREFIX="sentinel-test", LOG_LEVEL="WARNING")
    return env


def test_every_client_reaches_the_primary_the_sentinels_name(sentinel_set):
    done = subprocess.run([sys.executable, "-c", CLIENT_SCRIPT, "roundtrip"], cwd=ROOT,
                          env=_env(sentinel_set), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    primary = sentinel_set.primary_port()
    assert out["location"] == f"redis://{redis_sentinel.SERVICE}/3"
    assert out["cache"] == {"x": 1}
    assert out["port"] == out["async_port"] == primary
    assert out["async"] == "a"
    assert out["leader"] == ["AAPL"]
    assert out["layer"] == 1


def test_clients_follow_a_failover_without_a_restart(sentinel_set):
    before = sentinel_set.primary()
    proc = subprocess.Popen([sys.executable, "-c", CLIENT_SCRIPT, "failover"], cwd=ROOT,
                            env=_env(sentinel_set), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        ready = json.loads(proc.stdout.readline())
        assert ready["ready"] == before.port
        time.sleep(1.0)
        before.kill()
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    out = json.loads(stdout.strip().splitlines()[-1])
    after = sentinel_set.primary_port()
    assert after != before.port
    assert out["port"] == out["async_port"] == after
    # Failure detection (1 s here) plus the election: errors for a few seconds, then none.
    assert out["errors"] > 0
    assert out["outage_seconds"] < 15
    assert out["counter"] > 0
    sentinel_set.restart(before)
