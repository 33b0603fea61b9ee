"""The JSON body parser of the POST endpoints: bounded in size and depth, and silent about
its internals.

DRF's ``JSONParser`` runs the standard library's decoder, which raises ``RecursionError``
(a 500) on JSON nested a thousand deep, and echoes the decoder's own message ("Expecting
value: line 1 column 14 (char 13)") to the client. This parser reads at most
``REQUEST_BODY_MAX_BYTES`` (413 past it; the serving front refuses such bodies before
they reach a thread, this guards every other way in), decodes with orjson, and refuses
nesting deeper than :data:`MAX_DEPTH` (no request member of this API nests more than a few
levels) before any serializer walks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from django.conf import settings
from rest_framework import exceptions, parsers

MAX_DEPTH = 32


class BodyTooLarge(exceptions.APIException):
    status_code = 413
    default_detail = "Request body too large"
    default_code = "body_too_large"


def nesting_depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` (decoded JSON) nests arrays and objects deeper than ``limit``;
    iterative, so any depth orjson accepts is measured without recursion."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, dict | list))
    return False


class JSONBodyParser(parsers.BaseParser):
    media_type = "application/json"

    def parse(self, stream: Any, media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:
        limit = int(settings.REQUEST_BODY_MAX_BYTES)
        data = stream.read(limit + 1) if stream is not None else b""
        if len(data) > limit:
            raise BodyTooLarge(f"Request body too large: at most {limit} bytes are accepted")
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            raise exceptions.ParseError("body: Input should be valid JSON") from None
        # Cheap first: fewer opening brackets than the limit cannot nest past it.
        if data.count(b"[") + data.count(b"{") > MAX_DEPTH and \
                nesting_depth_exceeds(value, MAX_DEPTH):
            raise exceptions.ParseError(f"body: JSON nested deeper than {MAX_DEPTH} levels")
        return value
