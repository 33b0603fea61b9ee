"""Pieces every simulated provider shares: the request object and plain HTTP answers.

Provider-specific error envelopes live with each provider (``yahoo/common.py``, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

import orjson

from marketdata.sandbox.response import SandboxResponse

JSON_TYPE = "application/json;charset=utf-8"
BASE_HEADERS = {"X-Data-Source": "sandbox", "Cache-Control": "no-cache"}


@dataclass
class Request:
    """One upstream request as the endpoints see it (path already URL-decoded).

    ``host`` is the host the client really connected to (the URL host in process, the
    ``Host`` header on the HTTP server): cookie attributes and absolute redirects depend on
    it, because the client's cookie jar is keyed on that URL. ``upstream_host`` is the host
    the request was meant for (``X-Upstream-Host`` when a host map rewrote the URL, else
    ``host``); it chose the provider.
    """

    method: str
    host: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-cased names
    body: bytes
    clock: Callable[[], datetime]
    params: dict[str, str] = field(default_factory=dict)  # path parameters
    upstream_host: str = ""

    def arg(self, name: str, default: str | None = None) -> str | None:
        """Last value of a query parameter (Yahoo takes the last one too)."""
        values = self.query.get(name)
        return values[-1] if values else default

    def int_arg(self, name: str, default: int | None = None) -> int | None:
        """An integer query parameter: ``default`` when absent or empty, None when it is
        not a number (the endpoint answers 400 then, as Yahoo does)."""
        text = self.arg(name)
        if text is None or text == "":
            return default
        try:
            return int(float(text))
        except ValueError:
            return None

    def now(self) -> int:
        return int(self.clock().timestamp())

    def cookie(self, name: str) -> str | None:
        raw = self.headers.get("cookie", "")
        for part in raw.split(";"):
            key, _, value = part.strip().partition("=")
            if key == name:
                return value
        return None


def json_response(payload: object, status: int = 200,
                  headers: dict[str, str] | None = None) -> SandboxResponse:
    out = {"Content-Type": JSON_TYPE, **BASE_HEADERS}
    if headers:
        out.update(headers)
    return SandboxResponse(status, out, orjson.dumps(payload))


def text_response(text: str, status: int = 200, content_type: str = "text/plain;charset=utf-8",
                  headers: dict[str, str] | None = None) -> SandboxResponse:
    out = {"Content-Type": content_type, **BASE_HEADERS}
    if headers:
        out.update(headers)
    return SandboxResponse(status, out, text.encode())
