"""The Docker image and compose file, checked as files (no Docker engine runs in CI): a
HEALTHCHECK on /readyz, no migrations at start, only what runs in the image, pinned images,
healthchecks and restart policies, a Redis memory cap, .env kept out of git and Docker.
bin/healthcheck itself is run against a live server in tests/integration/test_operations.py.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]


def _lines(name: str) -> list[str]:
    return [line.strip() for line in (ROOT / name).read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def test_image_healthcheck_probes_readyz():
    assert re.search(r"^HEALTHCHECK .*\n?.*bin/healthcheck", DOCKERFILE, re.M)
    assert "/readyz" in (ROOT / "bin" / "healthcheck").read_text()


def test_image_does_not_migrate_at_start():
    cmd = next(line for line in DOCKERFILE.splitlines() if line.startswith("CMD"))
    assert "migrate" not in cmd
    assert "gunicorn" in cmd and "config/gunicorn.conf.py" in cmd


def test_image_holds_only_what_runs():
    copies = [line.split()[1:-1] for line in DOCKERFILE.splitlines()
              if line.startswith("COPY")]
    sources = {source for line in copies for source in line}
    assert "." not in sources
    assert not {"tests/", "bench/", "docs/", "tests", "bench"} & sources
    assert {"config/", "marketdata/", "apps/", "manage.py"} <= sources
    assert "pyproject.toml" in sources  # the service's version (marketdata.__version__)
    ignored = _lines(".dockerignore")
    for entry in (".env", ".git", ".venv", "var", "tests", "bench", "marketdata/sandbox"):
        assert entry in ignored


def test_image_preloads_jemalloc():
    assert "libjemalloc2" in DOCKERFILE
    assert "ENV LD_PRELOAD=/usr/local/lib/libjemalloc.so.2" in DOCKERFILE


def test_image_installs_the_hashed_lock_file():
    assert "--require-hashes -r requirements/base.lock" in DOCKERFILE
    assert (ROOT / "requirements" / "base.lock").exists()


def test_env_files_stay_out_of_git():
    assert ".env" in _lines(".gitignore")


def test_images_are_pinned_to_a_full_version():
    images = [re.search(r"^FROM (\S+)", DOCKERFILE, re.M).group(1)]
    images += [service["image"] for name, service in SERVICES.items()
               if name in ("db", "redis", "lb")]
    for image in images:
        tag = image.split(":", 1)[1]
        assert re.match(r"^\d+\.\d+(\.\d+)?-", tag), image  # e.g. 16.10-bookworm


def test_compose_migrates_once_before_the_app():
    migrate, app = SERVICES["migrate"], SERVICES["app"]
    assert migrate["command"] == ["python", "manage.py", "migrate", "--noinput"]
    assert migrate["restart"] == "no"
    assert app["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert app["depends_on"]["db"] == {"condition": "service_healthy"}
    assert app["depends_on"]["redis"] == {"condition": "service_healthy"}


def test_compose_healthchecks_and_restart_policies():
    for name in ("app", "db", "redis"):
        assert SERVICES[name]["restart"] == "unless-stopped", name
        assert SERVICES[name]["healthcheck"]["test"], name
    assert SERVICES["app"]["healthcheck"]["test"] == ["CMD", "python", "bin/healthcheck"]
    assert SERVICES["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]


def test_compose_redis_has_a_memory_cap_and_eviction_policy():
    command = SERVICES["redis"]["command"]
    assert command[command.index("--maxmemory") + 1].endswith("mb}")
    assert command[command.index("--maxmemory-policy") + 1] == "volatile-lfu"


def test_compose_requires_a_secret_key():
    assert ":?" in SERVICES["app"]["environment"]["SECRET_KEY"]


def test_compose_has_no_default_database_password():
    assert ":?" in SERVICES["app"]["environment"]["DATABASE_URL"]
    assert SERVICES["db"]["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")
    assert "marketdata}" not in (ROOT / "docker-compose.yml").read_text()


def test_compose_scales_behind_the_balancer():
    """`docker compose up --scale app=3`: only the balancer publishes a port, it loads the
    shared balancing rules and a DNS server list, and the replicas trust its fixed address
    (and only it) for X-Forwarded-For."""
    app, lb = SERVICES["app"], SERVICES["lb"]
    assert "ports" not in app and "container_name" not in app
    assert lb["ports"][0] == "${PORT:-8000}:8000"
    mounted = {volume.split(":")[1] for volume in lb["volumes"]}
    assert {"/usr/local/etc/haproxy/haproxy.cfg",
            "/usr/local/etc/haproxy/servers-compose.cfg"} <= mounted
    for volume in lb["volumes"]:
        assert (ROOT / volume.split(":")[0]).is_file(), volume
    address = lb["networks"]["default"]["ipv4_address"]
    assert app["environment"]["TRUSTED_PROXIES"] == f"${{TRUSTED_PROXIES:-{address}}}"
    subnet = COMPOSE["networks"]["default"]["ipam"]["config"][0]["subnet"]
    import ipaddress
    assert ipaddress.ip_address(address) in ipaddress.ip_network(subnet)
    servers = (ROOT / "deploy" / "haproxy" / "servers-compose.cfg").read_text()
    assert re.search(r"server-template app \d+ app:8000 check resolvers docker", servers)


def test_compose_refuses_an_open_metrics_endpoint_by_default():
    env = SERVICES["app"]["environment"]
    assert env["METRICS_TOKEN"] == "${METRICS_TOKEN:-}"
    assert env["METRICS_PUBLIC"] == "${METRICS_PUBLIC:-}"  # config.production refuses both empty


@pytest.mark.skipif(shutil.which("haproxy") is None, reason="needs haproxy (Debian package)")
@pytest.mark.process
def test_haproxy_accepts_the_compose_configuration(tmp_path):
    """The configuration the compose balancer loads, checked by HAProxy itself."""
    env = {"MD_LB_BIND": ":8000", "MD_STATS_BIND": ":8404"}  # as compose sets them
    haproxy = shutil.which("haproxy") or "haproxy"
    done = subprocess.run([haproxy, "-c", "-f", str(ROOT / "deploy/haproxy/haproxy.cfg"),
                           "-f", str(ROOT / "deploy/haproxy/servers-compose.cfg")],
                          env=env, capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.process
def test_healthcheck_fails_without_a_server(unused_port: int = 9):
    result = subprocess.run([sys.executable, str(ROOT / "bin" / "healthcheck")],
                            env={"PORT": str(unused_port)}, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 1
    assert "no answer" in result.stderr


@pytest.mark.process
def test_healthcheck_names_an_allowed_host():
    code = "import runpy, sys; print(runpy.run_path(sys.argv[1])['probe_host']())"

    def host(allowed: str) -> str:
        return subprocess.run([sys.executable, "-c", code, str(ROOT / "bin" / "healthcheck")],
                              env={"ALLOWED_HOSTS": allowed}, capture_output=True, text=True,
                              timeout=30, check=True).stdout.strip()

    assert host("*") == "localhost"
    assert host("") == "localhost"
    assert host("md.example.com,other") == "md.example.com"
    assert host("*.example.com, .example.org") == "example.org"
