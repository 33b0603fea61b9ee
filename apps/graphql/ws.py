"""``/graphql`` over WebSocket: GraphQL subscriptions (:mod:`apps.graphql.subscriptions`) in the
``graphql-transport-ws`` protocol, the protocol of the ``graphql-ws`` library (what Apollo,
urql, Relay and gql speak).

The protocol: the client offers the ``graphql-transport-ws`` subprotocol (else: closed with
4406), sends ``connection_init`` within :data:`INIT_TIMEOUT_SECONDS` (4408) and once (4429),
and gets ``connection_ack``; then ``subscribe`` ``{id, payload {query, variables,
operationName}}`` (before the ack: 4401; an id already running: 4409) is answered with
``next`` messages and, when the server ends it, ``complete``; a client's ``complete`` stops
it. ``ping`` gets a ``pong``. A message that is not one of the protocol's closes with 4400.
An operation refused before it starts (the limits below, a query that does not validate) is
answered with one ``error`` message ``[{message, extensions {code, status, ...}}]``.
Queries and mutations are not run here: POST them (HTTP) to the same path.

The bounds are the REST streams' (:mod:`apps.stream.sockets`, whose connection class this
one is): the handshake's ``Host`` and ``Origin`` (:mod:`apps.core.origins`) and one token of
the v2 bucket, a place among the address's ``STREAM_MAX_CONNECTIONS_PER_ADDRESS`` (counted
with the REST streams), messages up to ``WS_MAX_MESSAGE_BYTES`` (1009), the connection's
frame bucket (``WS_FRAMES_PER_SECOND``/``WS_FRAME_BURST``: a refused ``subscribe`` gets a
429 ``error`` for its id, ``WS_FRAME_BURST`` more while refused close with 1008), the
send-queue and stalled-reader rules, and the symbol, rule and addition limits summed over the
connection's subscriptions; plus ``GRAPHQL_WS_MAX_SUBSCRIPTIONS`` operations at once and the
query limits of HTTP (size, tokens, depth, aliases: :func:`apps.graphql.endpoint._checked`).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from django.conf import settings
from graphql import ExecutionResult, OperationType, subscribe

from apps.graphql.endpoint import Refused, Request, _checked, _formatted
from apps.graphql.schema import Built
from apps.graphql.subscriptions import Operation, Streams
from apps.stream.sockets import StreamSocket
from marketdata.logs import get_logger

log = get_logger("apps.graphql.ws")

PROTOCOL = "graphql-transport-ws"
INIT_TIMEOUT_SECONDS = 3.0  # graphql-ws's connectionInitWaitTimeout
MESSAGE_TOO_BIG = 1009
BAD_REQUEST = 4400
UNAUTHORIZED = 4401
SUBPROTOCOL_NOT_ACCEPTABLE = 4406
INIT_TIMEOUT = 4408
SUBSCRIBER_EXISTS = 4409
TOO_MANY_INITIALISATIONS = 4429
REASON_BYTES = 123  # a close frame's reason, at most (RFC 6455)
# Client messages: what each may hold besides its type.
_WITH_ID = ("subscribe", "complete", "next", "error")
_TYPES = ("connection_init", "connection_ack", "ping", "pong", *_WITH_ID)

SchemaProvider = Callable[[Mapping[str, Any]], Awaitable[Built]]


class ProtocolError(ValueError):
    """A message that is not one of graphql-transport-ws: closes with 4400."""


def _optional_object(message: Mapping[str, Any], name: str, where: str) -> None:
    value = message.get(name)
    if value is not None and not isinstance(value, dict):
        raise ProtocolError(f'"{where}" message expects the \'{name}\' property to be an '
                            "object or nullish or missing")


def parse_message(text: str) -> dict[str, Any]:
    """A client's message, checked as graphql-ws checks it (:class:`ProtocolError`)."""
    try:
        message = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ProtocolError("Invalid message received") from None
    if not isinstance(message, dict):
        raise ProtocolError("Message is expected to be an object")
    kind = message.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("Message is missing the 'type' property")
    if kind not in _TYPES:
        raise ProtocolError(f"Invalid message 'type' property \"{kind[:40]}\"")
    if kind in _WITH_ID:
        if not isinstance(message.get("id"), str) or not message["id"]:
            raise ProtocolError(f'"{kind}" message expects the \'id\' property to be a '
                                "non-empty string")
    else:
        _optional_object(message, "payload", kind)
    if kind == "subscribe":
        body = message.get("payload")
        if not isinstance(body, dict):
            raise ProtocolError('"subscribe" message expects the \'payload\' property to be '
                                "an object")
        if not isinstance(body.get("query"), str):
            raise ProtocolError('"subscribe" message payload expects the \'query\' property '
                                "to be a string")
        for name in ("variables", "extensions"):
            _optional_object(body, name, "subscribe")
        if body.get("operationName") is not None and \
                not isinstance(body["operationName"], str):
            raise ProtocolError('"subscribe" message payload expects the \'operationName\' '
                                "property to be a string or nullish or missing")
    return message


