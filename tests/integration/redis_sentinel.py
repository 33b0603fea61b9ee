"""A Redis Sentinel set on loopback, from the machine's own redis-server: one primary, one
replica and three sentinels (quorum 2), with short failure detection so a failover takes
seconds. For the Sentinel tests and the fleet test (bench/fleet.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

from tests.integration.servers import _spawn, free_port

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
SERVICE = "mdfleet"
# How long a primary may be silent before the sentinels call it down; the failover's
# own election and promotion follow (README "Scale-out": 5 s is a common production value).
DOWN_AFTER_MS = 1000


def available() -> bool:
    return os.path.exists(REDIS_SERVER)


@dataclass
class RedisNode:
    port: int
    proc: subprocess.Popen
    log_path: Path

    def kill(self) -> None:
        """SIGKILL: no goodbye to clients or sentinels, as a crashed host."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=5)

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)


@dataclass
class SentinelSet:
    directory: Path
    nodes: list[RedisNode] = field(default_factory=list)  # the data nodes, primary first
    sentinels: list[RedisNode] = field(default_factory=list)

    @property
    def sentinels_setting(self) -> str:
        """REDIS_SENTINELS for the service."""
        return ",".join(f"127.0.0.1:{s.port}" for s in self.sentinels)

    def env(self, db: int = 0) -> dict[str, str]:
        return {"REDIS_SENTINELS": self.sentinels_setting, "REDIS_SENTINEL_SERVICE": SERVICE,
                "REDIS_URL": f"redis://{SERVICE}/{db}"}

    def primary_port(self) -> int:
        """The port the sentinels name as primary now."""
        for sentinel in self.sentinels:
            if sentinel.proc.poll() is not None:
                continue
            try:
                _host, port = sentinel.client().sentinel_get_master_addr_by_name(SERVICE)
                return int(port)
            except (redis.RedisError, TypeError, ValueError):
                continue
        raise RuntimeError("no sentinel answered")

    def primary(self) -> RedisNode:
        port = self.primary_port()
        return next(node for node in self.nodes if node.port == port)

    def wait_for_replicas(self, count: int, timeout: float = 30.0) -> None:
        """Until the primary reports ``count`` replicas online and in sync."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                info = self.primary().client().info("replication")
                online = [v for k, v in info.items() if k.startswith("slave")
                          and isinstance(v, dict) and v.get("state") == "online"]
                if len(online) >= count:
                    return
            except (redis.RedisError, RuntimeError, StopIteration):
                pass
            time.sleep(0.2)
        raise TimeoutError(f"{count} replica(s) not online in {timeout}s")

    def wait_for_sentinels(self, timeout: float = 30.0) -> None:
        """Until every sentinel knows the other two and the replica (a failover needs it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                ready = True
                for sentinel in self.sentinels:
                    fields = sentinel.client().sentinel_master(SERVICE)
                    if int(fields["num-other-sentinels"]) < len(self.sentinels) - 1 or \
                            int(fields["num-slaves"]) < len(self.nodes) - 1:
                        ready = False
                if ready:
                    return
            except (redis.RedisError, KeyError, ValueError):
                pass
            time.sleep(0.2)
        raise TimeoutError(f"the sentinels did not find each other in {timeout}s")

    def restart(self, node: RedisNode) -> RedisNode:
        """Start a killed data node again on its port (the sentinels make it a replica of
        the new primary)."""
        started = _start_data_node(self.directory, node.port, None)
        self.nodes[self.nodes.index(node)] = started
        return started

    def stop(self) -> None:
        for node in [*self.sentinels, *self.nodes]:
            node.kill()


def _wait_ping(port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if redis.Redis(host="127.0.0.1", port=port, socket_timeout=1).ping():
                return
        except redis.RedisError:
            time.sleep(0.05)
    raise TimeoutError(f"redis on {port} did not answer")


def _start_data_node(directory: Path, port: int, primary_port: int | None) -> RedisNode:
    args = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", str(directory),
            "--dbfilename", f"dump-{port}.rdb", "--repl-diskless-sync", "yes",
            "--repl-diskless-sync-delay", "0"]
    if primary_port is not None:
        args += ["--replicaof", "127.0.0.1", str(primary_port)]
    log_path = directory / f"redis-{port}.log"
    node = RedisNode(port, _spawn(args, dict(os.environ), log_path), log_path)
    _wait_ping(port)
    return node


def start(directory: Path, replicas: int = 1, sentinels: int = 3) -> SentinelSet:
    """A primary, ``replicas`` replicas and ``sentinels`` sentinels, all up and in touch."""
    directory.mkdir(parents=True, exist_ok=True)
    group = SentinelSet(directory)
    try:
        primary = _start_data_node(directory, free_port(), None)
        group.nodes.append(primary)
        for _ in range(replicas):
            group.nodes.append(_start_data_node(directory, free_port(), primary.port))
        quorum = sentinels // 2 + 1
        for _ in range(sentinels):
            port = free_port()
            conf = directory / f"sentinel-{port}.conf"  # sentinels rewrite their file
            conf.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {directory}\n"
                f"sentinel monitor {SERVICE} 127.0.0.1 {primary.port} {quorum}\n"
                f"sentinel down-after-milliseconds {SERVICE} {DOWN_AFTER_MS}\n"
                f"sentinel failover-timeout {SERVICE} 10000\n"
                f"sentinel parallel-syncs {SERVICE} 1\n")
            log_path = directory / f"sentinel-{port}.log"
            proc = _spawn([REDIS_SERVER, str(conf), "--sentinel"], dict(os.environ), log_path)
            group.sentinels.append(RedisNode(port, proc, log_path))
            _wait_ping(port)
        group.wait_for_replicas(replicas)
        group.wait_for_sentinels()
    except BaseException:
        group.stop()
        raise
    return group
