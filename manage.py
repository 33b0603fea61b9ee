#!/usr/bin/env python
"""Django's command-line utility."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if sys.argv[1:2] == ["mcp"]:
        # stdout is the MCP protocol: Django's start-up writes to stderr (apps.mcp.stdio).
        from apps.mcp.stdio import claim_stdout

        claim_stdout()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
