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

A keyed provider (:class:`KeyedProvider`) names its key's setting and how the key is sent;
the base makes the rest the same for every keyed provider: no key, no call; a refused key
(:class:`~marketdata.errors.CredentialsRejected`) is not sent again for
``KEY_REFUSAL_MEMORY_SECONDS``, so a bad key costs one call, not one per request, and the
capability's next source answers meanwhile.

Fetchers, one per capability a provider serves, are functions in the provider's module or
package: map the query to the upstream's parameters, go through :meth:`Provider.cached`
(cache-through with the provider's name), call :meth:`Provider.get_json` /
:meth:`Provider.get`, transform the answer into the capability's record
(:mod:`marketdata.records`). Unusable answers are ``PROVIDER.bad_answer(...)`` (502 in the
provider's words). Adding a provider is one module, one entry in
:mod:`marketdata.providers.registry` and one ``Source`` in each capability's declaration
(its function in :mod:`marketdata.capabilities`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

from django.conf import settings

from marketdata.cache import TTLPolicy, fetch_through
from marketdata.errors import CredentialsRejected, MarketDataError, NotFound, UpstreamBadResponse
from marketdata.http import ProviderConfig, UpstreamClient, UpstreamResponse

T = TypeVar("T")
# How long a refused key is not sent again (seconds).
KEY_REFUSAL_MEMORY_SECONDS = 600


class Provider:
    """One upstream provider bound to the process's upstream client."""

    config: ClassVar[ProviderConfig]

    def __init__(self, client: UpstreamClient) -> None:
        self.client = client
        client.register(self.config)
        self.credentials: Mapping[str, Any] = self.load_credentials()
        # Pace calls (GDELT's and EDGAR's asked-for rates) only where a real upstream
        # answers: the in-process simulator has none to spare.
        self.paced = not client.in_process

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
            return self.status_error(response, endpoint)
        return None

    def status_error(self, response: UpstreamResponse, endpoint: str) -> UpstreamBadResponse:
        """The 502 for an HTTP status that means nothing more specific."""
        return self.config.bad_answer(f"answered HTTP {response.status} for {endpoint}",
                                      response.status)

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


class KeyedProvider(Provider):
    """A provider that needs a key from settings (``key_setting``).

    Subclasses say how the key travels (:meth:`authenticate`, from ``self.api_key``) and
    which answers refuse it (their :meth:`error_for` returns :meth:`key_rejected` for a
    status, :meth:`refusal_in_body` for a 200 whose body refuses). The base makes every
    keyed call the same: without a key nothing is sent
    (CredentialsRejected at once, so the capability's next source answers); a refused key
    is remembered for ``KEY_REFUSAL_MEMORY_SECONDS`` and not sent meanwhile. Messages name
    the setting, never the key.
    """

    key_setting: ClassVar[str]
    # The clock of the refusal memory (tests replace it).
    monotonic = staticmethod(time.monotonic)

    def __init__(self, client: UpstreamClient) -> None:
        super().__init__(client)
        self._refused_at: float | None = None
        self._refused_lock = threading.Lock()

    def load_credentials(self) -> Mapping[str, Any]:
        return {"api_key": str(getattr(settings, self.key_setting, "") or "").strip()}

    @property
    def api_key(self) -> str:
        return str(self.credentials.get("api_key") or "")

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        """401 and 403 refuse the key; otherwise as any provider (404 not found, other 4xx
        and 5xx a 502)."""
        if response.status in (401, 403):
            return self.key_rejected(response.status)
        return super().error_for(response, endpoint, not_found)

    @classmethod
    def key_rejected(cls, status: int | None, detail: str | None = None, *,
                     remember: bool = True) -> CredentialsRejected:
        """The error for a refused key (``detail``: what the refusal says beyond that).
        ``remember=False``: refused for this call only (a plan without one endpoint), so
        the key keeps being sent for the others. A class method: parsers use it too."""
        text = f"{cls.config.display_name} refused the API key ({cls.key_setting})"
        error = CredentialsRejected(cls.config.name, f"{text} {detail}" if detail else text,
                                    status)
        error.remember = remember
        return error

    @classmethod
    def refusal_in_body(cls, payload: Any) -> CredentialsRejected | None:
        """The refusal a decoded 200 body carries (some upstreams refuse a key with a 200),
        or None."""
        return None

    def key_refused_recently(self) -> bool:
        with self._refused_lock:
            refused = self._refused_at
            if refused is not None and self.monotonic() - refused >= KEY_REFUSAL_MEMORY_SECONDS:
                self._refused_at = refused = None
        return refused is not None

    def remember_refusal(self) -> None:
        with self._refused_lock:
            self._refused_at = self.monotonic()

    def get(self, endpoint: str, url: str, params: Mapping[str, Any] | None = None, *,
            headers: Mapping[str, str] | None = None, auth: bool = True,
            not_found: str | None = None, **kwargs: Any) -> UpstreamResponse:
        if auth:
            if not self.api_key:
                raise CredentialsRejected(self.name, f"{self.key_setting} is not set", None)
            if self.key_refused_recently():
                raise self.key_rejected(None, "recently; not sent again yet")
        try:
            return super().get(endpoint, url, params, headers=headers, auth=auth,
                               not_found=not_found, **kwargs)
        except CredentialsRejected as error:
            if auth and error.remember:
                self.remember_refusal()
            raise

    def get_json(self, endpoint: str, url: str, params: Mapping[str, Any] | None = None,
                 **kwargs: Any) -> Any:
        """:meth:`Provider.get_json`, and a refusal in a 200 body treated (and remembered)
        as one sent with a status."""
        payload = super().get_json(endpoint, url, params, **kwargs)
        error = self.refusal_in_body(payload) if kwargs.get("auth", True) else None
        if error is not None:
            if error.remember:
                self.remember_refusal()
            raise error
        return payload
