"""Shared pieces of the Yahoo endpoints: Yahoo's error envelopes, plus the request object
and plain answers of ``marketdata.sandbox.common`` (re-exported here for the endpoints)."""

from __future__ import annotations

from marketdata.sandbox.common import (
    BASE_HEADERS,
    JSON_TYPE,
    Request,
    json_response,
    text_response,
)
from marketdata.sandbox.response import SandboxResponse

__all__ = ["BASE_HEADERS", "JSON_TYPE", "Request", "SandboxResponse", "error_response",
           "finance_error", "json_response", "not_found_route", "service_unavailable",
           "text_response"]


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
