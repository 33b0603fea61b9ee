"""Answers the serving front gives itself, before any thread or Django handler is involved.

The front (``config.asgi``, ``config.protocol``) refuses what must never reach a thread: a
request body that is too large (413) or does not arrive in time (408), an over-long URL
(414) or header section (431), a request the HTTP parser cannot read (400). Those answers
must still look like the endpoint's own errors: the same JSON body shape
(:func:`apps.core.errors.page_error_body`), the same correlation id, data-source, security
and CORS headers (the fast path's memoised copies of Django's, when it is on), one access
line and one request metric, timed from arrival. They never echo what the parser said.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable
from http import HTTPStatus
from typing import Any

import orjson
from django.conf import settings

from apps.core.errors import page_error_body
from apps.core.fastpath import fast_path
from apps.core.middleware import correlation_id_for
from apps.core.routes import UNMATCHED
from marketdata import deadline, metrics
from marketdata.logs import AccessLog

Send = Callable[[dict[str, Any]], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]

_access_log: AccessLog | None = None


def _log() -> AccessLog:
    global _access_log
    if _access_log is None:
        _access_log = AccessLog(__file__, settings.PERFORMANCE_THRESHOLD_MS)
    return _access_log


def _header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key == name:
            return value.decode("latin-1")
    return None


def answer_headers(scope: dict[str, Any], body_length: int, close: bool,
                   extra: Iterable[tuple[bytes, bytes]] = ()) -> tuple[Headers, str]:
    """The headers of a JSON error answered at the front, and its correlation id."""
    request_headers = scope.get("headers") or []
    correlation_id = correlation_id_for(_header(request_headers, b"x-correlation-id"))
    out: Headers = [(b"content-type", b"application/json"),
                    (b"content-length", str(body_length).encode())]
    out.extend(extra)
    setup = fast_path.setup()
    if setup.enabled:
        proxy = setup.proxy_header
        secure = setup.is_secure(scope.get("scheme", "http"),
                                 _header(request_headers, proxy) if proxy else None)
        xframe, security = setup.layers(secure)
        out += [*xframe, *security,
                *setup.cors(_header(request_headers, b"origin"), scope.get("path", "/"))]
    else:
        out.append((b"x-content-type-options", b"nosniff"))
    out.append((b"x-correlation-id", correlation_id.encode()))
    out.append((b"x-data-source", settings.MARKETDATA_UPSTREAM.encode("latin-1")))
    if close:
        out.append((b"connection", b"close"))
    return out, correlation_id


def record(scope: dict[str, Any], status: int, correlation_id: str) -> None:
    """The access line and the request metric of an answer given at the front, timed from
    the request's arrival (or now, for one refused before it had a scope)."""
    arrival = scope.get(deadline.ARRIVAL_KEY)
    seconds = time.monotonic() - arrival if arrival is not None else 0.0
    path = scope.get("path") or "/"
    method = scope.get("method") or "-"
    query = scope.get("query_string") or b""
    _log()(method, path, status, round(seconds * 1000, 3), correlation_id,
           query.decode("latin-1"), None)
    setup = fast_path.setup()
    route = setup.route(path, UNMATCHED) if setup.enabled and path.startswith("/") \
        else UNMATCHED
    metrics.record_request(method, route, status, seconds)


async def refuse(scope: dict[str, Any], send: Send, status: int, message: str, *,
                 close: bool = True, extra: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """Answer ``status`` with ``message`` in the endpoint's error shape; by default the
    connection is closed after it (what was left of the request is never read)."""
    body = orjson.dumps(page_error_body(scope.get("path") or "/", message, status))
    headers, correlation_id = answer_headers(scope, len(body), close, extra)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
    record(scope, status, correlation_id)


def raw_refusal(path: str, status: int, message: str, method: str = "-",
                server_headers: Iterable[tuple[bytes, bytes]] = ()) -> bytes:
    """A whole HTTP/1.1 response refusing a request the parser has not finished (so there
    is no scope, no ASGI task): the error body in the shape of ``path``'s endpoint, and
    the connection closed after it; ``server_headers`` are the server's own (``date``).
    Logged and counted like any answer."""
    scope: dict[str, Any] = {"path": path, "method": method, "headers": []}
    body = orjson.dumps(page_error_body(path, message, status))
    headers, correlation_id = answer_headers(scope, len(body), close=True)
    headers[:0] = server_headers
    reason = HTTPStatus(status).phrase.encode()
    head = b"".join([b"HTTP/1.1 %d %s\r\n" % (status, reason),
                     *(name + b": " + value + b"\r\n" for name, value in headers), b"\r\n"])
    record(scope, status, correlation_id)
    return head + body
