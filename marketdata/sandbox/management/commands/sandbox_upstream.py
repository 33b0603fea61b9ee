"""``manage.py sandbox_upstream``: serve the upstream sandbox as a separate upstream process.

Why a management command: same entry point style as the rest of the project; it imports
nothing database-related, so it starts without a configured database.
"""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from marketdata.sandbox.cli import add_arguments, make_clock, serve


class Command(BaseCommand):
    help = ("Serve the deterministic upstream simulator (Yahoo, Algolia...) over HTTP "
            "(loopback tests).")
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: ArgumentParser) -> None:
        add_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        def announce(line: str) -> None:
            self.stdout.write(line)
            self.stdout.flush()

        serve(options["host"], options["port"], options["latency_ms"], options["fail_rate"],
              options["seed"], options["crumb_ttl"], announce=announce,
              clock=make_clock(options["clock_start"], options["clock_speed"]))
