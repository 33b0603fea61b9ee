"""``/mcp``: the MCP endpoint (Streamable HTTP, the official ``mcp`` SDK), mounted by
``config.asgi``'s HTTP router beside the API.

- **Stateless, JSON answers.** Each POST carries one JSON-RPC message and gets its answer as
  ``application/json``; the server keeps no session (no ``Mcp-Session-Id``). Behind a load
  balancer, and across the gunicorn workers of one host, consecutive requests of a client
  reach different processes: a session held in one process's memory would be "not found"
  in the next (404, and the client must start over). Nothing here needs a session: the
  tools only read, send no server-to-client requests and no notifications, so every
  request can be served by any process. JSON rather than an event stream: nothing to
  stream, and proxies pass a JSON answer through as it is. So only POST is served (and a
  browser's CORS preflight): a GET (the server-to-client stream) and a DELETE (the end of
  a session) are 405s.
- **Its task group without a lifespan.** The SDK's session manager runs its requests in a
  task group that must be entered on the serving event loop (normally a Starlette
  lifespan). The workers run uvicorn with ``lifespan: off`` (channels' router has none,
  ``config.workers``), so the manager is started by the first ``/mcp`` request of each
  event loop, in a task of its own that lives as long as the loop: uvicorn's graceful
  shutdown lets requests in flight finish first, then the loop's end cancels the task, which
  closes the manager. Nothing is added to the worker's start or shutdown handling.
- **Host and Origin** are checked before the SDK sees the request, by the rules the
  WebSocket streams share (:mod:`apps.core.origins`): a ``Host`` outside
  ``STREAM_ALLOWED_HOSTS`` (the loopback names by default) is a 400, a browser page at a
  foreign ``Origin`` (one not in ``STREAM_ALLOWED_ORIGINS``) a 403. These are the
  DNS-rebinding checks the SDK offers, with the patterns ``ALLOWED_HOSTS`` has
  (``.example.com``), which the SDK's settings cannot express, so the SDK's own check is off.
- **Before the SDK** (:mod:`apps.mcp.wire`): the body is read within the API's time and
  size limits (408, 413); a message that is not a tool call takes a token of the v2 bucket
  (429 with the v2 body when none is left; a tool call's HTTP request is counted by the
  API itself); a body that is not one valid JSON-RPC message (not JSON, a batch, a bad
  ``id``, ``method`` or ``params``) is then answered 400 with a JSON-RPC error (the token
  taken all the same); a JSON answer is compressed as ``Accept-Encoding`` asks (answers of
  ``whole_answers.LARGE_BODY`` or more in a thread, remembered by digest); a page at an allowed
  ``Origin`` gets the CORS headers (and its preflight an answer), by the API's CORS
  settings.
- Every ``/mcp`` request gets an access line and a request metric (:mod:`apps.core.front`),
  an ``X-Correlation-ID`` (the client's when sane, else a new one, which the tool calls
  made for it share) and ``X-Data-Source``; each tool call is also logged, limited and
  counted as the HTTP request it stands for (:mod:`apps.mcp.server`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings

from apps.core import front, origins
from apps.core.bridge import BodyLimits, read_body
from apps.core.inprocess import ASGIApp
from apps.core.middleware import correlation_id_for
from apps.core.whole_answers import Variants, merge_vary
from apps.mcp import wire
from apps.mcp.server import build_server
from marketdata import deadline, metrics

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

PATHS = ("/mcp", "/mcp/")
RATE_LIMIT_NAME = "v2_bucket"  # the metric's label for the v2 bucket (apps.health.metrics)


def _header(scope: Scope, name: bytes) -> str | None:
    return origins.header(scope.get("headers") or (), name)


async def _answer(scope: Scope, send: Send, status: int, body: bytes,
                  extra: wire.Headers) -> None:
    """An answer given here, before the SDK runs (a preflight, a 429, a malformed message's
    JSON-RPC error): the front's headers (correlation id, data source, security headers),
    logged and counted like any other."""
    headers, correlation_id = front.answer_headers(scope, len(body), close=False, extra=extra)
    if not body:  # a preflight: no content to describe
        headers = [(name, value) for name, value in headers if name != b"content-type"]
    await send({"type": "http.response.start", "status": status,
                "headers": merge_vary(headers)})
    await send({"type": "http.response.body", "body": body})
    front.record(scope, status, correlation_id)


def _import_sdk() -> None:
    import mcp.server.streamable_http_manager  # noqa: F401
    import mcp_types  # noqa: F401


class McpEndpoint:
    """The ASGI application of ``/mcp``; tool calls go to ``api`` (the service's HTTP app)."""

    def __init__(self, api: ASGIApp) -> None:
        self.api = api
        self._server: Any = None  # built on first use: the SDK is imported then
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready: asyncio.Future[Any] | None = None
        self._runner: asyncio.Task[None] | None = None
        self.variants = Variants()  # the compressed tool list, made once per coding

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope.setdefault(deadline.ARRIVAL_KEY, time.monotonic())  # the router stamps it first
        correlation_id = correlation_id_for(_header(scope, b"x-correlation-id"))
        preflight = scope["method"] == "OPTIONS" and \
            _header(scope, b"access-control-request-method") is not None
        if scope["method"] != "POST" and not preflight:
            # No server-to-client stream (GET) and no session to end (DELETE): the spec's
            # 405 for both. The SDK would hold a GET open forever with nothing to send.
            await front.refuse(scope, send, 405, "Method Not Allowed: POST JSON-RPC messages "
                               "to this endpoint", close=False, extra=[(b"allow", b"POST")])
            return
        refused = origins.refusal(scope)
        if refused is not None:
            await front.refuse(scope, send, *refused, close=False)
            return
        # The refusals below and the tool calls of this request carry its correlation id.
        scope = {**scope, "headers": [
            *((k, v) for k, v in scope.get("headers") or () if k != b"x-correlation-id"),
            (b"x-correlation-id", correlation_id.encode())]}
        cors = wire.cors_headers(_header(scope, b"origin"), preflight)
        if preflight:
            await _answer(scope, send, 200, b"", cors)
            return
        body = await read_body(scope, receive, wire.adding(send, cors),
                               BodyLimits.from_settings())
        if body is None:  # answered (400/408/413), or the client left
            return
        message = wire.inbound(body)
        # The token is taken before a malformed message is refused: a refusal costs what any
        # other message does, so it cannot be sent in a loop for free.
        charge = await wire.charge(scope, message.tool_call)
        counted = charge.headers if charge is not None else []
        if charge is not None and charge.refusal is not None:
            metrics.record_rate_limited(RATE_LIMIT_NAME)
            await _answer(scope, send, 429, charge.refusal, [*counted, *cors])
            return
        if message.refusal is not None:
            await _answer(scope, send, 400, message.refusal, [*counted, *cors])
            return
        manager = await self.manager()
        status = 0
        extra = [(b"x-correlation-id", correlation_id.encode()),
                 (b"x-data-source", settings.MARKETDATA_UPSTREAM.encode("latin-1")),
                 *cors, *counted]
        answer = wire.adding(send, extra)

        async def send_marked(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await answer(message)

        try:
            await manager.handle_request(
                scope, wire.replay(body, receive),
                wire.compressing(send_marked, _header(scope, b"accept-encoding"),
                                 self.variants))
        finally:
            if status:
                front.record(scope, status, correlation_id)

    async def manager(self) -> Any:
        """This event loop's running session manager (started by its first request)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._ready is None:
            # The SDK takes ~2 s to import: in a thread, so the loop keeps serving meanwhile
            # (and a worker that never sees /mcp never pays it).
            await asyncio.to_thread(_import_sdk)
        if self._loop is not loop or self._ready is None:
            from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
            from mcp.server.transport_security import TransportSecuritySettings

            if self._server is None:
                self._server = build_server(self.api)
            manager = StreamableHTTPSessionManager(
                app=self._server, stateless=True, json_response=True,
                security_settings=TransportSecuritySettings(
                    enable_dns_rebinding_protection=False),  # checked above, Django's way
                max_request_body_size=int(settings.REQUEST_BODY_MAX_BYTES))
            self._loop, self._ready = loop, loop.create_future()
            self._runner = loop.create_task(self._run(manager, self._ready),
                                            name="mcp-session-manager")
        ready = self._ready
        try:
            return await asyncio.shield(ready)
        except Exception:
            if self._ready is ready:  # the next request starts another
                self._ready = None
            raise

    @staticmethod
    async def _run(manager: Any, ready: asyncio.Future[Any]) -> None:
        try:
            async with manager.run():
                ready.set_result(manager)
                await asyncio.Event().wait()  # until the loop ends (cancelled then)
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else
                                    RuntimeError("the MCP session manager stopped"))
            raise
