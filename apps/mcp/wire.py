"""What ``/mcp`` does on the wire around the SDK (:mod:`apps.mcp.asgi`), with the pieces the
API's own front uses, so the two never disagree.

- **The body is read before the SDK sees it**, by the bridge's reader
  (:func:`apps.core.bridge.read_body`): within ``REQUEST_BODY_TIMEOUT_SECONDS`` of the
  request's arrival (408, connection closed) and ``REQUEST_BODY_MAX_BYTES`` (413; a declared
  ``Content-Length`` is refused before a byte is read). The SDK read it with neither limit
  of ours; it now gets it whole from :func:`replay`.
- **The message is checked** (:func:`inbound`, :func:`invalid_message`): the body is parsed
  once, with orjson, and must be one JSON-RPC 2.0 message as MCP has them: a request (a
  string ``method``, an ``id`` that is a string or an integer, never null), a notification
  (no ``id``), or a response (an ``id``, and a ``result`` or an ``error``), ``params`` an
  object when given. Anything else is answered 400 with a JSON-RPC error -32600
  (``id: null``) naming the problem, a batch (MCP has none since 2025-06-18) as such. The
  SDK, left alone, took a request with a malformed ``id`` for a notification (202, and
  dropped it) and refused the rest with pydantic's validation text. A body that is not
  JSON is left to the SDK, whose answer is the JSON-RPC parse error already (400, -32700,
  ``id: null``). A valid message reaches the SDK as the bytes that came.
- **The rate limit** (:func:`charge`): with the v2 token bucket on, every message that is
  not a valid ``tools/call`` request (``initialize``, ``tools/list``, ``ping``,
  notifications, and any malformed body: a batch, one that is not JSON) takes one token of
  the client's bucket, as the API counts it (:mod:`apps.ratelimit.limits`: the same
  client, the admin key exempt); refused, the request is answered 429 with the v2 body
  before the SDK runs. The token is taken before a malformed message is refused, so
  refusals cost what messages do. Every message costs the event loop (``tools/list``
  serialises ~48 KB), so unlimited messages could hold a worker's loop. A ``tools/call``
  is not counted here: the HTTP request it makes is counted by the API's own limits.
- **Compression** (:func:`compressing`): a JSON answer is sent whole in the coding
  ``Accept-Encoding`` negotiates, as ``/graphql`` sends its answers
  (:mod:`apps.core.whole_answers`: large bodies compressed in a thread and remembered by
  digest, so the tool list is compressed once per process and coding); an event stream
  passes untouched.
- **CORS** (:func:`cors_headers`): the API's settings (django-cors-headers' ``conf``) say
  which origins may call; the methods, request headers and exposed headers are the
  endpoint's own (the MCP headers, ``Mcp-Session-Id`` exposed).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from apps.core.whole_answers import Headers, Variants, encoded, media_type, merge_vary
from apps.ratelimit import limits

Message = dict[str, Any]
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

TOOL_CALL = "tools/call"

# CORS: what a browser client of /mcp sends and reads.
ALLOW_METHODS = ("POST",)
ALLOW_HEADERS = ("content-type", "accept", "mcp-protocol-version", "mcp-session-id",
                 "last-event-id", "x-api-key", "x-correlation-id")
EXPOSE_HEADERS = ("Mcp-Session-Id", "Retry-After", "RateLimit-Policy", "RateLimit",
                  "X-Correlation-ID", "X-Data-Source")


# -- the body --------------------------------------------------------------------------------
def replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` giving the body read ahead, whole, then what the server says next
    (``http.disconnect`` once the client leaves, as ASGI requires)."""
    given = False

    async def replayed() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        message = await receive()
        if message["type"] == "http.request" and not message.get("more_body", False):
            # The empty body of a request without one, which the reader did not ask for.
            message = await receive()
        return message

    return replayed


# -- the message -----------------------------------------------------------------------------
INVALID_REQUEST = -32600  # JSON-RPC 2.0's code
ID_RULE = "id must be a string or an integer (of 64 bits at most)"
BATCH = ("Batches are not supported: send one JSON-RPC message per request (MCP has no "
         "batches since 2025-06-18)")


@dataclass(frozen=True)
class Inbound:
    """A POSTed body as the front reads it: whether it is a tool call, and the JSON-RPC
    error answering it when it is no single valid message."""

    tool_call: bool = False
    refusal: bytes | None = None


def inbound(body: bytes) -> Inbound:
    """``body`` parsed once, with orjson (the SDK gets the bytes as they came, and parses them
    itself), and checked by :func:`invalid_message`.

    A body orjson refuses is read again by the SDK's own parser (``pydantic_core``), which
    also takes ``NaN`` and ``Infinity``: what it takes is checked like any other message (or
    it would reach the SDK unchecked); what it refuses too is left to the SDK, whose answer
    is already the JSON-RPC parse error (400, -32700, ``id: null``)."""
    try:
        message = orjson.loads(body)
    except orjson.JSONDecodeError:
        import pydantic_core  # the SDK's dependency; ~20 ms, once, on this rare path

        try:
            message = pydantic_core.from_json(body)
        except ValueError:
            return Inbound()
    problem = invalid_message(message)
    if problem is not None:
        return Inbound(refusal=orjson.dumps({"jsonrpc": "2.0", "id": None, "error": {
            "code": INVALID_REQUEST, "message": problem}}))
    return Inbound(tool_call=message.get("method") == TOOL_CALL and "id" in message)


def _is_int(value: Any) -> bool:
    # Not a bool (an int to Python), nor a float (1.0: the SDK took such an id for a
    # notification's, and dropped the message). orjson reads an integer past 64 bits as a
    # float: refused too, though the SDK would take it (no client numbers its requests so).
    return isinstance(value, int) and not isinstance(value, bool)


