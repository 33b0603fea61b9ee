"""The provider contract: what every upstream module is built on.

A provider is one upstream (Yahoo Finance, the search index, FRED, ...). Its subclass of
:class:`Provider` says, once:

- ``config``: hosts, timeouts, retry policy, breaker policy, concurrency cap
  (:class:`marketdata.http.ProviderConfig`);
- ``load_credentials()``: keys and ids read from settings once, when the provider is built
  (the registry rebuilds providers when the client is reset or a setting changes);
- an auth hook: ``authenticate()`` adds what a call needs (a crumb, a key header), and
  ``auth_rejected()`` + ``refresh_auth()`` let a rejected credential be renewed once;
- one mapping of upstream statuses to domain errors (``error_for``): 404 -> NotFound,
  other 4xx -> 502 (the client already maps 5xx, 429, timeouts and connection errors).

Typed fetches per upstream endpoint are small functions in the provider's module or
package: build the params, go through :meth:`Provider.cached` (cache-through with the
provider's name), call :meth:`Provider.get_json` / :meth:`Provider.get`, parse into a
record. Adding a provider is one module plus one entry in
:mod:`marketdata.providers.registry`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

from marketdata.cache import TTLPolicy, fetch_through
from marketdata.errors import MarketDataError, NotFound, UpstreamBadResponse
from marketdata.http import ProviderConfig, UpstreamClient, UpstreamResponse

T = TypeVar("T")


class Provider:
    """One upstream provider bound to the process's upstream client."""

    config: ClassVar[ProviderConfig]

    def __init__(self, client: UpstreamClient) -> None:
        self.client = client
        client.register(self.config)
        self.credentials: Mapping[str, Any] = self.load_credentials()

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def display_name(self) -> str:
        return self.config.display_name

    # -- hooks a provider may override ----------------------------------------------------
    def load_credentials(self) -> Mapping[str, Any]:
        """Keys and ids from settings, read once (never logged, never echoed)."""
        return {}

    def authenticate(self, params: dict[str, Any], headers: dict[str, str]) -> Any:
        """Add credentials to a call in place; returns a token identifying them (passed
        back to :meth:`refresh_auth` when they are rejected)."""
        return None

    def auth_rejected(self, response: UpstreamResponse) -> bool:
        """Does this answer say the credentials were refused (and worth one renewal)?"""
        return False

    def refresh_auth(self, token: Any) -> None:
        """Renew credentials that ``token`` identified (once per rejection)."""

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        """The domain error an answer means, or None when it is usable data.

        404 -> NotFound (``not_found`` or the provider's own words via
        :meth:`not_found_detail`); any other 4xx -> UpstreamBadResponse (502).
        """
        if response.status == 404:
            return NotFound(not_found or self.not_found_detail(response) or "Not found")
        if response.status >= 400:
            return UpstreamBadResponse(
                self.name, f"{self.display_name} answered HTTP {response.status} for "
                f"{endpoint}", response.status)
        return None

    def not_found_detail(self, response: UpstreamResponse) -> str | None:
        return None

    # -- calls -----------------------------------------------------------------------------
    def get(self, endpoint: str, url: str, params: Mapping[str, Any] | None = None, *,
            headers: Mapping[str, str] | None = None, auth: bool = True,
            not_found: str | None = None, **kwargs: Any) -> UpstreamResponse:
        """One call through the client with the auth hook and the status mapping applied.

        Raises NotFound / UpstreamError per :meth:`error_for`; returns a usable answer.
        """
        response = self.call(endpoint, url, params, headers=headers, auth=auth, **kwargs)
        error = self.error_for(response, endpoint, not_found)
        if error is not None:
            raise error
        return response

    def get_json(self, endpoint: str, url: str, params: Mapping[str, Any] | None = None,
                 **kwargs: Any) -> Any:
        """:meth:`get` and decode the JSON body (a body that is not JSON is a 502)."""
        return self.get(endpoint, url, params, **kwargs).json()

    def call(self, endpoint: str, url: str, params: Mapping[str, Any] | None = None, *,
             headers: Mapping[str, str] | None = None, auth: bool = True,
             **kwargs: Any) -> UpstreamResponse:
        """The raw answer (any 2xx-4xx), credentials added and renewed once if refused."""
        query = dict(params or {})
        extra = dict(headers or {})
        token = self.authenticate(query, extra) if auth else None
        response = self.client.request(self.name, endpoint, url, params=query,
                                       headers=extra or None, **kwargs)
        if auth and self.auth_rejected(response):
            self.refresh_auth(token)
            query, extra = dict(params or {}), dict(headers or {})
            self.authenticate(query, extra)
            response = self.client.request(self.name, endpoint, url, params=query,
                                           headers=extra or None, **kwargs)
        return response

    def cached(self, call: str, params: Mapping[str, Any], fetch: Callable[[], T],
               policy: str | TTLPolicy, group: str | None = None) -> T:
        """Cache-through under this provider's name (see :func:`marketdata.cache.fetch_through`)."""
        return fetch_through(self.name, call, params, fetch, policy, group=group)
