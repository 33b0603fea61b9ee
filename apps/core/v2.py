"""The v2 conventions shared by every /v2 endpoint: ``fields`` selection and cursor paging.

- ``fields``: comma list of top-level member names (camelCase, exact); unknown names are
  ignored and, when none is known, everything is returned (a filter never empties a body).
- ``cursor``/``limit``: opt-in. With neither, a list is returned bare; with either, as a
  connection ``{edges: [{cursor, node}], nodes, pageInfo}``. A cursor is the base64url
  (no padding) JSON of the item's 0-based position, so a client can keep one across pages;
  an undecodable cursor is a 400. The cursor is decoded while the query is validated, before
  any upstream call, by a bounded parser (no JSON: at most ``MAX_CURSOR_LENGTH`` characters
  of base64url whose bytes are the position's decimal digits).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from rest_framework import serializers

from apps.core.errors import V2
from apps.core.params import AnyTextParam, IntegerParam
from apps.core.views import ApiView

MAX_LIMIT = 1000
# base64url of up to 16 decimal digits is 22 characters; '=' padding is tolerated.
MAX_CURSOR_LENGTH = 24
_CURSOR_TEXT = re.compile(r"[A-Za-z0-9_-]+={0,2}", re.ASCII)
_POSITION = re.compile(rb"0|[1-9][0-9]{0,15}")


class V2ApiView(ApiView):
    """Base for /v2 endpoints: errors are ``{error, status}``."""

    error_style = V2


def requested_fields(text: str | None, known: Iterable[str]) -> frozenset[str] | None:
    """The known names listed in ``fields``, or None for "everything"."""
    if not text:
        return None
    known_set = set(known)
    chosen = frozenset(t for t in (part.strip() for part in text.split(",")) if t in known_set)
    return chosen or None


def select(obj: dict[str, Any], fields: frozenset[str] | None) -> dict[str, Any]:
    """``obj`` reduced to ``fields`` (all of it when None); requested members stay present
    even when null, so a client's columns are stable."""
    if fields is None:
        return obj
    return {key: value for key, value in obj.items() if key in fields}


def encode_cursor(position: int) -> str:
    return base64.urlsafe_b64encode(json.dumps(position).encode()).rstrip(b"=").decode()


def cursor_position(cursor: Any) -> int | None:
    """The position a cursor names, or None when it is not one of ours. Bounded work
    whatever the input: a length check, then a regular expression, never a JSON parser."""
    if not isinstance(cursor, str) or not 0 < len(cursor) <= MAX_CURSOR_LENGTH \
            or not _CURSOR_TEXT.fullmatch(cursor):
        return None
    text = cursor.rstrip("=")
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, binascii.Error):
        return None
    if not _POSITION.fullmatch(raw):
        return None
    position = int(raw)
    # Canonical only: 'MB' decodes to b'0' too (base64 drops the spare bits); 'MA' is 0.
    return position if encode_cursor(position) == text else None


class CursorParam(serializers.CharField):
    """The ``cursor`` query parameter, decoded to its position during validation (so a bad
    cursor is a 400 before any upstream call)."""

    default_error_messages = {"invalid": "Invalid cursor"}

    def to_internal_value(self, data: Any) -> int:
        position = cursor_position(super().to_internal_value(data))
        if position is None:
            self.fail("invalid")
        return position


def paginate(items: Sequence[Any], cursor: int | None, limit: int | None) -> Any:
    """Bare list without ``cursor`` and ``limit``; otherwise one page as a connection.
    ``cursor`` is the position :class:`CursorParam` decoded."""
    if cursor is None and limit is None:
        return list(items)
    total = len(items)
    start = min(cursor + 1, total) if cursor is not None else 0
    end = total if limit is None else min(start + limit, total)
    page = items[start:end]
    edges = [{"cursor": encode_cursor(start + i), "node": node} for i, node in enumerate(page)]
    return {
        "edges": edges,
        "nodes": list(page),
        "pageInfo": {
            "startCursor": edges[0]["cursor"] if edges else None,
            "endCursor": edges[-1]["cursor"] if edges else None,
            "hasNextPage": end < total,
            "hasPreviousPage": start > 0,
        },
    }


class FieldsQuery(serializers.Serializer):
    # Any text: a name with a NUL is just an unknown name, ignored like the others.
    fields = AnyTextParam(
        required=False, allow_blank=True,
        help_text="Comma-separated member names to include (top level); unknown names are "
                  "ignored, and none known means all")


class PageQuery(FieldsQuery):
    cursor = CursorParam(
        required=False, help_text="`pageInfo.endCursor` of the previous page")
    limit = IntegerParam(
        required=False, min_value=0, max_value=MAX_LIMIT,
        help_text="Page size; with `cursor` or `limit` the list comes as a connection")
