"""The HTTP/1.1 protocol of the production server: uvicorn's httptools protocol with the
limits and timeouts a public server needs, answered in the endpoint's JSON error shape.

uvicorn leaves these to a proxy in front, which a self-hosted service may not have:

- **Request line**: a URL over ``REQUEST_URL_MAX_BYTES`` is answered 414 (uvicorn accepted
  any length, or answered its own plain-text 400).
- **Header section**: more than ``REQUEST_HEADERS_MAX_BYTES`` or
  ``REQUEST_HEADERS_MAX_COUNT`` headers is answered 431. The size is counted on the bytes
  as they arrive, before the parser buffers them (httptools joins a header's pieces as
  they come: an 8 MB header was accepted, and cost quadratic copying).
- **Slow heads**: a request whose header section is not complete within
  ``REQUEST_HEADER_TIMEOUT_SECONDS`` of its first byte is answered 408 and closed; a new
  connection that sends nothing in that time is closed. (uvicorn had no such timeout;
  such connections hold no thread, but they hold a socket each.)
- **Stalled readers**: a connection whose client has not read the answer for
  ``RESPONSE_WRITE_TIMEOUT_SECONDS`` (the transport's write buffer stayed full) is
  aborted, so an answer or a stream nobody reads does not stay in memory.
- **Malformed requests**: uvicorn's plain-text 400 becomes a JSON 400 that says only that
  the request was malformed, never what the parser said.

A request line over the URL limit is a 414 however it arrives, even in one write with a
header section over its own limit. Each refusal closes the connection (what is left of the
request is never read), is logged and counted like any answer
(:func:`apps.core.front.raw_refusal`). Pipelined requests read before the refused one are
answered first, in order; the refusal follows the last of them (uvicorn wrote its 400 at
once and closed, so their answers were lost). Requests within the
limits are stamped with their arrival time as soon as their headers are complete: the
request deadline and every duration logged count from there.
"""

from __future__ import annotations

import asyncio
import fcntl
import socket
import struct
import termios
import time
import weakref
from functools import partial
from typing import Any

from uvicorn.protocols.http.httptools_impl import (
    HEADER_RE,
    HEADER_VALUE_RE,
    STATUS_LINE,
    HttpToolsProtocol,
    RequestResponseCycle,
)
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from marketdata import deadline

_HEAD_END = b"\r\n\r\n"
_PREFIX_BYTES = 64  # enough of the request line to tell /v1/, /v2/ and the rest apart
# What a request line holds besides its target: the method, two spaces, "HTTP/1.1", "\r".
_LINE_EXTRA_BYTES = 32


class Limits:
    """The protocol's limits, read from settings once per worker."""

    _current: Limits | None = None

    def __init__(self) -> None:
        from django.conf import settings

        self.url_max = int(settings.REQUEST_URL_MAX_BYTES)
        self.headers_max = int(settings.REQUEST_HEADERS_MAX_BYTES)
        self.headers_count = int(settings.REQUEST_HEADERS_MAX_COUNT)
        self.header_timeout = float(settings.REQUEST_HEADER_TIMEOUT_SECONDS)
        self.write_timeout = float(settings.RESPONSE_WRITE_TIMEOUT_SECONDS)
        # What may reach the parser before the section is complete: the request line
        # (method, target, version) and the header section.
        self.head_max = self.url_max + self.headers_max + 64

    @classmethod
    def current(cls) -> Limits:
        if cls._current is None:
            cls._current = cls()
        return cls._current