def _reason(text: str) -> str:
    data = text.encode()
    return text if len(data) <= REASON_BYTES else data[:REASON_BYTES].decode(
        "utf-8", "ignore")


def _error(message: str, status: int, code: str, **extensions: Any) -> dict[str, Any]:
    return {"message": message, "extensions": {"code": code, "status": status, **extensions}}


@dataclass
class Running:
    """An operation the connection runs: its context and the task sending its results."""

    operation: Operation
    task: asyncio.Task[None] | None = None


class GraphQLSocket(StreamSocket):
    """One ``graphql-transport-ws`` connection at ``/graphql``."""

    def __init__(self, *args: Any, schema: SchemaProvider | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if schema is None:
            raise TypeError("GraphQLSocket needs its schema provider (schema=)")
        self.schema = schema
        self.streams: Streams | None = None
        self.initialised = False
        self.acknowledged = False
        self.operations: dict[str, Running] = {}
        self._init_timer: asyncio.Task[None] | None = None

    # -- the connection ------------------------------------------------------------------
    def subprotocol(self) -> str | None:
        return PROTOCOL if PROTOCOL in (self.scope.get("subprotocols") or ()) else None

    async def opened(self) -> None:
        if self.subprotocol() is None:
            await self._close(SUBPROTOCOL_NOT_ACCEPTABLE, "Subprotocol not acceptable")
            return
        self.streams = Streams(self.close_soon)
        if not self.streams.open():
            self.close_soon()
            return
        self._init_timer = asyncio.get_running_loop().create_task(
            self._wait_for_init(), name="graphql-ws-init")

    async def _wait_for_init(self) -> None:
        await asyncio.sleep(INIT_TIMEOUT_SECONDS)
        if not self.initialised and not self.closed:
            await self._close(INIT_TIMEOUT, "Connection initialisation timeout")

    async def closing(self) -> None:
        if self._init_timer is not None:
            self._init_timer.cancel()
        running, self.operations = list(self.operations.values()), {}
        for item in running:
            if item.task is not None:
                item.task.cancel()
        if self.streams is not None:
            await self.streams.close()

    async def _close(self, code: int, reason: str) -> None:
        self.closed = True
        await self.close(code=code, reason=_reason(reason))

    def send_message(self, message: dict[str, Any]) -> None:
        self.notify(message)

    # -- client messages -----------------------------------------------------------------
    async def websocket_receive(self, message: dict[str, Any]) -> None:
        if self.closed:
            return  # closing: what is still in flight changes nothing
        text = message.get("text")
        if text is None:
            await self._close(BAD_REQUEST, "Invalid message received")
            return
        if len(text.encode()) > int(settings.WS_MAX_MESSAGE_BYTES):
            # The server closes first (its ws_max_size); this is the same rule in process.
            self.closed = True
            await self.close(code=MESSAGE_TOO_BIG)
            return
        try:
            data = parse_message(text)
        except ProtocolError as exc:
            await self._close(BAD_REQUEST, str(exc))
            return
        take = await self.take_frame()
        if take is not None:
            if self.closed:
                return
            if data["type"] == "subscribe":
                self.send_message({"id": data["id"], "type": "error", "payload": [_error(
                    f"Too many messages: at most {settings.WS_FRAMES_PER_SECOND:g} per "
                    f"second (WS_FRAMES_PER_SECOND), {settings.WS_FRAME_BURST} at once "
                    "(WS_FRAME_BURST); this subscription was not started", 429,
                    "RATE_LIMITED", retryAfter=take.retry_after)]})
            elif data["type"] == "complete":
                await self._complete(data["id"])  # stopping only frees: never refused
            return
        await self._dispatch(data)

    async def _dispatch(self, data: dict[str, Any]) -> None:
        kind = data["type"]
        if kind == "connection_init":
            if self.initialised:
                await self._close(TOO_MANY_INITIALISATIONS, "Too many initialisation requests")
                return
            self.initialised = self.acknowledged = True
            if self._init_timer is not None:
                self._init_timer.cancel()
            self.send_message({"type": "connection_ack"})
        elif kind == "ping":
            pong: dict[str, Any] = {"type": "pong"}
            if data.get("payload") is not None:
                pong["payload"] = data["payload"]
            self.send_message(pong)
        elif kind == "pong":
            return
        elif kind == "subscribe":
            await self._subscribe(data["id"], data["payload"])
        elif kind == "complete":
            await self._complete(data["id"])
        else:
            await self._close(BAD_REQUEST, f"Unexpected message of type {kind} received")

    async def _subscribe(self, operation_id: str, body: dict[str, Any]) -> None:
        if not self.acknowledged:
            await self._close(UNAUTHORIZED, "Unauthorized")
            return
        if operation_id in self.operations:
            await self._close(SUBSCRIBER_EXISTS,
                              f"Subscriber for {operation_id} already exists")
            return
        limit = int(settings.GRAPHQL_WS_MAX_SUBSCRIPTIONS)
        if len(self.operations) >= limit:
            self._refuse(operation_id, [_error(
                f"A connection runs at most {limit} subscriptions at once "
                "(GRAPHQL_WS_MAX_SUBSCRIPTIONS): complete one first", 400, "BAD_REQUEST",
                limit="GRAPHQL_WS_MAX_SUBSCRIPTIONS", maximum=limit)])
            return
        assert self.streams is not None
        running = Running(Operation(self.streams))
        self.operations[operation_id] = running
        try:
            request = Request(body.get("query"), body.get("variables"),
                              body.get("operationName"))
            built = await self.schema(self.scope)
            document, _, _ = _checked(built, request, "WS", (OperationType.SUBSCRIPTION,))
            result = subscribe(built.schema, document, context_value=running.operation,
                               variable_values=request.variables,
                               operation_name=request.operation_name)
            if inspect.isawaitable(result):
                result = await result
        except Refused as exc:
            self._end(operation_id, running)
            self._refuse(operation_id, orjson.loads(exc.body())["errors"])
            return
        except BaseException:
            self._end(operation_id, running)
            await running.operation.release()
            raise
        if self.operations.get(operation_id) is not running:  # completed, or closed, since
            await running.operation.release()
            await _close_stream(result)
            return
        if isinstance(result, ExecutionResult):
            self._end(operation_id, running)
            await running.operation.release()
            self._refuse(operation_id, [_formatted(e) for e in result.errors or ()])
            return
        running.task = asyncio.get_running_loop().create_task(
            self._pump(operation_id, running, result), name="graphql-ws-operation")

    def _refuse(self, operation_id: str, errors: list[dict[str, Any]]) -> None:
        self.send_message({"id": operation_id, "type": "error", "payload": errors})

    def _end(self, operation_id: str, running: Running) -> None:
        """The operation no longer runs: its pending results are dropped."""
        if self.operations.get(operation_id) is running:
            del self.operations[operation_id]
        prefix = operation_id + "\x00"
        for key in [k for k in self.latest if k.startswith(prefix)]:
            del self.latest[key]

    async def _complete(self, operation_id: str) -> None:
        """The client's ``complete``: the subscription stops and its symbols are released
        before the next message is read."""
        running = self.operations.get(operation_id)
        if running is None:
            return
        self._end(operation_id, running)
        await running.operation.release()
        if running.task is not None:
            running.task.cancel()

    async def _pump(self, operation_id: str, running: Running,
                    stream: AsyncIterator[ExecutionResult]) -> None:
        """Send each result as a ``next``; a tick waiting for a slow client is replaced by
        its symbol's newer one, as on ``/v2/stream``."""
        try:
            async for result in stream:
                if self.operations.get(operation_id) is not running:
                    return
                message = {"id": operation_id, "type": "next", "payload": _result(result)}
                key = running.operation.key
                if key is None:
                    self.send_message(message)
                else:
                    self.offer(f"{operation_id}\x00{key}", orjson.dumps(message))
            if self.operations.get(operation_id) is running:  # the server ended it
                self._end(operation_id, running)
                self.send_message({"id": operation_id, "type": "complete"})
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("graphql subscription failed", operation_id=operation_id[:40])
            if self.operations.get(operation_id) is running:
                self._end(operation_id, running)
                self._refuse(operation_id, [_error("Internal error", 500, "INTERNAL_ERROR")])
        finally:
            await running.operation.release()
            await _close_stream(stream)


def _result(result: ExecutionResult) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if result.errors:
        out["errors"] = [_formatted(error) for error in result.errors]
    out["data"] = result.data
    return out


async def _close_stream(stream: Any) -> None:
    close = getattr(stream, "aclose", None)
    if close is not None:
        try:
            await close()
        except Exception:  # noqa: BLE001, S110 - the stream is done with either way
            pass


def graphql_socket(schema: SchemaProvider) -> Any:
    """The ASGI application of ``/graphql``'s WebSocket."""
    return GraphQLSocket.as_asgi(schema=schema)
