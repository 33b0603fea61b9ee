"""Local ``$ref``s of a JSON document inlined: how the MCP tools' arguments and the GraphQL
types read ``/openapi.json``. Its own small module, importing nothing of Django or DRF:
``manage.py mcp`` imports the MCP server before Django starts (its stdout is the protocol),
and importing drf-spectacular would load the settings then."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class Resolver:
    """Inlines the document's local ``$ref``s (what the MCP tools' arguments and the GraphQL
    types are read from). A reference to itself, which no parameter, body or answer of the
    document has, is an error."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document

    def target(self, pointer: str) -> Any:
        if not pointer.startswith("#/"):
            raise ValueError(f"only local references are resolved: {pointer}")
        node: Any = self.document
        for part in pointer[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def resolve(self, node: Any, stack: tuple[str, ...] = ()) -> Any:
        if isinstance(node, list):
            return [self.resolve(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        pointer = node.get("$ref")
        if not isinstance(pointer, str):
            return {key: self.resolve(value, stack) for key, value in node.items()}
        if pointer in stack:
            raise ValueError(f"a recursive reference cannot be inlined: {pointer}")
        siblings = {key: self.resolve(value, stack) for key, value in node.items()
                    if key != "$ref"}
        target = self.resolve(self.target(pointer), (*stack, pointer))
        return {**target, **siblings} if isinstance(target, dict) else target