def drop(transport: asyncio.BaseTransport) -> None:
    """End a connection whose client stopped reading, and free what waits for it now: a
    reset (``SO_LINGER`` 0) rather than a FIN, which the kernel would keep queued behind the
    unread data (on loopback ~1 MB per connection, held for minutes as an orphan socket)."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass  # already gone
    transport.abort()


# The ASGI scope extension through which the fast path (apps.core.fastpath, which names it
# too) hands a whole answer to the protocol: status, headers and body in one call and one
# socket write (send_whole). Given to requests under /v1/ and /v2/ (not the streams).
SEND_WHOLE_EXTENSION = "marketdata.http.send_whole"
_API_PREFIXES = ("/v1/", "/v2/")
# (name, value) pairs send_whole has found valid, and the name uvicorn writes for each.
_CHECKED_HEADERS: dict[tuple[bytes, bytes], bytes] = {}
_CHECKED_HEADERS_MAX = 4096


def _send_whole_weak(cycle_ref: weakref.ref[RequestResponseCycle], status: int,
                     headers: list[tuple[bytes, bytes]], body: bytes) -> bool:
    """:func:`send_whole` on the cycle ``cycle_ref`` names (False once it is gone)."""
    cycle = cycle_ref()
    return cycle is not None and send_whole(cycle, status, headers, body)


def send_whole(cycle: RequestResponseCycle, status: int, headers: list[tuple[bytes, bytes]],
               body: bytes) -> bool:
    """Answer ``cycle``'s request with ``status``, ``headers`` and ``body`` as uvicorn's
    ``send`` would for an ``http.response.start`` and one final ``http.response.body``
    (the same bytes: its status line and default headers, the headers' checks, names in
    lower case, ``connection: close`` when the connection is not kept alive), in one
    socket write instead of two; True when done. False, with nothing written or changed,
    for what this does not cover, which the caller then sends the ASGI way: a response
    already started, a client gone, a transport above its high-water mark, uvicorn's own
    access log on, a HEAD, a body without its exact ``Content-Length`` (or chunked, or a
    204/304), a header uvicorn would refuse (its ``send`` then raises as it does).

    Why: a cache hit's two ``send`` calls (an ASGI message each, the head written, then
    the body) checked the hit's 15 headers against two expressions each and made two
    system calls and two TCP segments (bench/README.md, issue 47); the checks are
    remembered per (name, value) here."""
    if cycle.response_started or cycle.disconnected or cycle.flow.write_paused \
            or cycle.access_log or status in (204, 304) or cycle.scope["method"] == "HEAD":
        return False
    content = [STATUS_LINE[status]]
    length = None
    close = False
    checked = _CHECKED_HEADERS
    for pair in (*cycle.default_headers, *headers):
        name = checked.get(pair)
        if name is None:
            raw, value = pair
            if HEADER_RE.search(raw) or HEADER_VALUE_RE.search(value):
                return False
            name = raw.lower()
            if len(checked) >= _CHECKED_HEADERS_MAX:
                checked.clear()
            checked[pair] = name
        value = pair[1]
        if name == b"content-length":
            if length is not None:
                return False
            length = value
        elif name == b"transfer-encoding":
            return False
        elif name == b"connection":
            close = close or b"close" in [token.lower().strip() for token in value.split(b",")]
        content.extend((name, b": ", value, b"\r\n"))
    if length is None or not length.isdigit() or int(length) != len(body):
        return False
    if not cycle.keep_alive and not close:
        content.append(b"connection: close\r\n")
    content.append(b"\r\n")
    content.append(body)
    cycle.response_started = True
    cycle.waiting_for_100_continue = False
    cycle.chunked_encoding = False
    cycle.expected_content_length = 0
    if close:
        cycle.keep_alive = False
    cycle.transport.write(b"".join(content))
    cycle.response_complete = True
    cycle.message_event.set()
    if not cycle.keep_alive:
        cycle.transport.close()
    cycle.on_response()
    return True


# Endless responses (the SSE stream) get CONNECTION_EXTENSION in their scope: the unsent
# bytes and a way to drop the client, which the stream checks before each write. A client
# that stops reading leaves the kernel ~1 MB to buffer first; at an event every few seconds
# the transport's own buffer would fill, and the stall guard see it, only after hours.
STREAMED_PATHS = ("/v1/stream/",)
CONNECTION_EXTENSION = "marketdata.connection"


class StalledReaderGuard:
    """Aborts a connection whose client has not read for ``stall_timeout`` seconds: the
    transport's write buffer reached its high-water mark (``pause_writing``) and stayed
    there. ``abort()``, not ``close()``: close would wait for the buffer nobody reads, and
    keep it (and everything queued behind it) in memory. Mixed into a protocol class."""

    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    logger: Any
    _write_timer: asyncio.TimerHandle | None = None

    def stall_timeout(self) -> float:
        raise NotImplementedError

    def pause_writing(self) -> None:
        super().pause_writing()  # type: ignore[misc]
        if self._write_timer is None:
            self._write_timer = self.loop.call_later(self.stall_timeout(),
                                                     self._write_timed_out)

    def resume_writing(self) -> None:
        super().resume_writing()  # type: ignore[misc]
        self._cancel_write_timer()

    def _cancel_write_timer(self) -> None:
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None

    def _write_timed_out(self) -> None:
        self._write_timer = None
        if self.transport is not None:
            if not self.transport.is_closing():  # else: closing, on a buffer that never drains
                self.logger.info("closing a connection whose client stopped reading")
            drop(self.transport)


class FrontProtocol(StalledReaderGuard, HttpToolsProtocol):
    """``HttpToolsProtocol`` with request-head limits, head and write timeouts, and JSON
    refusals (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = Limits.current()
        self._refused = False
        self._refusal: tuple[int, str] | None = None
        # A refusal waiting for the answers to the requests before it (_refuse).
        self._deferred: tuple[str, int, str, str] | None = None
        self._head_timer: asyncio.TimerHandle | None = None
        self._new_head()

    def _new_head(self) -> None:
        """Expect the head of a new request."""
        self._in_head = True
        self._head_bytes = 0
        self._line_bytes = 0  # of the request line, while it is incomplete
        self._line_done = False
        self._prefix = b""
        self._tail = b""
        self._header_count = 0
        self._header_bytes = 0

    # -- timers ---------------------------------------------------------------------------
    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self._head_timer = self.loop.call_later(self.limits.header_timeout,
                                                self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self._refused or self.transport is None or self.transport.is_closing():
            return
        if not self._in_head:
            return
        if self._head_bytes == 0:  # an idle connection: nothing to answer
            self.transport.close()
            return
        self._refuse(408, "Request headers not received within "
                     f"{self.limits.header_timeout:g} s")

    def stall_timeout(self) -> float:
        return self.limits.write_timeout

    # -- connection -----------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        self._cancel_write_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._in_head and not self._count_head(data):
            return
        super().data_received(data)
        if self._refusal is not None and not self._refused:
            self._refuse(*self._refusal)

    def _count_head(self, data: bytes) -> bool:
        """Count the head bytes in ``data``; False when the head is over its limits (the
        request was refused)."""
        if self._head_bytes == 0 and self._head_timer is None:
            self._arm_head_timer()  # the first byte of a request on a kept-alive connection
        probe = self._tail + data
        end = probe.find(_HEAD_END)
        part = len(data) if end < 0 else max(0, end + len(_HEAD_END) - len(self._tail))
        if not self._line_done:
            newline = data.find(b"\n", 0, part)
            if newline < 0:
                self._line_bytes += part
            else:
                self._line_bytes += newline
                self._line_done = True
        if len(self._prefix) < _PREFIX_BYTES:
            self._prefix += data[:_PREFIX_BYTES - len(self._prefix)]
        self._head_bytes += part
        self._tail = probe[-(len(_HEAD_END) - 1):]
        # The request line first, complete or not: a long URL sent in one write with its
        # headers is over the head's limit too, and is still a 414, not a 431.
        if self._line_bytes > self.limits.url_max + _LINE_EXTRA_BYTES:
            self._refuse(414, f"URL too long: at most {self.limits.url_max} bytes")
            return False
        if self._head_bytes > self.limits.head_max:
            self._refuse(431, "Request header fields too large: at most "
                         f"{self.limits.headers_max} bytes")
            return False
        return True

    # -- parser callbacks -----------------------------------------------------------------
    def on_url(self, url: bytes) -> None:
        if self._refusal is not None:
            return
        if len(self.url) + len(url) > self.limits.url_max:
            self._refusal = (414, f"URL too long: at most {self.limits.url_max} bytes")
            return
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        if self._refusal is not None:
            return
        self._header_count += 1
        self._header_bytes += len(name) + len(value) + 4
        if self._header_count > self.limits.headers_count:
            self._refusal = (431, "Too many request header fields: at most "
                             f"{self.limits.headers_count}")
            return
        if self._header_bytes > self.limits.headers_max:
            self._refusal = (431, "Request header fields too large: at most "
                             f"{self.limits.headers_max} bytes")
            return
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        if self._refusal is not None or self._refused:
            return
        self._in_head = False
        self._cancel_head_timer()
        self.scope[deadline.ARRIVAL_KEY] = time.monotonic()  # type: ignore[literal-required]
        super().on_headers_complete()  # sets the path; the request's task has not run yet
        path = self.scope.get("path", "")
        if path.startswith(STREAMED_PATHS):
            extensions = self.scope.setdefault("extensions", {})  # type: ignore[typeddict-item]
            extensions[CONNECTION_EXTENSION] = {"unsent_bytes": self.unsent_bytes,
                                                "drop": self.drop_client}
        elif path.startswith(_API_PREFIXES) and self.cycle is not None \
                and self.cycle.scope is self.scope:
            extensions = self.scope.setdefault("extensions", {})  # type: ignore[typeddict-item]
            # Through a weak reference: the scope is the cycle's, and a strong one made each
            # request a reference cycle (the cycle, its scope, its event, ...: ~10 objects)
            # that only the garbage collector frees; 12,000 of them a second drove a full
            # collection every 0.75 s, 7-8 ms with the loop stopped (bench/README.md, 47).
            extensions[SEND_WHOLE_EXTENSION] = partial(_send_whole_weak, weakref.ref(self.cycle))

    def unsent_bytes(self) -> int:
        """What this connection has written that its client has not taken yet: the
        transport's buffer and the kernel's send queue (acknowledged bytes leave it)."""
        if self.transport is None or self.transport.is_closing():
            return 0
        queued = self.transport.get_write_buffer_size()
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            try:
                queued += struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ,
                                                         b"\0\0\0\0"))[0]
            except OSError:
                pass
        return queued

    def drop_client(self) -> None:
        if self.transport is not None:
            self.logger.info("closing a stream whose client stopped reading")
            drop(self.transport)

    def on_body(self, body: bytes) -> None:
        if self._refusal is not None or self._refused:
            return
        super().on_body(body)

    def on_message_complete(self) -> None:
        if self._refusal is not None or self._refused:
            return
        super().on_message_complete()
        self._new_head()

    # -- refusals -------------------------------------------------------------------------
    def _path(self) -> str:
        """The path the refused request named, as far as it arrived ("/" when unknown)."""
        parts = self._prefix.split(b" ", 2)
        target = parts[1] if len(parts) > 1 else b"/"
        return target.split(b"?", 1)[0].decode("latin-1") or "/"

    def _method(self) -> str:
        method = self._prefix.split(b" ", 1)[0]
        return method.decode("latin-1") if method.isalpha() else "-"

    def _refuse(self, status: int, message: str) -> None:
        """Answer ``status`` and close; after the answers of the requests read before this
        one, when they are still to come (pipelining answers in order, RFC 9112 9.3.2)."""
        self._refused = True
        self._cancel_head_timer()
        if self.transport is None or self.transport.is_closing():
            return
        refusal = (self._path(), status, message, self._method())
        if self._answers_pending():
            # Nothing more is read (data_received drops it); on_response_complete sends
            # the refusal once the last of those answers is out.
            self._deferred = refusal
            return
        self._send_refusal(*refusal)

    def _answers_pending(self) -> bool:
        """Whether requests read before the refused one still have answers to send."""
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            return False
        if self._in_head:  # the refused request had no complete head: ``cycle`` came before
            return True
        # The refused request's head was complete (its body was not): ``cycle`` is its own.
        # Still queued behind an earlier one, it never runs; running, it is refused now.
        if self.pipeline and self.pipeline[0][0] is cycle:
            self.pipeline.popleft()
            return True
        return False

    def _send_refusal(self, path: str, status: int, message: str, method: str) -> None:
        from apps.core.front import raw_refusal

        self.transport.write(raw_refusal(path, status, message, method,
                                         self.server_state.default_headers))
        self.transport.close()

    def on_response_complete(self) -> None:
        if self._deferred is not None and not self.pipeline:
            # The last answer before a refusal is out: now the refusal, and close.
            self.server_state.total_requests += 1
            refusal, self._deferred = self._deferred, None
            if not self.transport.is_closing():  # not when that answer closed it
                self._send_refusal(*refusal)
            return
        super().on_response_complete()

    def send_400_response(self, msg: str) -> None:
        """The parser could not read the request: a JSON 400 without its reasons."""
        if self._refused:
            return
        if self._refusal is not None:
            self._refuse(*self._refusal)
            return
        self._refuse(400, "Malformed HTTP request")


