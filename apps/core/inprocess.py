"""Requests the service makes to itself, in process: an MCP tool call or a GraphQL field is
the HTTP request of its route, run through the ASGI application the server runs
(``config.asgi.http_router``), so the fast path, the request deadline, the caches, the lanes,
the access log and the error bodies apply exactly as to the same request over HTTP.

The request carries the outer request's client address and the headers those layers read
(``X-API-Key``, ``X-Forwarded-For`` as ``TRUSTED_PROXIES`` allows, ``Host``,
``Accept-Language``...), and its arrival time, so the deadline counts from when the outer
request arrived.

A *prepaid* request (:data:`PREPAID_KEY` in its scope) is not counted by the rate limits:
its outer request already paid for it (a GraphQL query is charged its cost before it runs,
:mod:`apps.graphql.cost`). Only code in this process can set a scope key; a client cannot.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from django.conf import settings

from marketdata import deadline

Scope = dict[str, Any]
Message = dict[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]],
                   Awaitable[Any]]

# Set in the scope of an in-process request whose outer request was already charged.
PREPAID_KEY = "marketdata.prepaid"


@dataclass(frozen=True)
class ApiRequest:
    """The HTTP request an in-process call stands for."""

    method: str
    path: str  # decoded, as an ASGI scope's ``path``
    raw_path: bytes  # as sent
    query_string: bytes
    body: bytes | None = None


# Request headers a tool call takes from its MCP request: what the layers below read.
FORWARDED_HEADERS = frozenset({b"host", b"x-api-key", b"x-forwarded-for", b"x-forwarded-host",
                               b"x-forwarded-proto", b"accept-language", b"user-agent",
                               b"x-correlation-id"})


@dataclass(frozen=True)
class Answer:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes

    def header(self, name: str) -> str | None:
        wanted = name.encode("latin-1")
        for key, value in self.headers:
            if key.lower() == wanted:
                return value.decode("latin-1")
        return None

    def json(self) -> Any:
        """The body's JSON; None when there is none, or it is not JSON."""
        try:
            return orjson.loads(self.body) if self.body else None
        except orjson.JSONDecodeError:
            return None


def _proxy_ssl_header() -> bytes | None:
    proxy = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if not proxy or not str(proxy[0]).startswith("HTTP_"):
        return None
    return str(proxy[0])[5:].lower().replace("_", "-").encode("latin-1")


def api_scope(request: ApiRequest, outer: Mapping[str, Any] | None, *,
              prepaid: bool = False) -> Scope:
    """The ASGI scope of the HTTP request a call stands for, as uvicorn would have built it
    had the outer request's client sent that request itself."""
    outer = outer or {}
    wanted = FORWARDED_HEADERS | ({_proxy_ssl_header()} - {None})
    headers = [(name, value) for name, value in outer.get("headers") or ()
               if name in wanted]
    if not any(name == b"host" for name, _ in headers):
        server = outer.get("server") or ("localhost", None)
        host = server[0] if server[1] in (None, 80, 443) else f"{server[0]}:{server[1]}"
        headers.append((b"host", host.encode("latin-1")))
    # JSON, uncompressed, never a 304: the answer is read here, not by the client.
    headers.append((b"accept", b"application/json"))
    if request.body is not None:
        headers += [(b"content-type", b"application/json"),
                    (b"content-length", str(len(request.body)).encode())]
    return {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": outer.get("http_version", "1.1"), "method": request.method,
            "scheme": outer.get("scheme", "http"), "path": request.path,
            "raw_path": request.raw_path, "query_string": request.query_string,
            "root_path": "", "headers": headers, "client": outer.get("client"),
            "server": outer.get("server") or ("localhost", 80),
            deadline.ARRIVAL_KEY: outer.get(deadline.ARRIVAL_KEY) or time.monotonic(),
            PREPAID_KEY: prepaid}


async def call_api(api: ASGIApp, request: ApiRequest, outer: Mapping[str, Any] | None, *,
                   prepaid: bool = False) -> Answer:
    """Run ``request`` through ``api`` in process; the complete answer."""
    body = request.body or b""
    sent_body = False
    done = asyncio.Event()
    status = 0
    headers: list[tuple[bytes, bytes]] = []
    chunks: list[bytes] = []

    async def receive() -> Message:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()  # "the client left" only once the answer is complete
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status = message["status"]
            headers = list(message.get("headers") or ())
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                done.set()

    try:
        await api(api_scope(request, outer, prepaid=prepaid), receive, send)
    finally:
        done.set()
    return Answer(status, headers, b"".join(chunks))
