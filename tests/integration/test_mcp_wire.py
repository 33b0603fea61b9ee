"""/mcp through the real service process: a batch and a request with a malformed id are
refused with a JSON-RPC error (400, ``id: null``) before the SDK, each with its access
line (apps.mcp.wire.inbound)."""

from __future__ import annotations

import json
import time
import uuid

import pytest

from apps.mcp import wire
from tests.integration.servers import http

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("the first test waits for the worker's shared servers to start")]

HEADERS = {"Accept": "application/json, text/event-stream",
           "MCP-Protocol-Version": "2025-06-18"}


def _access_lines(service, correlation_id: str) -> list[dict]:
    """The access lines of the request with this correlation id (written just after the
    answer: polled for a moment)."""
    deadline = time.monotonic() + 5
    while True:
        lines = [json.loads(line) for line in service.log().splitlines()
                 if line.startswith("{") and correlation_id in line]
        access = [line for line in lines if line.get("api_response")]
        if access or time.monotonic() > deadline:
            return access
        time.sleep(0.05)


@pytest.mark.parametrize(("body", "message"), [
    ([{"jsonrpc": "2.0", "id": 1, "method": "ping"}], wire.BATCH),
    ({"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"},
     f"Invalid Request: {wire.ID_RULE}"),
], ids=["batch", "object id"])
def test_a_malformed_message_is_a_json_rpc_error(server_pool, body, message):
    service, _ = server_pool.stack()
    correlation_id = f"mcp-wire-{uuid.uuid4().hex[:12]}"
    status, headers, raw = http("POST", f"{service.base_url}/mcp", body,
                                headers={**HEADERS, "X-Correlation-ID": correlation_id})
    assert status == 400 and headers["Content-Type"] == "application/json"
    assert json.loads(raw) == {"jsonrpc": "2.0", "id": None,
                               "error": {"code": -32600, "message": message}}
    assert headers["X-Correlation-ID"] == correlation_id
    access = _access_lines(service, correlation_id)
    assert [(line["path"], line["status_code"]) for line in access] == [("/mcp", 400)]
