"""``manage.py compress_explorer_assets``: the explorer's files compressed into
``MARKETDATA_VAR_DIR`` now (the Docker build; ``manage.py prepare`` does it too)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from apps.explorer import assets


class Command(BaseCommand):
    help = "Compress the explorer page's assets (brotli, gzip) into MARKETDATA_VAR_DIR"

    def handle(self, *args: Any, **options: Any) -> None:
        assets.warm()
        for name in assets.SOURCES:
            asset = assets.get(name)
            sizes = ", ".join(f"{coding} {len(data):,}" for coding, data
                              in asset.representations.encoded)
            self.stdout.write(f"{asset.url}: {len(asset.body):,} bytes ({sizes})")
