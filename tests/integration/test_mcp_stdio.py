"""The MCP server over stdio (``manage.py mcp``, ``bin/mcp``) driven by the official SDK's
own client, as a desktop client runs it: a process with a bare environment (the SDK passes
only HOME, PATH and the like, plus what the test names), on the sandbox, with a fresh data
folder that nothing prepared (no database: no tool call needs one).

Only JSON-RPC may reach stdout: any other line would reach the client as a transport error
(collected by the message handler here). The logs go to stderr.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("the official MCP client and a server process over stdio")]

ROOT = Path(__file__).resolve().parents[2]


def _environment(var_dir: Path) -> dict[str, str]:
    return {"MARKETDATA_UPSTREAM": "sandbox", "MARKETDATA_VAR_DIR": str(var_dir),
            # The indicator kernels compiled by earlier runs (the warm-up loads them).
            "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", str(ROOT / "var" / "numba")),
            "LOG_LEVEL": "INFO"}


def _session(command: str, args: list[str], env: dict[str, str], cwd: Path, errlog: Path,
             work: Any) -> tuple[Any, list[Any]]:
    """``work(client)`` with the SDK's client on the command's stdio; and the transport
    errors seen (a line on stdout that is not a JSON-RPC message is one)."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    faults: list[Any] = []

    async def handler(message: Any) -> None:
        if isinstance(message, Exception):
            faults.append(message)

    async def run() -> Any:
        parameters = StdioServerParameters(command=command, args=args, env=env, cwd=cwd)
        with errlog.open("w") as stderr:
            async with Client(stdio_client(parameters, errlog=stderr), mode="legacy",
                              message_handler=handler, read_timeout_seconds=60) as client:
                return await work(client)

    return asyncio.run(asyncio.wait_for(run(), 90)), faults


def _quote_call(tools: list[Any]) -> tuple[str, dict[str, Any]]:
    """A quote tool taking a symbol (or symbols) and nothing else required, and its
    arguments for AAPL: the generated catalog's and the curated one's alike."""
    for tool in sorted(tools, key=lambda tool: (len(tool.name), tool.name)):
        schema = tool.input_schema or {}
        properties = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        for name in ("symbol", "symbols"):
            if "quote" in tool.name and name in properties and required <= {name}:
                value: Any = ["AAPL"] if properties[name].get("type") == "array" else "AAPL"
                return tool.name, {name: value}
    raise AssertionError(f"no quote tool taking a symbol in {[t.name for t in tools]}")


def test_the_sdk_client_over_manage_py_mcp(tmp_path):
    """Every kind of request, on settings that print and warn while Django starts: the
    lines go to stderr, and stdout carries the messages alone."""
    async def work(client):
        tools = (await client.list_tools()).tools
        name, arguments = _quote_call(tools)
        result = await client.call_tool(name, arguments)
        listed = (await client.list_resources()).resources
        read = {r.uri: await client.read_resource(r.uri) for r in listed}
        prompts = (await client.list_prompts()).prompts
        prompt = await client.get_prompt("analyse_stock", {"symbol": "msft"})
        return (client.server_info, client.server_capabilities, tools, result, listed, read,
                prompts, prompt)

    var_dir = tmp_path / "var"
    errlog = tmp_path / "stderr.log"
    env = {**_environment(var_dir),
           "DJANGO_SETTINGS_MODULE": "tests.integration.stdio_noisy_settings"}
    outcome, faults = _session(sys.executable, ["manage.py", "mcp"], env, ROOT, errlog, work)
    info, capabilities, tools, result, listed, read, prompts, prompt = outcome
    assert not faults, faults  # nothing but JSON-RPC on stdout
    assert info.name == "marketdata"
    assert capabilities.tools and capabilities.resources and capabilities.prompts
    assert len(tools) > 5
    assert not result.is_error, result.structured_content
    assert "AAPL" in json.dumps(result.structured_content)
    headers = result.meta["marketdata/http"]["headers"]
    assert headers["x-data-source"] == "sandbox"
    assert len(listed) == 6
    for resource in listed:
        (content,) = read[resource.uri].contents
        assert content.mime_type == "application/json"
        assert json.loads(content.text) and len(content.text.encode()) < 8192
    assert {p.name for p in prompts} == {"analyse_stock", "compare_symbols", "macro_snapshot"}
    assert "MSFT" in prompt.messages[0].content.text
    # The start-up's noise and the logs went to stderr: the tool call's access line.
    stderr = errlog.read_text()
    assert "stdio-noise: a line printed on stdout" in stderr
    assert "stdio-noise: a warning while Django starts" in stderr
    lines = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
    access = [line for line in lines if line.get("api_response")]
    assert any(line["status_code"] == 200 and line["path"].startswith("/v2/")
               for line in access), access
    # No database was needed, so none was made.
    assert not (var_dir / "db.sqlite3").exists()


def test_bin_mcp_from_another_folder(tmp_path):
    """``bin/mcp`` as a client configuration runs it: from another working directory, the
    upstream named in the environment."""
    async def work(client):
        return (await client.list_prompts()).prompts, \
            await client.read_resource("marketdata://screeners")

    errlog = tmp_path / "stderr.log"
    (prompts, screeners), faults = _session(
        str(ROOT / "bin" / "mcp"), [], {**_environment(tmp_path / "var"),
                                        "PYTHON": sys.executable},
        tmp_path, errlog, work)
    assert not faults, faults
    assert len(prompts) == 3
    assert "day-gainers" in screeners.contents[0].text
    assert "marketdata: MCP server on stdio; upstream mode is sandbox" in errlog.read_text()
