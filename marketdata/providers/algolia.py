"""The primary search provider: an Algolia application holding a securities index.

Why plain REST and not the algoliasearch client: the service already has one upstream
client (pooling, timeouts, retries, circuit breaker, host map, sandbox transport, logs);
Algolia's documented ``GET /1/indexes/{index}`` search takes its parameters in the query
string (arrays as comma lists or URL-encoded JSON arrays), so one GET is all we need.

The API key travels only in the ``X-Algolia-API-Key`` header: the upstream client logs the
path without the query string and never logs headers, and no error message built here
carries the key or the upstream body.

Hits look like ``{name, symbol, exchangeShortName, type, objectID}`` with ``type`` one of
``stock``, ``etf``, ``trust``; they become SearchResult dicts ``{name, symbol, exchange,
type}``, and :func:`securities` (the ``algolia`` fetcher of ``security_search``) makes them
a :class:`marketdata.records.search.SecurityMatches`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import orjson
from django.conf import settings

from marketdata.errors import MarketDataError, NotServed, UpstreamError
from marketdata.formatting import text
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.logs import get_logger
from marketdata.providers.base import Provider
from marketdata.providers.registry import get_provider
from marketdata.providers.yahoo.search import query_key
from marketdata.records.search import SECURITY_TYPES, Security, SecurityMatches

log = get_logger("marketdata.providers.algolia")

# A fallback exists (Yahoo), so fail fast: short timeouts, one retry.
PROVIDER = ProviderConfig(name="algolia", display_name="Search provider (Algolia)",
                          connect_timeout=2.0, read_timeout=4.0, max_attempts=2,
                          hosts=("*.algolia.net",))

ATTRIBUTES = ("name", "symbol", "exchangeShortName", "type")
_APP_ID = re.compile(r"^[A-Za-z0-9]{1,32}$")


def search_url(app_id: str, index: str) -> str:
    """``https://{APP_ID}-dsn.algolia.net/1/indexes/{index}`` (the DSN host serves search)."""
    if not _APP_ID.match(app_id or ""):
        # An operator typo must never change the host we talk to.
        raise PROVIDER.bad_answer("is misconfigured (SEARCH_APP_ID is not an application id)")
    if not index:
        raise PROVIDER.bad_answer("is misconfigured (SEARCH_INDEX is empty)")
    return f"https://{app_id.lower()}-dsn.algolia.net/1/indexes/{quote(index, safe='')}"


def search_params(query: str, hits: int, security_type: str | None) -> dict[str, str]:
    """Query-string parameters of the GET search (arrays as Algolia documents them)."""
    params = {"query": query, "hitsPerPage": str(hits),
              "attributesToRetrieve": ",".join(ATTRIBUTES)}
    if security_type:
        params["facetFilters"] = orjson.dumps([f"type:{security_type}"]).decode()
    return params


def parse_hits(payload: Any, hits: int | None = None,
               security_type: str | None = None) -> list[dict[str, str]]:
    """Algolia search body -> SearchResult dicts, in Algolia's ranking order.

    Hits missing a symbol, name or exchange, or with a type outside stock/etf/trust, are
    left out (every SearchResult field is required); the type filter is re-applied and the
    list capped at ``hits`` so a misbehaving index can never return more than was asked.
    """
    rows = payload.get("hits") if isinstance(payload, dict) else None
    if not isinstance(rows, list):
        raise PROVIDER.bad_answer("returned a body without a 'hits' list")
    out: list[dict[str, str]] = []
    for hit in rows:
        if not isinstance(hit, dict):
            continue
        symbol, name = text(hit.get("symbol")), text(hit.get("name"))
        exchange, kind = text(hit.get("exchangeShortName")), text(hit.get("type"))
        kind = kind.lower() if kind else None
        if not (symbol and name and exchange) or kind not in SECURITY_TYPES:
            continue
        if security_type and kind != security_type:
            continue
        out.append({"name": name, "symbol": symbol, "exchange": exchange, "type": kind})
        if hits is not None and len(out) >= hits:
            break
    return out


class AlgoliaProvider(Provider):
    """The search application: id, key and index read once from settings; the key goes
    only in a header. Any 4xx (revoked key, unknown index, bad parameter) is a 502, which
    sends the caller to the fallback; the body is not echoed (it is the provider's)."""

    config = PROVIDER

    def load_credentials(self) -> Mapping[str, Any]:
        return {"app_id": settings.SEARCH_APP_ID, "api_key": settings.SEARCH_API_KEY,
                "index": settings.SEARCH_INDEX}

    def authenticate(self, params: dict[str, Any], headers: dict[str, str]) -> None:
        headers["X-Algolia-Application-Id"] = self.credentials["app_id"]
        headers["X-Algolia-API-Key"] = self.credentials["api_key"]

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        if response.status >= 400:
            return PROVIDER.bad_answer(f"answered HTTP {response.status}", response.status)
        return None

    def search(self, query: str, hits: int,
               security_type: str | None) -> list[dict[str, str]]:
        url = search_url(self.credentials["app_id"], self.credentials["index"])
        payload = self.get_json("search", url, search_params(query, hits, security_type))
        return parse_hits(payload, hits, security_type)


def search_securities(query: str, hits: int,
                      security_type: str | None = None) -> list[dict[str, str]]:
    """Securities matching ``query`` (already normalised), through the search cache.

    Raises an UpstreamError (502/503/504/429, provider ``algolia``) when the provider
    cannot answer; the caller falls back to the secondary provider.
    """
    provider: AlgoliaProvider = get_provider(PROVIDER.name)
    return provider.cached("search", {"q": query_key(query), "hits": hits,
                                      "type": security_type or "all"},
                           lambda: provider.search(query, hits, security_type), "search",
                           group="search")


def securities(query: str, hits: int, security_type: str | None = None, *,
               use_primary: bool = True) -> SecurityMatches:
    """The ``security_search`` fetcher: :func:`search_securities` as a record. Not asked
    (NotServed) when the caller wants the secondary source; a failure is logged as a
    WARNING before the capability falls back (the operator should know the index fails)."""
    if not use_primary:
        raise NotServed("the caller asked for the secondary search provider")
    try:
        found = search_securities(query, hits, security_type)
    except UpstreamError as exc:
        log.warning("primary search provider failed; falling back to the secondary",
                    provider=PROVIDER.name, fallback="yahoo", reason=exc.detail,
                    code=exc.code, upstream_status=exc.upstream_status)
        raise
    return SecurityMatches([Security(**row) for row in found], PROVIDER.name)
