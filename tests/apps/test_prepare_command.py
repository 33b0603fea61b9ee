"""``manage.py prepare`` (bin/serve): migrate under a database lock, collectstatic under a
file lock, each wait bounded, so instances started together never migrate at once; then the
indicator kernels compiled, in one line saying so (not silently in the first worker)."""

from __future__ import annotations

import fcntl
import io
import os
import threading
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError, OutputWrapper
from django.db import connection

from apps.core.management.commands import prepare

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def kernels(monkeypatch, tmp_path):
    """The warm-ups prepare runs, recorded instead of compiling (tens of seconds on a fresh
    cache), with numba's cache directory in tmp_path."""
    calls: list[str] = []
    monkeypatch.setattr(prepare.indicators_warmup, "warm_up", lambda: calls.append("indicators"))
    monkeypatch.setattr(prepare.backtest_warmup, "warm_up", lambda: calls.append("backtest"))
    monkeypatch.setattr(prepare.options_warmup, "warm_up", lambda: calls.append("options"))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    return calls


def test_it_migrates_and_collects(settings, tmp_path, monkeypatch, kernels):
    from apps.explorer import assets

    settings.STATIC_ROOT = str(tmp_path / "static")
    settings.VAR_DIR = tmp_path / "var"
    monkeypatch.setattr(assets.ASSETS, "loaded", {})
    call_command("prepare", lock_timeout=30, stdout=io.StringIO())
    assert any((tmp_path / "static").rglob("*.css"))  # the docs' assets
    # and the explorer's assets compressed for every worker (apps.explorer.assets)
    made = {path.name for path in (tmp_path / "var" / "explorer-assets").iterdir()}
    assert made == {f"{assets.get(name).digest}.{coding}"
                    for name in assets.SOURCES for coding in ("br", "gzip")}


def test_it_compiles_the_kernels_saying_so_in_one_line(settings, tmp_path, kernels):
    settings.STATIC_ROOT = str(tmp_path / "static")
    settings.VAR_DIR = tmp_path / "var"
    out = io.StringIO()
    call_command("prepare", lock_timeout=30, stdout=out)
    # the worker then loads them from the cache
    assert kernels == ["indicators", "backtest", "options"]
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"marketdata: compiling the indicator kernels into "
                               f"{tmp_path / 'numba'}/ (once, ~25 s)... done in ")
    assert lines[0].endswith(" s")
    # With the cache in place (numba's index files), the line says they are loaded.
    (tmp_path / "numba" / "indicators_1").mkdir(parents=True)
    (tmp_path / "numba" / "indicators_1" / "_kernels.ema-1.py311.nbi").write_bytes(b"")
    out = io.StringIO()
    call_command("prepare", lock_timeout=30, stdout=out)
    assert out.getvalue().startswith("marketdata: loading the indicator kernels compiled in ")
    assert kernels == ["indicators", "backtest", "options"] * 2


def test_the_kernel_cache_under_the_project_is_named_relative(settings, monkeypatch, kernels):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(Path(settings.BASE_DIR) / "var" / "numba-x"))
    out = io.StringIO()
    prepare.compile_kernels(OutputWrapper(out), 5)
    assert "the indicator kernels into var/numba-x/ (once, ~25 s)" in out.getvalue()


def test_a_held_file_lock_is_waited_for_then_taken(tmp_path):
    path = tmp_path / "x.lock"
    with path.open("a") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        started = time.monotonic()
        with pytest.raises(CommandError, match="held the migration lock"):
            with prepare.file_lock(path, 0.5, "migration"):
                pass
        assert time.monotonic() - started >= 0.5
        threading.Timer(0.3, fcntl.flock, (holder, fcntl.LOCK_UN)).start()
        with prepare.file_lock(path, 10, "migration"):
            assert time.monotonic() - started >= 0.8  # it waited for the release


def test_collectstatic_waits_for_another_instance(settings, tmp_path):
    settings.STATIC_ROOT = str(tmp_path / "static")
    lock = tmp_path / "static" / ".collectstatic.lock"
    lock.parent.mkdir()
    with lock.open("a") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        with pytest.raises(CommandError, match="collectstatic"):
            call_command("prepare", lock_timeout=0.4)


@pytest.mark.skipif(not os.environ.get("DATABASE_URL", "").startswith("postgres"),
                    reason="needs PostgreSQL (DATABASE_URL)")
def test_migrate_waits_for_the_advisory_lock_on_postgresql(settings, tmp_path):
    import psycopg

    settings.STATIC_ROOT = str(tmp_path / "static")
    params = connection.get_connection_params()
    holder = psycopg.connect(**{k: v for k, v in params.items()
                                if k in ("dbname", "user", "password", "host", "port")},
                             autocommit=True)
    try:
        holder.execute("SELECT pg_advisory_lock(%s)", [prepare.ADVISORY_LOCK_ID])
        with pytest.raises(CommandError, match="migration lock"):
            call_command("prepare", lock_timeout=0.5)
        holder.execute("SELECT pg_advisory_unlock(%s)", [prepare.ADVISORY_LOCK_ID])
        call_command("prepare", lock_timeout=30)  # free again: runs
        # It released the lock: another session can take it at once.
        assert holder.execute("SELECT pg_try_advisory_lock(%s)",
                              [prepare.ADVISORY_LOCK_ID]).fetchone()[0]
    finally:
        holder.close()
