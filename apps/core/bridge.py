"""The WSGI bridge: Django's WSGI application on a thread pool behind the event loop, with
every wait that does not need a thread kept off the threads.

A worker has ``WEB_THREADS`` threads for the requests that are not response-cache hits, and
a thread is held for as long as its request runs. So nothing that only *waits* may run on
one:

- **The request body** is read here, on the event loop, before a thread is taken, within
  ``REQUEST_BODY_TIMEOUT_SECONDS`` of the request's arrival and ``REQUEST_BODY_MAX_BYTES``
  (the declared ``Content-Length`` is refused before a byte is read). A body that stalls is
  answered 408 and its connection closed; one too large, 413. Sixteen stalled uploads
  used to hold sixteen threads forever (a2wsgi read the body from the thread).
- **A full lane** (:mod:`marketdata.lanes`): a request whose upstream endpoint or provider
  already holds its share of the threads unwinds without an answer (``LaneFull``), is
  *parked* here with no thread until an occupant of that lane leaves, and then runs again
  (the answers it already got are in the cache by then). At its deadline it runs one last
  time without parking and gets the answer a full lane gives then (503/504 naming the
  provider). A parked request is a future on the event loop: a thousand cost nothing.
- **The response** is handed to the event loop whole; the thread never waits for a slow
  client to read it (a2wsgi's bounded send queue held the thread while the client did
  not read a large answer).

Runs of one request share its scope: the arrival stamp (the deadline, the access log and
the latency metric count from it, parking included), its correlation id, and the
rate-limit decision (a parked request is counted once,
:mod:`apps.ratelimit.middleware`).
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import time
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, cast

from a2wsgi.wsgi import build_environ
from django.conf import settings
from django.core import signals
from django.core.handlers.wsgi import WSGIHandler

from apps.core import front
from apps.core.middleware import CORRELATION_KEY, RUNS_KEY
from marketdata import deadline, lanes, metrics
from marketdata.logs import get_logger

log = get_logger("apps.core.bridge")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


@dataclass(frozen=True)
class BodyLimits:
    max_bytes: int
    timeout: float

    @classmethod
    def from_settings(cls) -> BodyLimits:
        return cls(int(settings.REQUEST_BODY_MAX_BYTES),
                   float(settings.REQUEST_BODY_TIMEOUT_SECONDS))


def _declared_length(scope: Scope) -> tuple[int | None, bool, bool]:
    """(Content-Length, chunked, valid) from the request's headers."""
    length: int | None = None
    chunked = False
    for name, value in scope.get("headers") or ():
        if name == b"content-length":
            text = value.strip()
            if not text.isdigit() or (length is not None and length != int(text)):
                return None, False, False
            length = int(text)
        elif name == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
    return length, chunked, True


async def read_body(scope: Scope, receive: Receive, send: Send,
                    limits: BodyLimits) -> bytes | None:
    """The whole request body, read on the event loop; None when the request was answered
    here (400/408/413) or the client left."""
    length, chunked, valid = _declared_length(scope)
    if not valid:
        await front.refuse(scope, send, 400, "Invalid Content-Length header")
        return None
    if length is not None and length > limits.max_bytes:
        await front.refuse(scope, send, 413, f"Request body too large: {length} bytes, at "
                           f"most {limits.max_bytes} are accepted")
        return None
    if not chunked and not length:
        return b""
    arrival = scope.get(deadline.ARRIVAL_KEY) or time.monotonic()
    finish = arrival + limits.timeout
    parts: list[bytes] = []
    size = 0
    while True:
        left = finish - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            message = await asyncio.wait_for(receive(), left)
        except TimeoutError:
            await front.refuse(scope, send, 408, "Request body not received within "
                               f"{limits.timeout:g} s")
            return None
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limits.max_bytes:
            await front.refuse(scope, send, 413, "Request body too large: at most "
                               f"{limits.max_bytes} bytes are accepted")
            return None
        if chunk:
            parts.append(chunk)
        if not message.get("more_body", False):
            return b"".join(parts)


@dataclass
class Answer:
    """A response as the WSGI application gave it, complete."""

    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


@dataclass
class Parked:
    """The run unwound on a full lane."""

    lane: lanes.Lane


