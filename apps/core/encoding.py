"""Content codings, entity tags and conditional GETs: one implementation for both serving
paths (:class:`apps.core.middleware.HttpCachingMiddleware` inside Django, and
:mod:`apps.core.fastpath` on the event loop).

- **Negotiation** (:func:`choose`): ``Accept-Encoding`` with q-values, ``*``, ``identity``
  and ``q=0`` refusals (RFC 9110 12.5.3). Among equally acceptable codings the smallest
  wins (br, then gzip); identity is the fallback, chosen over a coding only when the client
  ranks it higher explicitly. When the client refuses everything, identity included, the
  answer is identity anyway (RFC 9110 allows ignoring the header; a 406 for a readable JSON
  body helps nobody). No header means identity, as every client that can decompress sends
  one. Choices are memoised per header value: the fast path pays a dict lookup.
- **What is compressed**: bodies of at least :data:`MIN_SIZE` bytes with a textual content
  type (JSON, CSV, text). Smaller ones fit in one TCP segment anyway, so compression would
  save no round trip and only cost CPU. A variant is kept only when it is smaller.
- **Precomputed variants**: a response-cache entry carries its gzip and br bodies, made once
  when it is stored (:data:`ENTRY_QUALITY`: the store path stays cheap); the OpenAPI document
  its own at :data:`DOCUMENT_QUALITY`. A hit never compresses.
- **ETags** are strong: a digest of the identity body, with a per-coding suffix (``-gz``,
  ``-br``) so two encodings of one body never share a strong tag (RFC 9110 8.8.3).
  ``If-None-Match`` uses the weak comparison (RFC 9110 13.1.2) against the tag of the
  representation the request would get.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import brotli

IDENTITY = "identity"
GZIP = "gzip"
BROTLI = "br"
# The codings offered, best first (brotli is ~25 % smaller than gzip on this JSON).
CODINGS = (BROTLI, GZIP)
MIN_SIZE = 1024
# Stored entries (bench/README.md, issue 27): brotli 5 and gzip 6 take ~1 ms for a 34 KB
# body and come within 1 % of brotli 9 and gzip 9, which cost 10 and 1.2 times as much.
ENTRY_QUALITY: Mapping[str, int] = {BROTLI: 5, GZIP: 6}
# Long histories (64-512 KB) are where brotli 10's context modelling pays: 5 years of
# daily candles, 134 KB, are 24 KB instead of 31 KB, for ~57 ms once per stored entry
# (~0.4 ms per KB: bounded to 512 KB, ~200 ms; bigger bodies keep brotli 5).
LARGE_ENTRY_QUALITY: Mapping[str, int] = {BROTLI: 10, GZIP: 6}
LARGE_ENTRY = range(64 * 1024, 512 * 1024)
# Compressed once per process: the best the libraries do (brotli 11: ~1 s for the document).
DOCUMENT_QUALITY: Mapping[str, int] = {BROTLI: 11, GZIP: 9}
_SUFFIX = {IDENTITY: "", GZIP: "-gz", BROTLI: "-br"}
_TEXTUAL = re.compile(r"^(?:text/|application/(?:json|javascript|xml|[\w.+-]*\+json)\b)",
                      re.IGNORECASE)
_ENTITY_TAG = re.compile(r'(?:W/)?"([^"]*)"')
_MEMO_LIMIT = 1024


@dataclass(frozen=True, slots=True)
class Precomputed:
    """A body computed once with all its encodings (the OpenAPI document)."""

    body: bytes
    etag: str
    encoded: tuple[tuple[str, bytes], ...]

    @classmethod
    def of(cls, body: bytes, content_type: str,
           quality: Mapping[str, int] = DOCUMENT_QUALITY) -> Precomputed:
        return cls(body, digest(body), encode_all(body, content_type, quality))


# -- negotiation -----------------------------------------------------------------------------
def _qvalue(text: str) -> float | None:
    """A q-value, leniently: anything that is a number is clamped to [0, 1]; None for
    garbage (the member is then ignored)."""
    try:
        value = float(text)
    except ValueError:
        return None
    if math.isnan(value):
        return None
    return min(1.0, max(0.0, value))


def preferences(header: str) -> dict[str, float]:
    """``Accept-Encoding`` as {coding: q}; a coding listed twice keeps its lowest q (a
    refusal wins), ``x-gzip`` is gzip (RFC 9110 8.4.1.3)."""
    found: dict[str, float] = {}
    for member in header.split(","):
        coding, *params = member.split(";")
        coding = coding.strip().lower()
        if not coding:
            continue
        q: float | None = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                q = _qvalue(value.strip())
        if q is None:
            continue
        if coding == "x-gzip":
            coding = GZIP
        found[coding] = min(q, found.get(coding, q))
    return found


def _choose(header: str | None, available: tuple[str, ...]) -> str:
    if not header or not available:
        return IDENTITY
    prefs = preferences(header)
    star = prefs.get("*", 0.0)
    best, best_q = IDENTITY, 0.0
    for coding in available:  # best first: a tie keeps the earlier one
        q = prefs.get(coding, star)
        if q > best_q:
            best, best_q = coding, q
    if best != IDENTITY and prefs.get(IDENTITY, 0.0) > best_q:
        return IDENTITY
    return best


_choices: dict[tuple[str | None, tuple[str, ...]], str] = {}


def choose(header: str | None, available: tuple[str, ...]) -> str:
    """The coding to answer with: one of ``available`` (kept encodings, best first) or
    identity. Memoised per (header, available); never raises."""
    key = (header, available)
    known = _choices.get(key)
    if known is None:
        if len(_choices) >= _MEMO_LIMIT:
            _choices.clear()  # random header values only cost parses
        known = _choices[key] = _choose(header, available)
    return known


# -- compression -----------------------------------------------------------------------------
def compressible(content_type: str, size: int) -> bool:
    """Whether a body is worth compressing: textual and at least :data:`MIN_SIZE` bytes."""
    return size >= MIN_SIZE and bool(_TEXTUAL.match(content_type))


def compress(body: bytes, coding: str, quality: Mapping[str, int] = ENTRY_QUALITY) -> bytes:
    """``body`` in ``coding`` (gzip without a timestamp: the same body, the same bytes)."""
    if coding == GZIP:
        return gzip.compress(body, quality[GZIP], mtime=0)
    if coding == BROTLI:
        return bytes(brotli.compress(body, mode=brotli.MODE_TEXT, quality=quality[BROTLI]))
    raise ValueError(f"unknown coding {coding!r}")


def entry_quality(size: int) -> Mapping[str, int]:
    """The qualities a stored entry of ``size`` bytes is compressed at."""
    return LARGE_ENTRY_QUALITY if size in LARGE_ENTRY else ENTRY_QUALITY


def encode_all(body: bytes, content_type: str,
               quality: Mapping[str, int] | None = None) -> tuple[tuple[str, bytes], ...]:
    """The encodings of ``body`` worth keeping (smaller than it), best first, at
    ``quality`` (an entry's by default: :func:`entry_quality`)."""
    if not compressible(content_type, len(body)):
        return ()
    quality = quality or entry_quality(len(body))
    kept = []
    for coding in CODINGS:
        data = compress(body, coding, quality)
        if len(data) < len(body):
            kept.append((coding, data))
    return tuple(kept)


# -- entity tags -----------------------------------------------------------------------------
def digest(body: bytes) -> str:
    """The opaque part of a body's strong ETag: 128 bits of BLAKE2b, in hex."""
    return hashlib.blake2b(body, digest_size=16).hexdigest()


def etag(tag: str, coding: str) -> str:
    """The strong ETag of ``coding``'s representation of the body tagged ``tag``."""
    return f'"{tag}{_SUFFIX[coding]}"'


def none_match(header: str, current: str) -> bool:
    """Whether ``If-None-Match: header`` matches ``current`` (a quoted strong tag): ``*``,
    or any listed tag equal under the weak comparison (a ``W/`` prefix is ignored)."""
    header = header.strip()
    if header == current or header == "*":
        return True
    opaque = current[1:-1]
    return any(found == opaque for found in _ENTITY_TAG.findall(header))


def max_age(expires: float, now: float) -> int:
    """Whole seconds left before ``expires`` (never more than is left, never negative)."""
    return max(0, int(expires - now))


def cache_control(seconds: int) -> str:
    return f"public, max-age={seconds}"
