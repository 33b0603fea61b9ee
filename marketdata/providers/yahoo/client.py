"""Yahoo Finance on the provider contract: the crumb as auth hook, Yahoo's error
conventions as the status mapping.

The endpoint modules (chart, quote, quoteSummary, screener, sectors, search, ...) call
:func:`get_json` with their endpoint name; each endpoint has its own circuit breaker in the
upstream client, so a failing sector JSON never refuses chart calls.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from marketdata.errors import UpstreamBadResponse
from marketdata.http import UpstreamClient, UpstreamResponse
from marketdata.providers import yahoo
from marketdata.providers.base import Provider
from marketdata.providers.registry import get_provider
from marketdata.providers.yahoo.auth import Credentials, YahooAuth


def yahoo_error_description(payload: Any) -> str | None:
    """Yahoo wraps errors as ``{<root>: {result: null, error: {code, description}}}``."""
    if isinstance(payload, dict):
        for body in payload.values():
            if isinstance(body, dict) and isinstance(body.get("error"), dict):
                error = body["error"]
                return str(error.get("description") or error.get("code") or "error")
    return None


def finance_result(payload: Any, what: str) -> dict[str, Any]:
    """``finance.result[0]`` of Yahoo's ``{finance: {result: [...], error}}`` envelope (the
    screener, the calendars); no ``finance`` object, an ``error`` or no result object is an
    unusable answer (502) naming ``what`` answered."""
    finance = payload.get("finance") if isinstance(payload, dict) else None
    if not isinstance(finance, dict):
        raise UpstreamBadResponse("yahoo", f"Yahoo Finance {what} answer has no 'finance' "
                                           "object")
    if finance.get("error"):
        raise UpstreamBadResponse("yahoo", f"Yahoo Finance {what} error: "
                                           f"{yahoo_error_description(payload)}")
    results = finance.get("result")
    if not isinstance(results, list) or not results or not isinstance(results[0], dict):
        raise UpstreamBadResponse("yahoo", f"Yahoo Finance {what} answer has no result")
    return results[0]


class YahooProvider(Provider):
    """Cookie + crumb auth (kept until Yahoo rejects it, then renewed once by one thread)."""

    config = yahoo.PROVIDER

    def __init__(self, client: UpstreamClient) -> None:
        super().__init__(client)
        # The crumb belongs to the client's cookie jar, so it lives as long as the client.
        self.auth = get_auth(client)

    def authenticate(self, params: dict[str, Any], headers: dict[str, str]) -> Credentials:
        credentials = self.auth.current()
        params["crumb"] = credentials.crumb
        return credentials

    def auth_rejected(self, response: UpstreamResponse) -> bool:
        if response.status == 401:
            return True
        return response.status in (400, 403) and "invalid crumb" in response.text.lower()

    def refresh_auth(self, token: Credentials | None) -> None:
        self.auth.refresh(seen_generation=token.generation if token else None)

    def not_found_detail(self, response: UpstreamResponse) -> str | None:
        try:
            return yahoo_error_description(response.json())
        except UpstreamBadResponse:
            return None


def yahoo_provider() -> YahooProvider:
    return get_provider("yahoo")


def _client() -> UpstreamClient:
    return yahoo_provider().client


_auth_lock = threading.Lock()


def get_auth(client: UpstreamClient) -> YahooAuth:
    """The auth state of a client (and its cookie jar), created once: two auth objects for
    one client would each make their own cookie + crumb handshake."""
    auth = getattr(client, "_yahoo_auth", None)
    if auth is None:
        with _auth_lock:
            auth = getattr(client, "_yahoo_auth", None)
            if auth is None:
                auth = YahooAuth(client)
                client._yahoo_auth = auth  # type: ignore[attr-defined]
    return auth


def get_json(endpoint: str, url: str, params: Mapping[str, Any] | None = None, *,
             crumb: bool = True, not_found: str | None = "Symbol not found") -> Any:
    """GET a Yahoo JSON endpoint and return the decoded body.

    With ``crumb``, the current crumb is added and a rejected crumb is refreshed once.
    404 -> NotFound(``not_found``, or Yahoo's own description when it is None); other
    4xx -> 502.
    """
    return yahoo_provider().get_json(endpoint, url, params, auth=crumb, not_found=not_found)
