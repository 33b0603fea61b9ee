"""Symbol checks at the HTTP edge: an invalid symbol is an unknown symbol (404)."""

from collections.abc import Mapping
from typing import Any

from marketdata.errors import NotFound
from marketdata.symbols import display_symbol, normalize_symbol


def require_symbol(text: str) -> str:
    """The canonical symbol, or NotFound: a malformed symbol can never resolve upstream."""
    symbol = normalize_symbol(text)
    if symbol is None:
        raise NotFound(f"Symbol not found: '{display_symbol(text)}'")
    return symbol


def encoded_slash_in_path(meta: Mapping[str, Any]) -> bool:
    """Whether the request target, as the client sent it, has an encoded slash (``%2F``).

    Servers decode the path before routing, so ``/v1/holders/AAPL%2Fmajor`` would reach
    ``/v1/holders/{symbol}/{holder_type}`` as symbol AAPL. A slash is never part of a symbol,
    so views whose path ends in parameters refuse such targets. Only servers that pass the
    raw target (gunicorn ``RAW_URI``, others ``REQUEST_URI``, ASGI servers ``raw_path`` in the
    scope a2wsgi passes on) make the check possible; without it this is False and the
    decoded path is all there is.
    """
    target = meta.get("RAW_URI") or meta.get("REQUEST_URI")
    if not target:
        scope = meta.get("asgi.scope")
        raw_path = scope.get("raw_path") if isinstance(scope, dict) else None
        target = raw_path.decode("latin-1") if isinstance(raw_path, bytes) else ""
    target = str(target)
    return "%2f" in target.split("?", 1)[0].lower()
