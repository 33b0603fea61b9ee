"""config/gunicorn.conf.py: the control socket in the instance's var directory (or off), the
Prometheus multiprocess directory set for the workers and emptied at every start, and the
start banner naming the URLs to open on the address gunicorn really bound."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

CONF = Path(__file__).resolve().parents[2] / "config" / "gunicorn.conf.py"


@pytest.fixture
def load(monkeypatch, tmp_path):
    """Execute the config file as gunicorn does, with a clean environment for what it reads
    (monkeypatch restores PROMETHEUS_MULTIPROC_DIR, which the file sets)."""
    for name in ("GUNICORN_CONTROL_SOCKET", "PROMETHEUS_MULTIPROC_DIR", "WEB_CONCURRENCY"):
        monkeypatch.setenv(name, "")  # recorded, so restored (or removed) afterwards
        monkeypatch.delenv(name)
    monkeypatch.setenv("MARKETDATA_VAR_DIR", str(tmp_path / "var"))

    def run(**env: str) -> dict:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return runpy.run_path(str(CONF))

    return run


def test_control_socket_in_the_var_dir(load, tmp_path):
    conf = load()
    assert conf["control_socket"] == str(tmp_path / "var" / "gunicorn.ctl")
    assert "control_socket_disable" not in conf


def test_control_socket_elsewhere_or_off(load, tmp_path):
    assert load(GUNICORN_CONTROL_SOCKET="/run/md/ctl")["control_socket"] == "/run/md/ctl"
    conf = load(GUNICORN_CONTROL_SOCKET="off")
    assert conf["control_socket_disable"] is True
    assert "control_socket" not in conf


def test_gunicorn_accepts_the_settings(load):
    from gunicorn.config import Config

    conf = load()
    config = Config()
    for name in ("control_socket", "workers", "threads", "worker_class", "bind"):
        config.set(name, conf[name])
    assert config.control_socket == conf["control_socket"]


def test_multiprocess_dir_is_set_and_emptied_at_start(load, tmp_path, monkeypatch):
    import os

    monkeypatch.setenv("MARKETDATA_SETTINGS_CHECKED", "1")  # as bin/serve: no second check
    conf = load()
    path = tmp_path / "var" / "prometheus"
    assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(path)
    path.mkdir(parents=True)
    (path / "counter_123.db").write_bytes(b"old")
    (path / "keep.txt").write_text("not ours")
    conf["on_starting"](None)
    assert sorted(p.name for p in path.iterdir()) == ["keep.txt"]


def test_an_operator_multiprocess_dir_is_kept(load, tmp_path):
    import os

    load(PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "elsewhere"))
    assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(tmp_path / "elsewhere")


@pytest.mark.parametrize(("env", "workers"), [
    ({}, 1),  # local memory: one process, one cache
    ({"REDIS_URL": "redis://127.0.0.1:6379/0"}, "cpus"),
    ({"REDIS_SENTINELS": "127.0.0.1:26379"}, "cpus"),  # Sentinel: shared as well
    ({"REDIS_SENTINELS": "127.0.0.1:26379", "WEB_CONCURRENCY": "3"}, 3),
])
def test_one_worker_per_core_once_redis_is_shared(load, monkeypatch, env, workers):
    import os

    for name in ("REDIS_URL", "REDIS_SENTINELS"):
        monkeypatch.delenv(name, raising=False)
    expected = (os.cpu_count() or 1) if workers == "cpus" else workers
    assert load(**env)["workers"] == expected


class _Listener:
    """What gunicorn's listeners give: ``.sock.getsockname()``."""

    def __init__(self, address):
        self.sock = self
        self.address = address

    def getsockname(self):
        return self.address


def _server(*addresses):
    lines: list[str] = []
    server = type("Server", (), {"LISTENERS": [_Listener(a) for a in addresses],
                                 "log": type("Log", (), {"info": staticmethod(lines.append)})})
    return server, lines


def test_the_banner_names_the_urls_to_open_on_the_real_bind(load, monkeypatch):
    """gunicorn bound port 8123 (PORT said 8000): the banner names what it really bound."""
    monkeypatch.setenv("MARKETDATA_UPSTREAM", "sandbox")
    conf = load(PORT="8000")
    server, lines = _server(("0.0.0.0", 8123))
    conf["when_ready"](server)
    (banner,) = lines
    assert "Open http://localhost:8123/ (the explorer) and http://localhost:8123/docs " \
           "(the API reference)" in banner
    assert "Listening on 0.0.0.0:8123;" in banner and ":8000" not in banner
    assert "UPSTREAM MODE: SANDBOX" in banner


@pytest.mark.parametrize(("address", "url"), [
    (("127.0.0.1", 8000), "http://localhost:8000"),
    (("::", 8000, 0, 0), "http://localhost:8000"),
    (("192.0.2.7", 9000), "http://192.0.2.7:9000"),
    (("2001:db8::1", 9000, 0, 0), "http://[2001:db8::1]:9000"),
])
def test_the_url_of_each_kind_of_address(load, address, url):
    conf = load()
    assert conf["open_url"](address) == url
    assert f"Open {url}/ (the explorer) and {url}/docs" in conf["banner"]([address])


def test_a_unix_socket_has_no_url_to_open(load):
    banner = load()["banner"](["/run/md.sock"])
    assert "Open " not in banner and "Listening on /run/md.sock;" in banner


def test_the_settings_are_checked_at_start_unless_bin_serve_did(load, monkeypatch):
    import subprocess

    runs = []
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: runs.append(a) or
                        subprocess.CompletedProcess(a, 0))
    conf = load()
    monkeypatch.delenv("MARKETDATA_SETTINGS_CHECKED", raising=False)
    conf["on_starting"](None)
    assert len(runs) == 1 and runs[0][0][-1] == "config.startup"
    monkeypatch.setenv("MARKETDATA_SETTINGS_CHECKED", "1")
    conf["on_starting"](None)
    assert len(runs) == 1