def _environ(scope: Scope, body: bytes) -> dict[str, Any]:
    environ = cast(dict[str, Any], build_environ(scope, io.BytesIO(body)))  # type: ignore[arg-type]
    # The body is in hand, so its length is known even when it came chunked.
    if body or "CONTENT_LENGTH" in environ:
        environ["CONTENT_LENGTH"] = str(len(body))
    return environ


class Bridge:
    """An ASGI application running a WSGI application on ``threads`` threads."""

    def __init__(self, app: WSGIApp, threads: int, name: str = "wsgi",
                 limits: BodyLimits | None = None) -> None:
        self.app = app
        self.threads = threads
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name)
        self._limits = limits

    @property
    def limits(self) -> BodyLimits:
        if self._limits is None:
            self._limits = BodyLimits.from_settings()
        return self._limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope.setdefault(deadline.ARRIVAL_KEY, time.monotonic())
        body = await read_body(scope, receive, send, self.limits)
        if body is None:
            return
        finish = scope[deadline.ARRIVAL_KEY] + deadline.default_seconds()
        parking = True
        parked_on: lanes.Lane | None = None
        while True:
            outcome = await self._run(scope, body, parking)
            if isinstance(outcome, Answer):
                if parked_on is not None:
                    parked_on.pass_on()
                await send({"type": "http.response.start", "status": outcome.status,
                            "headers": outcome.headers})
                await send({"type": "http.response.body", "body": outcome.body})
                return
            if parked_on is not None and parked_on is not outcome.lane:
                parked_on.pass_on()  # woken for room there, it needs another lane now
            parked_on = outcome.lane
            parking = await self._park(scope, outcome.lane, finish)

    async def _run(self, scope: Scope, body: bytes, parking: bool) -> Answer | Parked:
        scope[RUNS_KEY] = scope.get(RUNS_KEY, 0) + 1
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()
        return await loop.run_in_executor(self.executor, context.run, self._call,
                                          _environ(scope, body), parking)

    def _call(self, environ: dict[str, Any], parking: bool) -> Answer | Parked:
        """One run of the WSGI application, in a pool thread; the whole answer, or
        :class:`Parked` when a lane was full."""
        started: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]],
                           exc_info: Any = None) -> Callable[[bytes], None]:
            started[:] = [status, headers]
            return chunks.append

        chunks: list[bytes] = []
        try:
            with lanes.parking(parking):
                iterable = self.app(environ, start_response)
                try:
                    for chunk in iterable:
                        if chunk:
                            chunks.append(chunk)
                finally:
                    close = getattr(iterable, "close", None)
                    if close is not None:
                        close()
        except lanes.LaneFull as full:
            # No response was made, so Django never said the request finished (it would
            # have on the response's close): say it, so per-request state is let go.
            signals.request_finished.send(sender=WSGIHandler)
            return Parked(full.lane)
        status, headers = started
        return Answer(int(status.split(" ", 1)[0]),
                      [(name.lower().encode("latin-1"), value.encode("latin-1"))
                       for name, value in headers],
                      b"".join(chunks))

    async def _park(self, scope: Scope, lane: lanes.Lane, finish: float) -> bool:
        """Wait, holding no thread, until ``lane`` has room (True) or until just before the
        deadline (False: the last run, without parking)."""
        loop = asyncio.get_running_loop()
        room: asyncio.Future[None] = loop.create_future()

        def ready() -> None:
            if not room.done():
                room.set_result(None)

        def wake() -> None:  # from any thread
            try:
                loop.call_soon_threadsafe(ready)
            except RuntimeError:  # the loop is closed: the worker is shutting down
                pass

        if scope.get(RUNS_KEY) == 1:
            log.info("request parked: lane full", provider=lane.provider, lane=lane.name,
                     correlation_id=scope.get(CORRELATION_KEY))
        metrics.record_parked(lane.provider, lane.name)
        withdraw = lane.when_room(wake)
        # The last run starts early enough for its answer to be sent by the deadline.
        left = finish - deadline.ANSWER_MARGIN_SECONDS - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            await asyncio.wait_for(room, left)
        except TimeoutError:
            withdraw()
            return False
        except BaseException:
            withdraw()
            raise
        return True
