"""Calls to Yahoo's JSON APIs: crumb handling and Yahoo's error conventions in one place."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.http import UpstreamClient, UpstreamResponse, get_client
from marketdata.providers import yahoo
from marketdata.providers.yahoo.auth import YahooAuth


def _client() -> UpstreamClient:
    client = get_client()
    client.register(yahoo.PROVIDER)
    return client


_auth_lock = threading.Lock()


def get_auth(client: UpstreamClient) -> YahooAuth:
    """The auth state belongs to the client (and its cookie jar). Created once under a lock:
    two auth objects for one client would each make their own cookie + crumb handshake."""
    auth = getattr(client, "_yahoo_auth", None)
    if auth is None:
        with _auth_lock:
            auth = getattr(client, "_yahoo_auth", None)
            if auth is None:
                auth = YahooAuth(client)
                client._yahoo_auth = auth  # type: ignore[attr-defined]
    return auth


def _crumb_rejected(response: UpstreamResponse) -> bool:
    if response.status == 401:
        return True
    return response.status in (400, 403) and "invalid crumb" in response.text.lower()


def yahoo_error_description(payload: Any) -> str | None:
    """Yahoo wraps errors as ``{<root>: {result: null, error: {code, description}}}``."""
    if isinstance(payload, dict):
        for body in payload.values():
            if isinstance(body, dict) and isinstance(body.get("error"), dict):
                error = body["error"]
                return str(error.get("description") or error.get("code") or "error")
    return None


def get_json(endpoint: str, url: str, params: Mapping[str, Any] | None = None, *,
             crumb: bool = True, not_found: str = "Symbol not found") -> Any:
    """GET a Yahoo JSON endpoint and return the decoded body.

    With ``crumb``, the current crumb is added and a rejected crumb is refreshed once.
    404 -> NotFound(``not_found`` or Yahoo's own description); other non-2xx -> 502.
    """
    client = _client()
    query = dict(params or {})
    if crumb:
        auth = get_auth(client)
        credentials = auth.current()
        query["crumb"] = credentials.crumb
        response = client.request("yahoo", endpoint, url, params=query)
        if _crumb_rejected(response):
            credentials = auth.refresh(seen_generation=credentials.generation)
            query["crumb"] = credentials.crumb
            response = client.request("yahoo", endpoint, url, params=query)
    else:
        response = client.request("yahoo", endpoint, url, params=query)

    if response.status == 404:
        description = None
        try:
            description = yahoo_error_description(response.json())
        except UpstreamBadResponse:
            pass
        raise NotFound(not_found if not_found else (description or "Not found"))
    if response.status >= 400:
        raise UpstreamBadResponse("yahoo", f"Yahoo Finance answered HTTP {response.status} "
                                  f"for {endpoint}", response.status)
    return response.json()
