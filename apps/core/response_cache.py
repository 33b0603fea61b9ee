"""The response cache's keys and entries: one implementation for both request paths.

The Django middleware (:class:`apps.core.middleware.ResponseCacheMiddleware`) stores
answers and serves hits inside Django; the fast path (:mod:`apps.core.fastpath`) serves the
same hits on the event loop without Django's handler. Both compute keys with
:func:`cache_key` from plain values (no request object) and read and write entries through
:func:`get_store`, so a hit is always the same bytes and headers whichever path serves it.

An entry is self-describing bytes (:func:`encode`): a magic tag, the absolute expiry, a JSON
head (the headers that travel with the body, ``Content-Type`` first, then
``X-Search-Provider``; the body's ETag digest; the lengths of its compressed variants), the
body, then its gzip and brotli variants (:mod:`apps.core.encoding`), made once when it is
stored so that no hit, on either path, ever compresses. It is kept in the default cache
backend: the local-memory cache (one per process) or, with Redis, a raw Redis string under
the cache's own key prefix (no pickling), which django-redis, redis-py and ``redis.asyncio``
all read alike. Expired entries are misses even if the backend still holds them (its TTL
is whole seconds; the expiry is exact).
"""

from __future__ import annotations

import hashlib
import pickle
import re
import struct
import time
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import unquote

import orjson

import marketdata
from apps.core import encoding, tabular
from marketdata import cache as md_cache

# "e2": the entry format below (keys of an older format are never read as entries).
PREFIX = f"md:{md_cache.KEY_VERSION}:resp:{marketdata.__version__}:e2:"

# Answers that must be computed every time: the health report, liveness, streams.
UNCACHEABLE = ("/v1/health", "/v1/ping", "/v1/stream/")
# Paths whose body depends on the client's language when the query names none (v2 quotes:
# ``lang`` wins, ``Accept-Language`` is the fallback), so the header is part of their key.
_LANGUAGE_DEPENDENT = ("/v2/quote/", "/v2/quotes")
_LANG_PARAM = re.compile(r"(?:^|&)lang=")
_KEY_SAFE = re.compile(r"[\x21-\x7e]*")
_MAX_PLAIN_KEY = 160

# Headers that describe the body (which provider answered; for a tabular view, that it
# varies with Accept and, for a CSV page, where the next page is) and so travel with it.
REPLAYED_HEADERS = ("X-Search-Provider", "Vary", "Link")
# The request headers a key is made of besides the URL (:func:`cache_key`): the only ones
# an entry's ``Vary`` may name, since every request with the entry's key gets its bytes.
KEY_HEADERS = frozenset({"accept", "accept-language"})


def storable(accept: str, content_type: str) -> bool:
    """Whether an answer may be kept under the key of a request with this ``Accept``: under
    a CSV key only a CSV body. (A view without CSV answers such a request with JSON or a
    406 depending on more of the header than the key holds.)"""
    return not (accept and tabular.representation(accept)) or \
        content_type.startswith(tabular.CSV_MEDIA_TYPE)


def _param_name(pair: str) -> str:
    """A query pair's name as Django's QueryDict decodes it (``+`` is a space)."""
    name = pair.split("=", 1)[0]
    if "%" in name or "+" in name:
        name = unquote(name.replace("+", " "), errors="replace")
    return name


def cache_key(method: str, path: str, query: str, accept_language: str = "",
              *, encoded_slash: bool = False, accept: str = "") -> str | None:
    """The response-cache key of a request, or None when its answer must not be cached.

    ``path`` is the decoded path, ``query`` the raw query string, ``accept_language`` the
    header's value ("" when absent). Only GETs under /v1/ and /v2/ are cached, never health,
    ping or streams, and never a target with an encoded slash (``encoded_slash``): the views
    refuse those, and a key on the decoded path would serve them the answer of the path it
    decodes to.

    Query parameters are ordered by name with a *stable* sort, so ``a=1&b=2`` and
    ``b=2&a=1`` share a key while repeated names keep their order (``symbol=A&symbol=B``
    and ``symbol=B&symbol=A`` can answer differently: a view reads the last one). Names are
    compared decoded, so two spellings of one name keep their order too. The raw pairs are
    kept otherwise (no decode/re-encode: two spellings of one query at worst cost one
    extra miss).

    ``accept`` is the ``Accept`` header ("" when absent): a request that prefers CSV
    (:func:`apps.core.tabular.representation`) has a key of its own, so the JSON and the CSV
    of one URL never share an entry; every other Accept keeps the plain key (JSON).
    """
    if method != "GET" or not path.startswith(("/v1/", "/v2/")) or \
            path.startswith(UNCACHEABLE) or encoded_slash:
        return None
    if "&" in query:
        query = "&".join(sorted(query.split("&"), key=_param_name))
    url = f"{path}?{query}"
    if accept and tabular.representation(accept):
        url = f"{tabular.CSV}:{url}"  # never a plain key: those start with the path's "/"
    if language_dependent(path, query):
        url += "#" + accept_language.strip().lower()
    # Long symbol lists, and decoded paths with spaces, control or non-ASCII characters
    # (memcached-unsafe keys): a digest keeps every key short and portable.
    if len(url) > _MAX_PLAIN_KEY or not _KEY_SAFE.fullmatch(url):
        url = hashlib.sha256(url.encode("utf-8", "surrogatepass")).hexdigest()
    return PREFIX + url


