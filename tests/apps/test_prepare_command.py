"""``manage.py prepare`` (bin/serve): migrate under a database lock, collectstatic under a
file lock, each wait bounded, so instances started together never migrate at once."""

from __future__ import annotations

import fcntl
import os
import threading
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from apps.core.management.commands import prepare

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_migrates_and_collects(settings, tmp_path, monkeypatch):
    from apps.explorer import assets

    settings.STATIC_ROOT = str(tmp_path / "static")
    settings.VAR_DIR = tmp_path / "var"
    monkeypatch.setattr(assets, "_loaded", {})
    call_command("prepare", lock_timeout=30)
    assert any((tmp_path / "static").rglob("*.css"))  # the docs' assets
    # and the explorer's assets compressed for every worker (apps.explorer.assets)
    made = {path.name for path in (tmp_path / "var" / "explorer-assets").iterdir()}
    assert made == {f"{assets.get(name).digest}.{coding}"
                    for name in assets.SOURCES for coding in ("br", "gzip")}


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