def _is_id(value: Any) -> bool:
    return isinstance(value, str) or _is_int(value)


def invalid_message(message: Any) -> str | None:
    """Why the parsed body ``message`` is not one JSON-RPC 2.0 message as MCP has them, or
    None: a request (``method``, and an ``id``: a string or an integer, never null), a
    notification (``method``, no ``id``), a response (``id``, and a ``result`` or an
    ``error``); ``params`` an object when given. The SDK would take a message with a bad
    ``id`` for a notification (202, dropped), and refuse the rest with pydantic's text."""
    if isinstance(message, list):
        return BATCH
    if not isinstance(message, dict):
        return "Invalid Request: a message must be a JSON object"
    if message.get("jsonrpc") != "2.0":
        return 'Invalid Request: jsonrpc must be "2.0"'
    if "method" in message:
        if not isinstance(message["method"], str):
            return "Invalid Request: method must be a string"
        if not isinstance(message.get("params", {}), dict):
            return "Invalid Request: params must be an object when given"
        if "id" in message and not _is_id(message["id"]):
            return f"Invalid Request: {ID_RULE}" + \
                ("; a notification has none" if message["id"] is None else "")
        return None
    if ("result" in message) == ("error" in message):
        return ("Invalid Request: a message needs a method (a request or a notification), "
                "or either a result or an error (a response)")
    if not isinstance(message.get("result", {}), dict):
        return "Invalid Request: result must be an object"
    error = message.get("error", {"code": 0, "message": ""})
    if not (isinstance(error, dict) and _is_int(error.get("code"))
            and isinstance(error.get("message"), str)):
        return "Invalid Request: error must be an object with an integer code and a string " \
            "message"
    # An error may answer a message whose id could not be read (null); a result may not.
    if "id" not in message or not (_is_id(message["id"]) or
                                   (message["id"] is None and "error" in message)):
        return f"Invalid Request: a response's {ID_RULE}, or null in an error"
    return None


# -- the rate limit --------------------------------------------------------------------------
@dataclass(frozen=True)
class Charge:
    """The bucket's decision on one message: its rate-limit headers, and the 429's body
    when it was refused."""

    headers: Headers
    refusal: bytes | None = None


async def charge(scope: Scope, tool_call: bool) -> Charge | None:
    """Take a token for a message unless it is a (valid) tool call; None when nothing is
    counted (a tool call, or :func:`apps.ratelimit.limits.charge_v2` counted nothing)."""
    if tool_call:
        return None
    charged = await limits.charge_v2(scope)
    if charged is None:
        return None
    take, headers = charged
    if take.allowed:
        return Charge(headers)
    return Charge(headers, limits.json_body(limits.v2_rate_limit_body(take)))


# -- compression -----------------------------------------------------------------------------
def compressing(send: Send, accept_encoding: str | None, variants: Variants) -> Send:
    """``send`` for the SDK's answers: an ``application/json`` answer is held until its last
    body message and sent whole, in the negotiated coding; anything else (an event stream)
    passes as it comes."""
    held: Message | None = None
    parts: list[bytes] = []

    async def send_answer(message: Message) -> None:
        nonlocal held
        kind = message["type"]
        if kind == "http.response.start" and \
                media_type(message.get("headers") or ()) == "application/json":
            held = message
            return
        if kind == "http.response.body" and held is not None:
            parts.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            start, held = held, None
            body = b"".join(parts)
            parts.clear()
            headers, body = await encoded(list(start.get("headers") or ()), body,
                                          accept_encoding, variants)
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await send(message)

    return send_answer


# -- CORS ------------------------------------------------------------------------------------
def _joined(*groups: Iterable[str]) -> bytes:
    """Header names, case-insensitively distinct, comma-separated."""
    names: dict[str, str] = {}
    for group in groups:
        for name in group:
            names.setdefault(name.lower(), name)
    return ", ".join(names.values()).encode("latin-1")


def cors_headers(origin: str | None, preflight: bool = False) -> Headers:
    """The CORS headers of an answer to a page at ``origin`` (one the endpoint allows:
    :func:`apps.mcp.asgi.origin_allowed`), by the API's settings: ``*`` when any origin
    may call without credentials, else the origin itself and ``Vary: Origin``. A preflight
    gets the methods and request headers of the endpoint; an answer, the headers a page may
    read."""
    if origin is None:
        return []
    from corsheaders.conf import conf

    if conf.CORS_ALLOW_ALL_ORIGINS and not conf.CORS_ALLOW_CREDENTIALS:
        out: Headers = [(b"access-control-allow-origin", b"*")]
    else:
        out = [(b"access-control-allow-origin", origin.encode("latin-1")),
               (b"vary", b"Origin")]
    if conf.CORS_ALLOW_CREDENTIALS:
        out.append((b"access-control-allow-credentials", b"true"))
    if not preflight:
        out.append((b"access-control-expose-headers",
                    _joined(conf.CORS_EXPOSE_HEADERS, EXPOSE_HEADERS)))
        return out
    out += [(b"access-control-allow-methods", _joined(ALLOW_METHODS)),
            (b"access-control-allow-headers", _joined(ALLOW_HEADERS, conf.CORS_ALLOW_HEADERS))]
    if conf.CORS_PREFLIGHT_MAX_AGE:
        out.append((b"access-control-max-age", str(conf.CORS_PREFLIGHT_MAX_AGE).encode()))
    return out


def adding(send: Send, headers: Headers) -> Send:
    """``send`` with ``headers`` added to the answer's start (``Vary`` merged)."""
    if not headers:
        return send

    async def send_with(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": merge_vary([*(message.get("headers") or ()),
                                                          *headers])}
        await send(message)

    return send_with
