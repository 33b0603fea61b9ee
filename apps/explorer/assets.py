"""The explorer page's own files: its script and style sheet, and plotly.js as the plotly
package on PyPI ships it (``plotly/package_data/plotly.min.js``), served offline under
``/explorer/assets/<digest>/<name>`` by :mod:`apps.core.assets` (content-addressed,
cached for a year, gzip and brotli made once per host under
``MARKETDATA_VAR_DIR/explorer-assets``)."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from pathlib import Path

from apps.core.assets import CSS, DIGEST_LENGTH, JAVASCRIPT, QUALITY, Asset, Assets, Source

__all__ = ["ASSETS", "DIGEST_LENGTH", "QUALITY", "SOURCES", "Asset", "get", "urls", "warm"]

HERE = Path(__file__).resolve().parent / "assets"


def _plotly_js() -> Path:
    spec = importlib.util.find_spec("plotly")
    if spec is None or spec.origin is None:
        raise LookupError("the plotly package is not installed (requirements/base.txt)")
    return Path(spec.origin).parent / "package_data" / "plotly.min.js"


SOURCES: Mapping[str, Source] = {
    "explorer.js": Source(lambda: HERE / "explorer.js", JAVASCRIPT),
    "explorer.css": Source(lambda: HERE / "explorer.css", CSS),
    "plotly.min.js": Source(_plotly_js, JAVASCRIPT),
}

ASSETS = Assets("/explorer/assets", "explorer-assets", SOURCES)
get = ASSETS.get
urls = ASSETS.urls
warm = ASSETS.warm