# -- entries ---------------------------------------------------------------------------------
_MAGIC = b"MDR2"
_HEAD = struct.Struct("<dI")  # expiry (epoch seconds), length of the JSON head


@dataclass(frozen=True, slots=True, weakref_slot=True)
class Entry:
    """A stored answer: always a 200 (``Content-Type`` is the first header).

    ``etag`` is the digest of ``body`` (:func:`apps.core.encoding.digest`, computed when
    missing), ``encoded`` the kept compressed variants, best first.
    """

    body: bytes
    headers: tuple[tuple[str, str], ...]
    expires: float
    etag: str = ""
    encoded: tuple[tuple[str, bytes], ...] = ()

    def __post_init__(self) -> None:
        if not self.etag:
            object.__setattr__(self, "etag", encoding.digest(self.body))

    @property
    def content_type(self) -> str:
        return self.headers[0][1]

    @property
    def codings(self) -> tuple[str, ...]:
        return tuple(coding for coding, _ in self.encoded)

    def variant(self, coding: str) -> bytes:
        """The body in ``coding`` (identity, or one of :attr:`codings`)."""
        for name, data in self.encoded:
            if name == coding:
                return data
        return self.body

    def fresh(self, now: float | None = None) -> bool:
        return self.expires > (time.time() if now is None else now)

    def max_age(self, now: float | None = None) -> int:
        """Whole seconds this entry stays fresh (``Cache-Control: max-age``)."""
        return encoding.max_age(self.expires, time.time() if now is None else now)


def encode(entry: Entry) -> bytes:
    head = orjson.dumps({"h": entry.headers, "t": entry.etag,
                         "e": [(coding, len(data)) for coding, data in entry.encoded]})
    return b"".join((_MAGIC, _HEAD.pack(entry.expires, len(head)), head, entry.body,
                     *(data for _, data in entry.encoded)))


def decode(blob: Any) -> Entry | None:
    """The entry in ``blob``, or None for anything else (an older format, garbage)."""
    if not isinstance(blob, bytes) or not blob.startswith(_MAGIC):
        return None
    try:
        expires, length = _HEAD.unpack_from(blob, 4)
        start = 4 + _HEAD.size
        head = orjson.loads(blob[start:start + length])
        # An entry stored before its Vary was reduced serves the endpoint's all the same.
        headers = endpoint_headers(tuple((str(n), str(v)) for n, v in head["h"]))
        tag = str(head["t"])
        sizes = [(str(coding), int(size)) for coding, size in head["e"]]
    except (struct.error, orjson.JSONDecodeError, TypeError, ValueError, KeyError):
        return None
    if not headers or headers[0][0] != "Content-Type" or not tag:
        return None
    end = len(blob) - sum(size for _, size in sizes)
    start += length
    if end < start or any(size <= 0 for _, size in sizes):
        return None
    encoded = []
    offset = end
    for coding, size in sizes:
        encoded.append((coding, blob[offset:offset + size]))
        offset += size
    return Entry(blob[start:end], headers, expires, tag, tuple(encoded))


