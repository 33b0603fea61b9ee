"""What a GraphQL query may cost, read off its document before anything runs: its depth, its
aliases and its cost in tokens of the v2 bucket.

- **Cost**: one token per REST request the query may make, i.e. per served field
  (:mod:`apps.graphql.catalog`) it selects, times the tickers it is selected for
  (``tickers(symbols: [12 symbols]) { chart }`` is 12); ``ticker.quote`` is one per 50
  tickers (one batch request each); at least 1 (an introspection query). The bucket is
  charged that many tokens at once, or the query is refused with HTTP 429
  (:mod:`apps.graphql.endpoint`).
- **Depth**: the deepest selection below the root, introspection (``__schema``,
  ``__type``) aside: GraphiQL's own introspection query nests type references ten deep.
- **Aliases**: every aliased field, introspection included.

Fragments are followed (each spread is walked where it is spread; a fragment that spreads
itself is refused by validation before this runs, so the walk has no cycle to fear).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    ListValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
)

from apps.graphql import catalog
from apps.graphql.execution import MAX_BATCH

BATCHED = frozenset(s.name for s in catalog.TICKER if s.batch)
TICKER_FIELDS = frozenset(s.name for s in catalog.TICKER)
ROOT_FIELDS = frozenset(s.name for s in catalog.ROOT)


@dataclass
class Measure:
    cost: int = 0
    depth: int = 0
    aliases: int = 0
    fields: int = 0
    served: dict[str, int] | None = None  # "ticker.chart" -> requests it may make

    def add(self, name: str, requests: int) -> None:
        self.cost += requests
        if self.served is None:
            self.served = {}
        self.served[name] = self.served.get(name, 0) + requests


def _count(node: Any, variables: Mapping[str, Any]) -> int | None:
    """How many symbols a ``symbols`` argument lists (None: unknown)."""
    if isinstance(node, ListValueNode):
        return len(node.values)
    if isinstance(node, VariableNode):
        value = variables.get(node.name.value)
        return len(value) if isinstance(value, list) else 1 if value is not None else None
    return 1


def measure(operation: OperationDefinitionNode,
            fragments: Mapping[str, FragmentDefinitionNode],
            variables: Mapping[str, Any], limit_depth: int) -> Measure:
    """The cost, depth and aliases of one operation (``limit_depth`` stops the walk early:
    a query 50 deep is refused at 1 past the limit, not walked to the bottom)."""
    out = Measure()

    def walk(selections: SelectionSetNode | None, depth: int, parent: str,
             tickers: int, spreads: tuple[str, ...]) -> None:
        if selections is None or out.depth > limit_depth:
            return
        for node in selections.selections:
            if isinstance(node, FragmentSpreadNode):
                name = node.name.value
                fragment = fragments.get(name)
                if fragment is not None and name not in spreads:
                    walk(fragment.selection_set, depth, parent, tickers, (*spreads, name))
                continue
            if isinstance(node, InlineFragmentNode):
                walk(node.selection_set, depth, parent, tickers, spreads)
                continue
            if not isinstance(node, FieldNode):
                continue
            name = node.name.value
            out.fields += 1
            if node.alias is not None:
                out.aliases += 1
            if name.startswith("__"):
                continue  # introspection: neither data nor depth
            out.depth = max(out.depth, depth + 1)
            inner_parent, inner_tickers = "", tickers
            if parent == "Query" and name == "ticker":
                inner_parent, inner_tickers = "Ticker", 1
            elif parent == "Query" and name == "tickers":
                argument = next((a for a in node.arguments or () if a.name.value == "symbols"),
                                None)
                count = _count(argument.value, variables) if argument else None
                inner_parent = "Ticker"
                inner_tickers = min(count if count is not None else catalog.MAX_TICKERS,
                                    catalog.MAX_TICKERS)
            elif parent == "Query" and name in ROOT_FIELDS:
                out.add(name, 1)
            elif parent == "Ticker" and name in BATCHED:
                out.add(f"ticker.{name}", math.ceil(tickers / MAX_BATCH))
            elif parent == "Ticker" and name in TICKER_FIELDS:
                out.add(f"ticker.{name}", tickers)
            walk(node.selection_set, depth + 1, inner_parent, inner_tickers, spreads)

    walk(operation.selection_set, 0, "Query", 1, ())
    out.cost = max(out.cost, 1)
    return out
