"""The explorer page's own files: its script and style sheet, and plotly.js as the plotly
package on PyPI ships it (``plotly/package_data/plotly.min.js``), served offline.

Each file is read once per process and named by its content digest
(``/explorer/assets/<digest>/<name>``), so a page always asks for the bytes it was rendered
with and the files can be cached for a year (``immutable``). Their gzip and brotli
encodings are made once, at :data:`QUALITY`, and kept in memory and on disk under
``MARKETDATA_VAR_DIR`` (one file per digest and coding): ``manage.py prepare`` makes them
before the server starts, so no worker compresses 4.8 MB of plotly.js on a request, and
several workers or instances on one host share them.

Why not WhiteNoise: it serves what ``collectstatic`` compressed only when its finders are
off, and compresses every file at brotli 11 on every ``collectstatic`` (11 s for plotly.js
alone). Here the encodings are negotiated and tagged by the same rules as every other
answer (:mod:`apps.core.encoding`).
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from apps.core import encoding

HERE = Path(__file__).resolve().parent / "assets"
# brotli 9 is 1.23 MB for plotly.js in 0.6 s; 11 would save 10 % for 11 s (bench/README.md).
QUALITY: Mapping[str, int] = {encoding.BROTLI: 9, encoding.GZIP: 9}
DIGEST_LENGTH = 16
JAVASCRIPT = "text/javascript; charset=utf-8"
CSS = "text/css; charset=utf-8"


def _plotly_js() -> Path:
    spec = importlib.util.find_spec("plotly")
    if spec is None or spec.origin is None:
        raise LookupError("the plotly package is not installed (requirements/base.txt)")
    return Path(spec.origin).parent / "package_data" / "plotly.min.js"


@dataclass(frozen=True)
class Source:
    """Where a served file comes from, and what it is."""

    locate: Callable[[], Path]
    content_type: str


SOURCES: Mapping[str, Source] = {
    "explorer.js": Source(lambda: HERE / "explorer.js", JAVASCRIPT),
    "explorer.css": Source(lambda: HERE / "explorer.css", CSS),
    "plotly.min.js": Source(_plotly_js, JAVASCRIPT),
}


@dataclass(frozen=True)
class Asset:
    """One served file: its bytes, their digest (the URL's version), its encodings."""

    name: str
    content_type: str
    body: bytes
    digest: str
    representations: encoding.Precomputed

    @property
    def url(self) -> str:
        return f"/explorer/assets/{self.digest}/{self.name}"


_lock = threading.Lock()
_loaded: dict[str, Asset] = {}


def _cache_dir() -> Path:
    return Path(settings.VAR_DIR) / "explorer-assets"


def _encoded(body: bytes, digest: str, content_type: str) -> tuple[tuple[str, bytes], ...]:
    """The encodings worth keeping (:func:`apps.core.encoding.encode_all`'s rule), read
    from the disk cache when another process made them, else made and stored there."""
    folder = _cache_dir()
    try:
        stored = tuple((coding, path.read_bytes()) for coding in encoding.CODINGS
                       if (path := folder / f"{digest}.{coding}").is_file())
    except OSError:
        stored = ()
    if stored:
        return stored
    made = encoding.encode_all(body, content_type, QUALITY)
    for coding, data in made:
        _write_atomically(folder / f"{digest}.{coding}", data)
    return made


def _write_atomically(path: Path, data: bytes) -> None:
    """Best effort: a read-only or full disk only costs the next process a compression."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as handle:
            handle.write(data)
        os.chmod(handle.name, 0o644)  # mkstemp's 0600 would hide it from other users
        os.replace(handle.name, path)
    except OSError:
        pass


def _load(name: str) -> Asset:
    source = SOURCES[name]
    body = source.locate().read_bytes()
    tag = encoding.digest(body)
    digest = tag[:DIGEST_LENGTH]
    representations = encoding.Precomputed(
        body, tag, _encoded(body, digest, source.content_type))
    return Asset(name, source.content_type, body, digest, representations)


def get(name: str) -> Asset:
    """The served file ``name`` (a key of :data:`SOURCES`; KeyError otherwise), loaded
    and compressed once per process; re-read on every call with DEBUG on (edits show)."""
    if settings.DEBUG:
        return _load(name)
    asset = _loaded.get(name)
    if asset is None:
        with _lock:
            asset = _loaded.get(name)
            if asset is None:
                asset = _loaded[name] = _load(name)
    return asset


def urls() -> dict[str, str]:
    """Each file's versioned URL, for the page's template."""
    return {name.replace(".", "_"): get(name).url for name in SOURCES}


def warm() -> None:
    """Load and compress every file now (``manage.py prepare``: before the server starts),
    and drop the encodings of versions no longer served (each edit leaves its own)."""
    current = {get(name).digest for name in SOURCES}
    folder = _cache_dir()
    if folder.is_dir():
        for path in folder.iterdir():
            if path.name.split(".", 1)[0] not in current:
                path.unlink(missing_ok=True)
