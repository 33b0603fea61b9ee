"""``manage.py mcp``: the MCP server on stdin/stdout, for desktop clients (Claude Desktop,
Claude Code, editors) that start it as a process; ``bin/mcp`` runs it from any folder.

JSON-RPC messages on stdout, logs on stderr (:mod:`apps.mcp.stdio`). Ends when the client
closes stdin.
"""

from __future__ import annotations

import asyncio
from typing import Any

from django.core.management.base import BaseCommand

from apps.mcp import stdio


class Command(BaseCommand):
    help = ("Serve the MCP server (the tools, resources and prompts of /mcp) on stdin and "
            "stdout for a desktop client; logs go to stderr")
    # The system checks' output is not the protocol's, and their warnings (a generated
    # SECRET_KEY...) are about serving HTTP: not run.
    requires_system_checks: list[str] = []

    def handle(self, *args: Any, **options: Any) -> None:
        stdio.logs_to_stderr()
        asyncio.run(stdio.serve())
