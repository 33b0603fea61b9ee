"""config.production from the environment, as an operator sets it: the HTTPS and proxy
variables reach the settings, and ``manage.py check --deploy`` is clean with them set.

Each case imports the settings in a fresh interpreter (settings are read once, at import).
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.process,  # runs manage.py and Python with the production settings
              pytest.mark.slow("manage.py or Python started with the production settings")]

ROOT = Path(__file__).resolve().parents[2]

# What an operator behind an HTTPS-terminating proxy sets (README "Configuration").
PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "config.production",
    "ALLOWED_HOSTS": "md.example.com",
    "CSRF_TRUSTED_ORIGINS": "https://md.example.com, https://admin.example.com",
    "TRUST_X_FORWARDED_PROTO": "1",
    "SECURE_SSL_REDIRECT": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "SECURE_HSTS_PRELOAD": "1",
}

_SHOWN = ("CSRF_TRUSTED_ORIGINS", "SECURE_PROXY_SSL_HEADER", "SECURE_SSL_REDIRECT",
          "SECURE_REDIRECT_EXEMPT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS",
          "SECURE_HSTS_PRELOAD", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE",
          "USE_X_FORWARDED_HOST", "DEBUG")


def _env(tmp_path: Path, **overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in PRODUCTION_ENV and not k.startswith(("SECURE_", "SESSION_", "CSRF_"))
           and k not in ("TRUST_X_FORWARDED_PROTO", "USE_X_FORWARDED_HOST", "DJANGO_DEBUG",
                         "METRICS_TOKEN", "METRICS_PUBLIC")}
    env.update({"SECRET_KEY": secrets.token_urlsafe(50), "MARKETDATA_VAR_DIR": str(tmp_path),
                "METRICS_TOKEN": secrets.token_urlsafe(24),
                "LOG_LEVEL": "WARNING", "PYTHONPATH": str(ROOT)})
    env.update(overrides)
    return env


def _settings(env: dict[str, str]) -> dict:
    code = ("import json, django; django.setup(); from django.conf import settings; "
            f"print(json.dumps({{k: getattr(settings, k) for k in {_SHOWN!r}}}))")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _check_deploy(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", "check", "--deploy",
                           "--fail-level", "WARNING"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def test_check_deploy_is_clean_with_the_production_variables(tmp_path):
    result = _check_deploy(_env(tmp_path, **PRODUCTION_ENV))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_check_deploy_warns_without_hsts_and_redirect(tmp_path):
    """The check the test above passes is a real one."""
    env = _env(tmp_path, DJANGO_SETTINGS_MODULE="config.production")
    result = _check_deploy(env)
    assert result.returncode != 0
    assert "security.W004" in result.stderr + result.stdout
    assert "security.W008" in result.stderr + result.stdout


def test_the_proxy_and_https_variables_reach_the_settings(tmp_path):
    values = _settings(_env(tmp_path, **PRODUCTION_ENV))
    assert values["CSRF_TRUSTED_ORIGINS"] == ["https://md.example.com",
                                              "https://admin.example.com"]
    assert values["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert values["SECURE_SSL_REDIRECT"] is True
    assert values["SECURE_HSTS_SECONDS"] == 31536000
    assert values["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert values["SECURE_HSTS_PRELOAD"] is True
    # Probes and the scraper talk plain HTTP inside the network: never redirected.
    assert set(values["SECURE_REDIRECT_EXEMPT"]) >= {"^readyz$", "^v1/ping$", "^metrics$"}
    assert values["SESSION_COOKIE_SECURE"] is True
    assert values["CSRF_COOKIE_SECURE"] is True
    assert values["DEBUG"] is False


def test_production_defaults(tmp_path):
    values = _settings(_env(tmp_path, DJANGO_SETTINGS_MODULE="config.production"))
    assert values["CSRF_TRUSTED_ORIGINS"] == []
    assert values["SECURE_PROXY_SSL_HEADER"] is None  # X-Forwarded-Proto is not believed
    assert values["SECURE_SSL_REDIRECT"] is False
    assert values["SECURE_HSTS_SECONDS"] == 0
    assert values["SESSION_COOKIE_SECURE"] is True
    assert values["CSRF_COOKIE_SECURE"] is True
    assert values["USE_X_FORWARDED_HOST"] is False


@pytest.mark.parametrize("value", ["0", "false", "no"])
def test_plain_http_admin_turns_the_secure_cookies_off(tmp_path, value):
    values = _settings(_env(tmp_path, DJANGO_SETTINGS_MODULE="config.production",
                            SESSION_COOKIE_SECURE=value))
    assert values["SESSION_COOKIE_SECURE"] is False
    assert values["CSRF_COOKIE_SECURE"] is False


def _refusal(result: subprocess.CompletedProcess) -> str:
    """The one line a refused start prints (config.startup.refuse), and nothing else."""
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("marketdata: cannot start: ")
    return line


def test_production_refuses_a_missing_secret_key(tmp_path):
    env = _env(tmp_path, DJANGO_SETTINGS_MODULE="config.production")
    del env["SECRET_KEY"]
    result = subprocess.run([sys.executable, "manage.py", "check"], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert "SECRET_KEY is not set; set it to a long random value" in _refusal(result)
    assert not (tmp_path / "secret_key").exists()  # no development key generated


@pytest.mark.parametrize("key", [
    "abc",
    "x" * 49 + "y",  # 50 characters, 2 distinct
    "0123456789" * 4 + "abcdefghi",  # 49 characters
    "django-insecure-" + "0123456789abcdefghij" * 3,  # a generated development key's prefix
], ids=["short", "two-distinct", "49-characters", "django-insecure"])
def test_production_refuses_what_the_deploy_check_calls_insecure(tmp_path, key):
    env = _env(tmp_path, DJANGO_SETTINGS_MODULE="config.production", SECRET_KEY=key)
    result = subprocess.run([sys.executable, "manage.py", "check"], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    line = _refusal(result)
    assert "SECRET_KEY is too weak for production" in line and "token_urlsafe(50)" in line
    assert key not in line  # the secret is not echoed


def test_a_key_the_deploy_check_accepts_starts(tmp_path):
    key = "abcde" * 10  # 50 characters, 5 distinct: Django's own minimum
    env = _env(tmp_path, DJANGO_SETTINGS_MODULE="config.production", SECRET_KEY=key)
    result = subprocess.run([sys.executable, "manage.py", "check"], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("public", ["", "0", "false"])
def test_production_refuses_an_open_metrics_endpoint(tmp_path, public):
    env = _env(tmp_path, DJANGO_SETTINGS_MODULE="config.production", METRICS_PUBLIC=public)
    del env["METRICS_TOKEN"]
    result = subprocess.run([sys.executable, "manage.py", "check"], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert "/metrics would be open to anyone: set METRICS_TOKEN" in _refusal(result)


def test_production_serves_open_metrics_when_the_operator_says_so(tmp_path):
    env = _env(tmp_path, DJANGO_SETTINGS_MODULE="config.production", METRICS_PUBLIC="true")
    del env["METRICS_TOKEN"]
    result = subprocess.run([sys.executable, "manage.py", "check"], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_production_refuses_sandbox_mode(tmp_path):
    env = _env(tmp_path, DJANGO_SETTINGS_MODULE="config.production",
               MARKETDATA_UPSTREAM="sandbox")
    result = subprocess.run([sys.executable, "manage.py", "check"], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert "MARKETDATA_UPSTREAM=sandbox is not available with config.production" in \
        _refusal(result)


def test_production_runs_without_the_simulator(tmp_path):
    """What the image holds (.dockerignore leaves marketdata/sandbox out): the deploy check
    passes and the live client builds, with no module of the simulator importable."""
    import shutil

    tree = tmp_path / "image"
    tree.mkdir()
    shutil.copy(ROOT / "manage.py", tree)
    shutil.copy(ROOT / "pyproject.toml", tree)  # the service's version, as the image has it
    for package in ("config", "apps", "marketdata"):
        shutil.copytree(ROOT / package, tree / package,
                        ignore=shutil.ignore_patterns("__pycache__", "sandbox"))
    assert not (tree / "marketdata" / "sandbox").exists()
    env = _env(tmp_path, **PRODUCTION_ENV, PYTHONPATH=str(tree))
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy",
                             "--fail-level", "WARNING"], env=env, cwd=tree,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    code = ("import django; django.setup(); import importlib.util, sys; "
            "from marketdata.http import get_client; "
            "from marketdata.capabilities import bars; "
            "assert get_client().in_process is False; "
            "assert importlib.util.find_spec('marketdata.sandbox') is None; "
            "assert not [m for m in sys.modules if m.startswith('marketdata.sandbox')]; "
            "print('ok')")
    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=tree,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip().endswith("ok"), result.stderr
