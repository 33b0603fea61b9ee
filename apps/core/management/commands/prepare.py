"""``manage.py prepare``: migrate and collect the static files once, however many instances
start together (``bin/serve`` runs it before the server).

Replicas started at the same moment (``docker compose up --scale app=3``, a rolling deploy,
several ``bin/serve`` on one database) would each run ``migrate``: two at once can both try
to apply one migration (a duplicate-table error, a schema half applied). Here ``migrate``
runs under a lock the database itself holds, so an instance that waited finds nothing left
to apply:

- PostgreSQL: a session advisory lock (``pg_try_advisory_lock``, polled), fleet-wide, freed
  by the server if the holder dies;
- SQLite (one host by nature): an exclusive ``flock`` on a file beside the database, freed
  by the kernel if the holder dies.

``collectstatic`` writes into this host's ``STATIC_ROOT``, so it runs under a ``flock`` in
that folder. Each wait is bounded (``--lock-timeout``, default 300 s): an instance that
cannot get the lock fails to start, loudly, rather than starting on an unknown schema.

Then the indicator, backtest and options kernels are compiled into numba's cache
(``NUMBA_CACHE_DIR``, ``var/numba``), once per host under a ``flock`` too, saying so in one
line: on a fresh clone that takes about 25 s, which the first worker otherwise spent with no
output before it answered anything; with the cache in place a worker loads them in ~0.3 s.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser, OutputWrapper
from django.db import connection

from marketdata.backtest import warmup as backtest_warmup
from marketdata.indicators import warmup as indicators_warmup
from marketdata.options import warmup as options_warmup

# This project's advisory lock key (any 64-bit integer; "mdmigrat" in ASCII).
ADVISORY_LOCK_ID = 0x6D646D6967726174
POLL_SECONDS = 0.2


@contextlib.contextmanager
def file_lock(path: Path, timeout: float, what: str) -> Iterator[None]:
    """An exclusive ``flock`` on ``path`` (created if missing), waited for up to ``timeout``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise CommandError(f"another instance held the {what} lock ({path}) "
                                       f"for more than {timeout:g} s") from None
                time.sleep(POLL_SECONDS)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextlib.contextmanager
def advisory_lock(timeout: float) -> Iterator[None]:
    """PostgreSQL's session advisory lock :data:`ADVISORY_LOCK_ID`, waited for up to
    ``timeout`` (polled, so the wait is bounded and a holder that dies frees it)."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while True:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [ADVISORY_LOCK_ID])
            if cursor.fetchone()[0]:
                break
            if time.monotonic() >= deadline:
                raise CommandError(f"another instance held the migration lock for more than "
                                   f"{timeout:g} s")
            time.sleep(POLL_SECONDS)
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [ADVISORY_LOCK_ID])


def migration_lock(timeout: float) -> contextlib.AbstractContextManager[None]:
    """The lock ``migrate`` runs under, for the configured database."""
    if connection.vendor == "postgresql":
        return advisory_lock(timeout)
    name = str(settings.DATABASES["default"].get("NAME") or "")
    beside = Path(name) if name and name != ":memory:" and "mode=memory" not in name \
        else Path(settings.VAR_DIR) / "database"
    return file_lock(beside.with_name(beside.name + ".migrate.lock"), timeout, "migration")


def kernel_cache() -> Path:
    """numba's cache directory (config.settings sets NUMBA_CACHE_DIR before numba loads)."""
    return Path(os.environ.get("NUMBA_CACHE_DIR") or Path(settings.VAR_DIR) / "numba")


def compile_kernels(out: OutputWrapper, timeout: float) -> None:
    """Compile the indicator, backtest and options kernels into :func:`kernel_cache` (or load them
    from it), saying in one line what happens and how long it took."""
    cache = kernel_cache()
    with contextlib.suppress(ValueError):
        cache = cache.relative_to(Path(settings.BASE_DIR))
    compiled = any(kernel_cache().glob("*/*.nbi"))  # numba's index of a compiled function
    if compiled:
        out.write(f"marketdata: loading the indicator kernels compiled in {cache}/... ",
                  ending="")
    else:
        out.write(f"marketdata: compiling the indicator kernels into {cache}/ "
                  f"(once, ~25 s)... ", ending="")
    out.flush()
    started = time.monotonic()
    with file_lock(Path(settings.VAR_DIR) / "kernels.lock", timeout, "kernel compilation"):
        indicators_warmup.warm_up()
        backtest_warmup.warm_up()
        options_warmup.warm_up()
    out.write(f"done in {time.monotonic() - started:.1f} s")


class Command(BaseCommand):
    help = ("Migrate, collect static files, compress the explorer's assets and compile the "
            "indicator kernels, once at a time across instances started together")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--lock-timeout", type=float, default=300.0,
                            help="seconds to wait for another instance's migrate or "
                                 "collectstatic (default 300)")

    def handle(self, *args: Any, **options: Any) -> None:
        timeout = float(options["lock_timeout"])
        with migration_lock(timeout):
            call_command("migrate", interactive=False, verbosity=0)
        static_root = Path(settings.STATIC_ROOT)
        with file_lock(static_root / ".collectstatic.lock", timeout, "collectstatic"):
            call_command("collectstatic", interactive=False, verbosity=0)
        # What an app prepares once per host, not in each worker (the explorer compresses
        # its assets): its AppConfig's prepare(), so this core command imports no app.
        for config in apps.get_app_configs():
            prepare = getattr(config, "prepare", None)
            if callable(prepare):
                prepare()
        # The kernels compiled here, saying so, not silently in the first worker.
        compile_kernels(self.stdout, timeout)