# The ASGI scope extension through which an application writes several text frames in one
# socket write (apps.stream.sockets names it too).
SEND_MANY_EXTENSION = "marketdata.websocket.send_many"


def _frame_head(size: int) -> bytes:
    """An unmasked, unfragmented text frame's header (a server's frames are never masked)."""
    if size < 126:
        return bytes((0x81, size))
    if size < 65536:
        return b"\x81\x7e" + size.to_bytes(2, "big")
    return b"\x81\x7f" + size.to_bytes(8, "big")


class FrontWebSocketProtocol(StalledReaderGuard, WebSocketsSansIOProtocol):
    """uvicorn's websockets (sans-I/O) protocol, whose limits the worker sets from settings
    (``config.workers``: ``WS_MAX_MESSAGE_BYTES``, inflated against while inflating,
    ``WS_COMPRESSION`` and the keepalive pings), and which drops a client that stopped
    reading: one whose frames have waited ``WS_SEND_TIMEOUT_SECONDS`` with the transport's
    buffer full, or that left a ping unanswered for ``WS_PING_TIMEOUT_SECONDS``, is aborted,
    and the frames queued for it freed at once (uvicorn's close would wait on them: the
    kernel takes ~1 MB of a non-reading client's frames on loopback before the transport's
    own buffer fills).

    It also offers the application :meth:`send_many` (the scope extension
    :data:`SEND_MANY_EXTENSION`): a stream's writer hands it every frame it has queued, and
    they go out in one socket write. Through ``websocket.send`` each frame costs an ASGI
    message, a task switch and a syscall; at 5,000 connections those were most of the
    worker's time (bench/README.md, issue 41)."""

    def stall_timeout(self) -> float:
        from django.conf import settings

        return float(settings.WS_SEND_TIMEOUT_SECONDS)

    def keepalive_timeout(self) -> None:
        """A ping unanswered for ``WS_PING_TIMEOUT_SECONDS``: a client that stopped reading
        (or is gone). uvicorn closes, which keeps the unsent frames in the kernel until the
        peer reads them or TCP gives up; abort drops them now."""
        super().keepalive_timeout()
        if self.transport is not None:
            drop(self.transport)

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the handshake went to the application (it was not refused)
            scope["extensions"][SEND_MANY_EXTENSION] = {"send": self.send_many}

    def send_many(self, payloads: list[bytes]) -> bool:
        """Write ``payloads`` as text frames in one socket write if the connection can take
        them now (open, not closing, its transport under the high-water mark); False, and
        nothing written, otherwise: the application then uses ``websocket.send``, which
        waits for the buffer."""
        from websockets.protocol import State

        conn = self.conn
        if not self.handshake_complete or self.initial_response is not None \
                or not self.writable.is_set() or self.close_sent or self.disconnected \
                or conn.state is not State.OPEN or self.transport.is_closing():
            return False
        if conn.extensions:  # permessage-deflate: each frame through the connection's state
            for payload in payloads:
                conn.send_text(payload)
            self.transport.write(b"".join(conn.data_to_send()))
        else:
            self.transport.write(b"".join(part for payload in payloads
                                          for part in (_frame_head(len(payload)), payload)))
        return True

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_write_timer()
        super().connection_lost(exc)
