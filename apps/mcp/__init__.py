"""The MCP endpoint (``/mcp``) and its stdio twin: a curated set of tools for agents, each one
an HTTP operation of the service run in process (``catalog.py`` declares them)."""
