"""Every start-up refusal is one line saying what to set, never a traceback (issue 39),
whichever way the service starts: ``manage.py`` under config.production, bin/serve (make
run, development settings), and gunicorn itself (the Docker image's command)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from config import startup

ROOT = Path(__file__).resolve().parents[2]
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))


def _env(tmp_path: Path, **values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("SECRET_KEY", "DJANGO_DEBUG", "METRICS_PUBLIC", "PORT")
           and not k.startswith(("WS_", "V2_RATE", "MARKETDATA_", "REDIS_"))}
    env.update({"MARKETDATA_VAR_DIR": str(tmp_path), "METRICS_TOKEN": "scrape-token",
                "PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING", **values})
    return env


def _one_line(result: subprocess.CompletedProcess, *words: str) -> None:
    assert result.returncode == startup.EXIT_STATUS, result.stdout + result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    (line,) = result.stderr.splitlines()
    assert line.startswith("marketdata: cannot start: ")
    for word in words:
        assert word in line


@pytest.mark.parametrize(("key", "problem"), [
    (None, "SECRET_KEY is not set"),
    ("", "SECRET_KEY is not set"),
    ("abc", "SECRET_KEY is too weak"),
    ("ab" * 40, "SECRET_KEY is too weak"),
    ("django-insecure-" + "0123456789abcdefghij" * 3, "SECRET_KEY is too weak"),
    ("0123456789abcdefghij" * 3, None),
])
def test_secret_key_strength_is_djangos_own(key, problem):
    from django.core.checks.security.base import _check_secret_key

    found = startup.secret_key_problem(key)
    assert (found is None) == (problem is None) == _check_secret_key(key or "")
    if problem:
        assert found.startswith(problem) and "set it to a long random value" in found


@pytest.mark.process
def test_a_settings_refusal_under_production_is_one_line(tmp_path):
    """config.settings' ImproperlyConfigured, reached through config.production."""
    env = _env(tmp_path, DJANGO_SETTINGS_MODULE="config.production",
               SECRET_KEY="0123456789abcdefghij" * 3, V2_RATE_LIMIT_SCOPE="everyone")
    result = subprocess.run([sys.executable, "manage.py", "check"], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    _one_line(result, "V2_RATE_LIMIT_SCOPE must be 'global' or 'ip'")


@pytest.mark.process
def test_make_run_refuses_a_bad_setting_in_one_line(tmp_path):
    """bin/serve loads the development settings before manage.py prepare (whose refusal
    would be Django's traceback)."""
    env = _env(tmp_path, PYTHON=sys.executable, MARKETDATA_UPSTREAM="sandbox",
               WS_MAX_SYMBOLS="0", DJANGO_SETTINGS_MODULE="config.settings")
    result = subprocess.run([str(ROOT / "bin" / "serve")], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    _one_line(result, "WS_MAX_SYMBOLS", "must be positive")
    assert not (tmp_path / "db.sqlite3").exists()  # refused before prepare migrated


@pytest.mark.process
def test_gunicorn_refuses_a_weak_production_key_in_one_line(tmp_path):
    """The Docker image's command: the master loads the settings before any worker starts
    (a worker's refusal would be a traceback and a restart)."""
    env = _env(tmp_path, DJANGO_SETTINGS_MODULE="config.production", SECRET_KEY="abc",
               PORT="0")
    result = subprocess.run([GUNICORN, "-c", "config/gunicorn.conf.py",
                             "config.asgi:application"], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    _one_line(result, "SECRET_KEY is too weak for production")
