"""The MCP endpoint (``/mcp``): one tool per operation of the OpenAPI document, for agents."""
