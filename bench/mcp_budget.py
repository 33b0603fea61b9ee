"""What the MCP tools cost an agent's context: the size of tools/list, of each tool's
answer to its documented example and worst case (apps/mcp/catalog.py), and of the outline
of what it answers (the resource marketdata://answers/{tool}), on the sandbox,
through the service's own router in process (the path /mcp takes).

    .venv/bin/python bench/mcp_budget.py            # a Markdown table (the README's)
    .venv/bin/python bench/mcp_budget.py --json     # the numbers

Tokens are counted as bytes / 4 (the issue's measure).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.update(MARKETDATA_UPSTREAM="sandbox", USE_SECURITY="false",
                  V2_RATE_LIMIT_CAPACITY="0", LOG_LEVEL="ERROR",
                  STREAM_ALLOWED_HOSTS="testserver")


def post(message: dict[str, Any]) -> dict[str, Any]:
    """One JSON-RPC message to /mcp through config.asgi's router (tests/mcp.py)."""
    from tests.mcp import post_mcp

    return post_mcp(message)[2]


def measure() -> dict[str, Any]:
    import django

    django.setup()
    from apps.mcp.catalog import TOOLS

    listing = post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"]
    tools_bytes = len(json.dumps(listing, separators=(",", ":")))
    rows = []
    for declared in TOOLS:
        sizes = []
        for arguments in (declared.example, declared.worst):
            result = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                           "params": {"name": declared.name, "arguments": arguments}})["result"]
            sizes.append((len(result["content"][0]["text"].encode()), result["isError"]))
        outline = post({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
                        "params": {"uri": f"marketdata://answers/{declared.name}"}})["result"]
        rows.append({"tool": declared.name, "example": sizes[0], "worst": sizes[1],
                     "answers": len(outline["contents"][0]["text"].encode())})
    return {"tools": len(listing["tools"]), "tools_list_bytes": tools_bytes, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    numbers = measure()
    if args.json:
        print(json.dumps(numbers, indent=2))
        return
    print(f"tools/list: {numbers['tools']} tools, {numbers['tools_list_bytes']:,} bytes "
          f"(~{numbers['tools_list_bytes'] // 4:,} tokens)\n")
    print("| tool | example | worst case | answers outline |\n|---|---|---|---|")
    for row in numbers["rows"]:
        cells = [f"{size:,} B (~{size // 4:,} tokens){' error' if error else ''}"
                 for size, error in (row["example"], row["worst"])]
        print(f"| `{row['tool']}` | {cells[0]} | {cells[1]} | {row['answers']:,} B |")
    largest = max(numbers["rows"], key=lambda r: r["worst"][0])
    print(f"\nlargest default answer: {largest['tool']}, {largest['worst'][0]:,} bytes "
          f"(~{largest['worst'][0] // 4:,} tokens)")


if __name__ == "__main__":
    main()
