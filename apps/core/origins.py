"""Who may open a WebSocket stream or call ``/mcp``: the request's ``Host`` and a browser's
``Origin``, checked before anything else is done for the request.

Both surfaces act for a client as long as it stays (a stream's subscriptions, an agent's tool
calls), and a browser lets any web page open a WebSocket or POST JSON to any address, the
loopback included. A page at ``evil.example`` whose name the attacker then points at
127.0.0.1 (DNS rebinding) makes the browser send ``Host: evil.example:8000`` and ``Origin:
http://evil.example:8000``; refusing either ends it. So:

- the ``Host`` (``X-Forwarded-Host`` when ``USE_X_FORWARDED_HOST``, as Django reads it) must
  match ``STREAM_ALLOWED_HOSTS`` (``ALLOWED_HOSTS``' patterns; by default ``ALLOWED_HOSTS``
  itself, or the loopback names while that is ``*``), else 400;
- an ``Origin`` (browsers send one with both; bots and SDKs need not) must be the service's
  own (the allowed Host's origin) or listed in ``STREAM_ALLOWED_ORIGINS`` (``*``: any;
  unset: ``CORS_ALLOWED_ORIGINS``, the pages the operator named for the API), else 403.
  ``null`` (a sandboxed frame, a local file) is never the service's own.

The REST API keeps its own CORS rules (any origin by default): it answers public data and
holds nothing for a client.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http.request import split_domain_port, validate_host

# What a refusal quotes of a client's header: enough to recognise it, never all of it.
QUOTED_CHARS = 80


def header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key == name:
            return value.decode("latin-1")
    return None


def request_host(headers: Iterable[tuple[bytes, bytes]]) -> str:
    """The host a request names, as Django's ``get_host()`` reads it ("" when none)."""
    headers = list(headers)
    if settings.USE_X_FORWARDED_HOST:
        forwarded = header(headers, b"x-forwarded-host")
        if forwarded is not None:
            return forwarded
    return header(headers, b"host") or ""


def host_allowed(host: str) -> bool:
    domain, _ = split_domain_port(host)
    return bool(domain) and validate_host(domain, settings.STREAM_ALLOWED_HOSTS)


def origin_allowed(origin: str | None, host: str) -> bool:
    """Whether a browser page at ``origin`` may use a surface reached at ``host`` (an
    allowed one): no origin (not a browser), the same origin, or one allowed by name."""
    if origin is None:
        return True
    allowed = settings.STREAM_ALLOWED_ORIGINS or settings.CORS_ALLOWED_ORIGINS
    if "*" in allowed or origin.rstrip("/") in [o.rstrip("/") for o in allowed]:
        return True
    try:
        url = urlsplit(origin)
    except ValueError:
        return False
    return url.scheme in ("http", "https") and bool(url.netloc) \
        and url.netloc.lower() == host.lower()


def refusal(scope: dict[str, Any]) -> tuple[int, str] | None:
    """Why a WebSocket handshake or an ``/mcp`` request is refused (status, detail), or
    None to go on."""
    headers = scope.get("headers") or ()
    host = request_host(headers)
    if not host_allowed(host):
        return 400, "Invalid Host header"
    origin = header(headers, b"origin")
    if not origin_allowed(origin, host):
        return 403, f"Origin not allowed: {(origin or '')[:QUOTED_CHARS]}"
    return None
