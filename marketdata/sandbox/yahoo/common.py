"""Shared pieces of the Yahoo endpoints: the request object, responses and error bodies."""

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
    """One upstream request as the endpoints see it (path already URL-decoded)."""

    method: str
    host: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-cased names
    body: bytes
    clock: Callable[[], datetime]
    params: dict[str, str] = field(default_factory=dict)  # path parameters

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


def error_response(wrapper: str, code: str, description: str, status: int) -> SandboxResponse:
    """Yahoo's error envelope: {wrapper: {"result": null, "error": {code, description}}}."""
    return json_response({wrapper: {"result": None, "error": {"code": code,
                                                             "description": description}}},
                         status)


def finance_error(code: str, description: str, status: int) -> SandboxResponse:
    return error_response("finance", code, description, status)


def not_found_route() -> SandboxResponse:
    return finance_error("Not Found", "HTTP 404 Not Found", 404)


def service_unavailable(wrapper: str = "finance") -> SandboxResponse:
    """What an injected fault looks like: a 503 in the endpoint's own envelope."""
    return error_response(wrapper, "Service Unavailable",
                          "Service is temporarily unavailable, please try again later", 503)
