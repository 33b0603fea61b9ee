"""The v2 conventions shared by every /v2 endpoint: ``fields`` selection and cursor paging.

- ``fields``: comma list of top-level member names (camelCase, exact); unknown names are
  ignored and, when none is known, everything is returned (a filter never empties a body).
- ``cursor``/``limit``: opt-in. With neither, a list is returned bare; with either, as a
  connection ``{edges: [{cursor, node}], nodes, pageInfo}``. A cursor is the base64url
  (no padding) JSON of the item's 0-based position, so a client can keep one across pages;
  an undecodable cursor is a 400.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable, Sequence
from typing import Any

from rest_framework import serializers

from apps.core.errors import V2
from apps.core.views import ApiView
from marketdata.errors import FieldError, InvalidParameters

MAX_LIMIT = 1000


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


def decode_cursor(cursor: str, param: str = "cursor") -> int:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        value = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
    except (ValueError, binascii.Error, UnicodeError):
        value = None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidParameters([FieldError(param, "Invalid cursor", "value_error", cursor)])
    return value


def paginate(items: Sequence[Any], cursor: str | None, limit: int | None) -> Any:
    """Bare list without ``cursor`` and ``limit``; otherwise one page as a connection."""
    if cursor is None and limit is None:
        return list(items)
    total = len(items)
    start = min(decode_cursor(cursor) + 1, total) if cursor is not None else 0
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
    fields = serializers.CharField(
        required=False, allow_blank=True,
        help_text="Comma-separated member names to include (top level); unknown names are "
                  "ignored, and none known means all")


class PageQuery(FieldsQuery):
    cursor = serializers.CharField(
        required=False, help_text="`pageInfo.endCursor` of the previous page")
    limit = serializers.IntegerField(
        required=False, min_value=0, max_value=MAX_LIMIT,
        help_text="Page size; with `cursor` or `limit` the list comes as a connection")
