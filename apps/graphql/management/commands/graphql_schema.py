"""``manage.py graphql_schema``: the GraphQL schema's SDL, written to ``schema.graphql`` at the
repository's root (``--check``: exit 1 if that file is not current). CI runs the check
(tests/apps/test_graphql_schema.py): the committed SDL is what clients generate code from."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from apps.graphql.sdl import current_sdl

DEFAULT = Path(settings.BASE_DIR) / "schema.graphql"


class Command(BaseCommand):
    help = "Write the GraphQL schema (SDL) to schema.graphql, or --check that it is current"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true",
                            help="exit 1 when the file differs from the schema")
        parser.add_argument("--output", default=str(DEFAULT), help="the file (default: "
                            "schema.graphql at the repository's root)")

    def handle(self, *args: Any, check: bool = False, output: str = "", **options: Any) -> None:
        path = Path(output)
        sdl = current_sdl()
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != sdl:
                self.stderr.write(f"{path} is not current: run `make graphql-schema`")
                sys.exit(1)
            self.stdout.write(f"{path} is current")
            return
        path.write_text(sdl, encoding="utf-8")
        self.stdout.write(f"wrote {path} ({len(sdl):,} bytes)")
