"""The explorer page (``/explorer``, and ``/`` for a browser) and its versioned assets.

The page is static HTML plus a script that reads the service's own HTTP API from the
browser (search, quote, chart, indicators, the quote stream, backtests, option greeks and
the volatility surface, macro series), as any client would: it holds no data of its own
and never reaches a provider, so what it shows is what the API answers, errors included.
Its Content-Security-Policy keeps every request on this origin (no CDN, no logo host).
"""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

import marketdata
from apps.core import encoding
from apps.core.assets import SAFE_METHODS, method_not_allowed
from apps.core.routing import route
from apps.core.tabular import qualities
from apps.explorer import assets

# Plotly injects its own <style> elements and draws with inline styles: 'unsafe-inline'
# for styles only. Everything else, fetches and the event stream included, is this origin.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
JSON_AND_HTML = ("application/json", "text/html", "application/xhtml+xml")


def prefers_html(accept: str | None) -> bool:
    """Whether ``Accept`` ranks an HTML page strictly above JSON (q-values as the API's own
    negotiation reads them, :func:`apps.core.tabular.qualities`): a browser's navigation
    does (``text/html,...,*/*;q=0.8``); no header, ``*/*``, ``application/json`` and a tie
    do not, so an API client keeps the JSON index whatever else it lists."""
    json, *html = qualities(accept or "", JSON_AND_HTML)
    return max(html) > json


@lru_cache(maxsize=1)
def _page(upstream: str, asset_urls: tuple[tuple[str, str], ...]) -> encoding.Precomputed:
    """The page's bytes and encodings, for one data source and one set of asset digests
    (fixed for a process's life: rendered once)."""
    context = {
        "title": settings.SPECTACULAR_SETTINGS["TITLE"],
        "version": marketdata.__version__,
        "upstream": upstream,
        "assets": dict(asset_urls),
    }
    body = render_to_string("explorer/index.html", context).encode()
    return encoding.Precomputed.of(body, "text/html", encoding.ENTRY_QUALITY)


def page_response(request: HttpRequest) -> HttpResponse:
    """The explorer page (``/explorer``, and ``/`` when the client prefers HTML)."""
    if settings.DEBUG:
        _page.cache_clear()  # edits to the template and the assets show at once
    page = _page(settings.MARKETDATA_UPSTREAM, tuple(assets.urls().items()))
    response = HttpResponse(page.body, content_type="text/html; charset=utf-8")
    # Compressed and tagged by HttpCachingMiddleware like the API's answers; "no-cache" by
    # default there (the page names the current assets' digests).
    response.representations = page  # type: ignore[attr-defined]
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return response


@route("explorer", name="explorer")
def explorer(request: HttpRequest) -> HttpResponse:
    """``GET /explorer``: the page, whatever the client's ``Accept``."""
    if request.method not in SAFE_METHODS:
        return method_not_allowed(request)
    return page_response(request)


@route("explorer/assets/<str:digest>/<str:name>", name="explorer-asset")
def asset(request: HttpRequest, digest: str, name: str) -> HttpResponse:
    """``GET /explorer/assets/<digest>/<name>``: one of the page's files
    (:meth:`apps.core.assets.Assets.response`)."""
    return assets.ASSETS.response(request, digest, name)
