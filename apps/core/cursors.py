"""The cursors of v2's paged lists, as written: a module of its own, below both the v2 view kit
(:mod:`apps.core.v2`, which decodes them) and the OpenAPI pieces (:mod:`apps.core.schema`,
whose examples carry the first page's), so neither imports the other."""

from __future__ import annotations

import base64
import json


def encode_cursor(position: int, reverse: bool = False) -> str:
    """The cursor of ``position`` (0-based) in a walk: base64url (no padding) of its JSON;
    a reversed walk's (a list read in the other ``order`` than its default) is of
    ``-(position + 1)``, so a cursor carries its walk's direction."""
    value = -(position + 1) if reverse else position
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()
