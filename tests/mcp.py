"""One JSON-RPC message to ``/mcp`` through the server's own HTTP router, in process: what
the MCP tests and ``bench/mcp_budget.py`` send (no server process, the real stack); any
JSON POST the same way (``/graphql``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any


def post_mcp(message: dict[str, Any], headers: dict[str, str] | None = None
             ) -> tuple[int, dict[bytes, bytes], Any]:
    """``message`` POSTed to /mcp as the client 127.0.0.1 to Host ``testserver``, on a loop of
    its own (as each worker has: the session manager starts on each loop's first request);
    the status, the headers and the JSON answer."""
    return post_json("/mcp", message, {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25", **(headers or {})})


def post_json(path: str, message: Any, headers: dict[str, str] | None = None
              ) -> tuple[int, dict[bytes, bytes], Any]:
    """``message`` POSTed as JSON to ``path`` through the server's HTTP router (``/mcp``,
    ``/graphql``), on a loop of its own; the status, the headers and the JSON answer."""
    import config.asgi

    body = json.dumps(message).encode()
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(event: dict[str, Any]) -> None:
        sent.append(event)

    raw = {"host": "testserver", "content-type": "application/json",
           "content-length": str(len(body)), **(headers or {})}
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "client": ("127.0.0.1", 50000),
             "server": ("testserver", 80),
             "headers": [(k.encode(), v.encode()) for k, v in raw.items()]}
    asyncio.run(config.asgi.http_router(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    payload = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], dict(start["headers"]), json.loads(payload)
