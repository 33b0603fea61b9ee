"""A page's own files served offline from this origin (the explorer's script, style sheet
and plotly.js; GraphiQL and React for ``/graphql``): one implementation, one
:class:`Assets` per page.

Each file is read once per process and named by its content digest
(``<prefix>/<digest>/<name>``), so a page always asks for the bytes it was rendered with
and the files can be cached for a year (``immutable``). Their gzip and brotli encodings
are made once, at :data:`QUALITY`, and kept in memory and on disk under
``MARKETDATA_VAR_DIR`` (one folder per page, one file per digest and coding):
``manage.py prepare`` makes them before the server starts (each page's AppConfig warms its
set), so no worker compresses 4.8 MB of plotly.js on a request, and several workers or
instances on one host share them.

Why not WhiteNoise: it serves what ``collectstatic`` compressed only when its finders are
off, and compresses every file at brotli 11 on every ``collectstatic`` (11 s for plotly.js
alone). Here the encodings are negotiated and tagged by the same rules as every other
answer (:mod:`apps.core.encoding`).
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from apps.core import encoding
from apps.core.views import error_response, not_found

# brotli 9 is 1.23 MB for plotly.js in 0.6 s; 11 would save 10 % for 11 s (bench/README.md).
QUALITY: Mapping[str, int] = {encoding.BROTLI: 9, encoding.GZIP: 9}
DIGEST_LENGTH = 16
JAVASCRIPT = "text/javascript; charset=utf-8"
CSS = "text/css; charset=utf-8"
IMMUTABLE = "public, max-age=31536000, immutable"
SAFE_METHODS = ("GET", "HEAD")


@dataclass(frozen=True)
class Source:
    """Where a served file comes from, and what it is."""

    locate: Callable[[], Path]
    content_type: str


@dataclass(frozen=True)
class Asset:
    """One served file: its bytes, their digest (the URL's version), its encodings."""

    name: str
    content_type: str
    body: bytes
    digest: str
    representations: encoding.Precomputed
    prefix: str

    @property
    def url(self) -> str:
        return f"{self.prefix}/{self.digest}/{self.name}"


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


class Assets:
    """The files of one page: ``sources`` by name, served under ``prefix``
    (``/explorer/assets``: no trailing slash), their encodings kept in
    ``MARKETDATA_VAR_DIR/<folder>``."""

    def __init__(self, prefix: str, folder: str, sources: Mapping[str, Source],
                 quality: Mapping[str, int] = QUALITY) -> None:
        self.prefix = prefix
        self.folder = folder
        self.sources = sources
        self.quality = quality
        self.loaded: dict[str, Asset] = {}
        self._lock = threading.Lock()

    def cache_dir(self) -> Path:
        return Path(settings.VAR_DIR) / self.folder

    def _encoded(self, body: bytes, digest: str,
                 content_type: str) -> tuple[tuple[str, bytes], ...]:
        """The encodings worth keeping (:func:`apps.core.encoding.encode_all`'s rule), read
        from the disk cache when another process made them, else made and stored there."""
        folder = self.cache_dir()
        try:
            stored = tuple((coding, path.read_bytes()) for coding in encoding.CODINGS
                           if (path := folder / f"{digest}.{coding}").is_file())
        except OSError:
            stored = ()
        if stored:
            return stored
        made = encoding.encode_all(body, content_type, self.quality)
        for coding, data in made:
            _write_atomically(folder / f"{digest}.{coding}", data)
        return made

    def _load(self, name: str) -> Asset:
        source = self.sources[name]
        body = source.locate().read_bytes()
        tag = encoding.digest(body)
        digest = tag[:DIGEST_LENGTH]
        representations = encoding.Precomputed(
            body, tag, self._encoded(body, digest, source.content_type))
        return Asset(name, source.content_type, body, digest, representations, self.prefix)

    def get(self, name: str) -> Asset:
        """The served file ``name`` (a key of ``sources``; KeyError otherwise), loaded and
        compressed once per process; re-read on every call with DEBUG on (edits show)."""
        if settings.DEBUG:
            return self._load(name)
        asset = self.loaded.get(name)
        if asset is None:
            with self._lock:
                asset = self.loaded.get(name)
                if asset is None:
                    asset = self.loaded[name] = self._load(name)
        return asset

    def urls(self) -> dict[str, str]:
        """Each file's versioned URL, for the page's template (``explorer.js`` is
        ``explorer_js``)."""
        return {name.replace(".", "_"): self.get(name).url for name in self.sources}

    def warm(self) -> None:
        """Load and compress every file now (``manage.py prepare``: before the server
        starts), and drop the encodings of versions no longer served (each edit leaves its
        own)."""
        current = {self.get(name).digest for name in self.sources}
        folder = self.cache_dir()
        if folder.is_dir():
            for path in folder.iterdir():
                if path.name.split(".", 1)[0] not in current:
                    path.unlink(missing_ok=True)

    def response(self, request: HttpRequest, digest: str, name: str) -> HttpResponse:
        """``GET <prefix>/<digest>/<name>``: one of the files. The current digest is cached
        for a year; another one (a page rendered before a restart that changed the file)
        still gets today's bytes, revalidated instead of kept. Encoded and tagged by
        HttpCachingMiddleware from the precomputed representations."""
        if request.method not in SAFE_METHODS:
            return method_not_allowed(request)
        try:
            found = self.get(name)
        except KeyError:
            return not_found(request)
        response = HttpResponse(found.body, content_type=found.content_type)
        response.representations = found.representations  # type: ignore[attr-defined]
        response["Cache-Control"] = IMMUTABLE if digest == found.digest else "no-cache"
        return response


def method_not_allowed(request: HttpRequest) -> HttpResponse:
    """A page's or an asset's 405 (JSON, as the API's)."""
    response = error_response(request, "Method not allowed", 405)
    response["Allow"] = "GET, HEAD, OPTIONS"
    return response
