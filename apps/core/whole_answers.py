"""Whole answers of the ASGI endpoints (``/mcp``, ``/graphql``) in the coding the client
negotiates, and their ``Vary`` fields merged: the pieces both endpoints send their JSON
answers through, so the two compress and vary alike.

A JSON answer of at least :data:`apps.core.encoding.MIN_SIZE` bytes is sent in the coding
``Accept-Encoding`` negotiates (:func:`apps.core.encoding.choose`), with
``Vary: Accept-Encoding``. Bodies of :data:`LARGE_BODY` bytes or more are compressed in a
thread and remembered by digest (:class:`Variants`): MCP's tool list is compressed once per
process and coding, not per call.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Iterable
from concurrent.futures import Future
from typing import Any

from apps.core import encoding

Headers = list[tuple[bytes, bytes]]

# Bodies from this size on are compressed off the event loop and remembered by digest.
LARGE_BODY = 64 * 1024
VARIANT_ENTRIES = 8  # the tool list under a few request ids, and a few big tool results


class Variants:
    """Compressed large bodies by (digest, coding), a bounded LRU shared by the event loops
    of the process. A body is compressed once, in a thread: requests that want it meanwhile
    wait for that one compression."""

    def __init__(self, entries: int = VARIANT_ENTRIES, large: int = LARGE_BODY) -> None:
        self.entries = entries
        self.large = large
        self._memo: OrderedDict[tuple[str, str], Future[bytes]] = OrderedDict()
        self._lock = threading.Lock()

    async def encode(self, body: bytes, coding: str) -> bytes | None:
        """``body`` in ``coding``, or None when that is not smaller."""
        # The fast qualities whatever the size: most answers here are compressed once, per
        # call (a tool result carries its correlation id), unlike a stored cache entry
        # (brotli 10 on a 72 KB tool result cost ~30 ms a call).
        quality = encoding.ENTRY_QUALITY
        if len(body) < self.large:
            data = encoding.compress(body, coding, quality)  # ~1 ms at most
        else:
            data = await asyncio.wrap_future(self._variant(body, coding, quality))
        return data if len(data) < len(body) else None

    def _variant(self, body: bytes, coding: str, quality: Any) -> Future[bytes]:
        key = (encoding.digest(body), coding)
        with self._lock:
            known = self._memo.get(key)
            if known is not None:
                self._memo.move_to_end(key)
                return known
            future: Future[bytes] = Future()
            # Running: a waiter that is cancelled cannot cancel it for the others.
            future.set_running_or_notify_cancel()
            self._memo[key] = future
            while len(self._memo) > self.entries:
                self._memo.popitem(last=False)
        try:
            asyncio.get_running_loop().run_in_executor(None, self._fill, future, key, body,
                                                       coding, quality)
        except RuntimeError:  # the loop's executor is shut down (the loop is ending)
            self._fill(future, key, body, coding, quality)
        return future

    def _fill(self, future: Future[bytes], key: tuple[str, str], body: bytes, coding: str,
              quality: Any) -> None:
        try:
            future.set_result(encoding.compress(body, coding, quality))
        except Exception as exc:  # noqa: BLE001 - handed to the waiters; not remembered
            with self._lock:
                if self._memo.get(key) is future:
                    del self._memo[key]
            future.set_exception(exc)


def media_type(headers: Iterable[tuple[bytes, bytes]]) -> str:
    for name, value in headers:
        if name == b"content-type":
            return value.decode("latin-1").split(";", 1)[0].strip().lower()
    return ""


async def encoded(headers: Headers, body: bytes, accept_encoding: str | None,
                  variants: Variants) -> tuple[Headers, bytes]:
    """A whole JSON answer's headers and body in the negotiated coding (identity when the
    body is small, the client takes none, or compressing does not make it smaller)."""
    out = [(name, value) for name, value in headers if name != b"content-length"]
    if encoding.compressible(media_type(headers), len(body)) and \
            not any(name == b"content-encoding" for name, _ in headers):
        out.append((b"vary", b"Accept-Encoding"))
        coding = encoding.choose(accept_encoding, encoding.CODINGS)
        if coding != encoding.IDENTITY:
            data = await variants.encode(body, coding)
            if data is not None:
                body = data
                out.append((b"content-encoding", coding.encode()))
    out.append((b"content-length", str(len(body)).encode()))
    return out, body


def merge_vary(headers: Iterable[tuple[bytes, bytes]]) -> Headers:
    """``headers`` with their ``Vary`` fields merged into one (first spelling kept, in
    order)."""
    out: Headers = []
    names: dict[bytes, bytes] = {}
    for name, value in headers:
        if name != b"vary":
            out.append((name, value))
            continue
        for member in value.split(b","):
            member = member.strip()
            if member:
                names.setdefault(member.lower(), member)
    if names:
        out.append((b"vary", b", ".join(names.values())))
    return out