def endpoint_headers(headers: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """``headers`` with ``Vary`` reduced to the endpoint's rule: the members naming a
    header of the key (:data:`KEY_HEADERS`; a tabular view's ``Accept``), in their order,
    and no ``Vary`` when none is left.

    The rest were added for the request that filled the entry, not for the endpoint: the
    CSRF and session middleware (inside the response cache) add ``Cookie`` when that
    request carried one, and every later hit would repeat it. The headers of the layers
    in front of the cache (CORS's ``Origin``, ``Accept-Encoding``, ``Accept-Language``)
    are added per response on both paths, hits included."""
    out = []
    for name, value in headers:
        if name.lower() == "vary":
            kept = [m.strip() for m in value.split(",") if m.strip().lower() in KEY_HEADERS]
            if not kept:
                continue
            value = ", ".join(kept)
        out.append((name, value))
    return tuple(out)


def new_entry(body: bytes, content_type: str, replayed: tuple[tuple[str, str], ...],
              ttl: float) -> Entry:
    """An entry for ``body``, with its ETag digest and its compressed variants (made here,
    once, at :data:`apps.core.encoding.ENTRY_QUALITY`); its ``Vary`` is the endpoint's
    (:func:`endpoint_headers`)."""
    return Entry(body, (("Content-Type", content_type), *endpoint_headers(replayed)),
                 time.time() + ttl, encoding.digest(body),
                 encoding.encode_all(body, content_type))


def language_dependent(path: str, query: str) -> bool:
    """Whether the answer depends on ``Accept-Language`` (``Vary``, and the key)."""
    return path.startswith(_LANGUAGE_DEPENDENT) and not _LANG_PARAM.search(query)


# -- stores ----------------------------------------------------------------------------------
class EntryStore(Protocol):
    def get(self, key: str) -> Entry | None: ...

    async def aget(self, key: str) -> Entry | None: ...

    def set(self, key: str, entry: Entry, ttl: float) -> None: ...


def _fresh(blob: Any) -> Entry | None:
    entry = decode(blob)
    return entry if entry is not None and entry.fresh() else None


class LocalEntries:
    """Entries in the local-memory cache (shared by the threads and the event loop of one
    process). Reads are in-memory and take microseconds, so the event loop does them
    directly.

    A hot entry is decoded once, not at every hit: the cache hands out the stored bytes
    object itself (``get_pickled``), the same one until the key is written again, and
    the entry decoded from it is kept beside it (an unpickled copy of the whole blob, then
    a decode that copies the body and its compressed variants, were a fifth of a hit's
    cost). Kept for ``DECODED_ENTRIES`` keys, blobs up to ``DECODED_MAX_BYTES``."""

    DECODED_ENTRIES = 128
    DECODED_MAX_BYTES = 64 * 1024

    def __init__(self, cache: Any) -> None:
        self.cache = cache
        self._get_pickled = getattr(cache, "get_pickled", None)
        # key -> (the stored object it was decoded from, the entry or None for garbage)
        self._decoded: dict[str, tuple[bytes, Entry | None]] = {}

    def get(self, key: str) -> Entry | None:
        if self._get_pickled is None:
            return _fresh(self.cache.get(key))
        pickled = self._get_pickled(key)
        if pickled is None:
            return None
        known = self._decoded.get(key)
        if known is not None and known[0] is pickled:
            entry = known[1]
        else:
            entry = decode(pickle.loads(pickled))  # noqa: S301 - this process's own pickle
            if len(pickled) <= self.DECODED_MAX_BYTES:
                if len(self._decoded) >= self.DECODED_ENTRIES:
                    self._decoded.clear()
                self._decoded[key] = (pickled, entry)
        return entry if entry is not None and entry.fresh() else None

    async def aget(self, key: str) -> Entry | None:
        return self.get(key)

    def set(self, key: str, entry: Entry, ttl: float) -> None:
        self.cache.set(key, encode(entry), timeout=ttl)


class RedisEntries:
    """Entries as raw Redis strings under the cache's key prefix: the Django path reads and
    writes them with django-redis's connection pool, the fast path reads them with
    ``redis.asyncio`` (:mod:`marketdata.redis_async`, reads of one loop turn coalesced into
    one MGET)."""

    def __init__(self, cache: Any) -> None:
        from django_redis import get_redis_connection

        self.cache = cache
        self.client = get_redis_connection("default")

    def get(self, key: str) -> Entry | None:
        return _fresh(self.client.get(self.cache.make_key(key)))

    async def aget(self, key: str) -> Entry | None:
        from marketdata import redis_async

        return _fresh(await redis_async.get(self.cache.make_key(key)))

    def set(self, key: str, entry: Entry, ttl: float) -> None:
        self.client.set(self.cache.make_key(key), encode(entry), px=int(ttl * 1000))


_stores: dict[type, EntryStore] = {}


def get_store() -> EntryStore:
    """The entry store of the default cache backend, one per process and backend class.

    Callers on the event loop keep the store they got (``caches["default"]`` is looked up
    per task there, and would build a cache object per request).
    """
    from django.core.cache import caches
    from django_redis.cache import RedisCache

    cache = caches["default"]
    kind = type(cache)
    store = _stores.get(kind)
    if store is None:
        store = RedisEntries(cache) if isinstance(cache, RedisCache) else LocalEntries(cache)
        _stores[kind] = store
    return store
