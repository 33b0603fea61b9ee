"""The envelope of every v2 batch answer: ``{<items>: [...], errors: [{symbol, message}]}``.

A batch answer's record subclasses :class:`Batch` and redeclares ``items`` with its record
and its JSON name (``charts``, ``options``, ``financials``...); a redeclared field keeps its
place, so ``errors`` stays last. The errors are the ``{symbol, message}`` of the symbols
that could not be served (:func:`marketdata.concurrency.batch_by_symbol` makes both lists).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from marketdata.records.members import member

SYMBOL_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object", "properties": {"symbol": {"type": "string"},
                                     "message": {"type": "string"}},
    "required": ["symbol", "message"]}
ERRORS_DESCRIPTION = "Symbols that could not be served, in request order"


@dataclass(frozen=True)
class Batch:
    """A batch answer: what was served, then the symbols that were not."""

    items: list[Any] = member()
    errors: list[Any] = member(ERRORS_DESCRIPTION, schema={"items": SYMBOL_ERROR_SCHEMA})
