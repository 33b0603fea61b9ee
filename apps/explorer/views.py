"""The explorer page (``/explorer``, and ``/`` for a browser) and its versioned assets.

The page is static HTML plus a script that reads the service's own HTTP API from the
browser (search, quote, chart, indicators, the quote stream, backtests, macro series), as
any client would: it holds no data of its own and never reaches a provider, so what it
shows is what the API answers, errors included. Its Content-Security-Policy keeps every
request on this origin (no CDN, no logo host).
"""

from __future__ import annotations

import threading

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.cache import patch_vary_headers

import marketdata
from apps.core import encoding
from apps.core.errors import page_error_body
from apps.explorer import assets

# Plotly injects its own <style> elements and draws with inline styles: 'unsafe-inline'
# for styles only. Everything else, fetches and the event stream included, is this origin.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
IMMUTABLE = "public, max-age=31536000, immutable"
SAFE_METHODS = ("GET", "HEAD")
HTML_TYPES = ("text/html", "application/xhtml+xml")


def _quality(prefs: dict[str, float], media_type: str) -> float:
    """``media_type``'s q in a parsed ``Accept``: exact, then ``type/*``, then ``*/*``."""
    if media_type in prefs:
        return prefs[media_type]
    major = media_type.split("/", 1)[0]
    return prefs.get(f"{major}/*", prefs.get("*/*", 0.0))


def prefers_html(accept: str | None) -> bool:
    """Whether ``Accept`` ranks an HTML page above JSON: a browser's navigation does
    (``text/html,...,*/*;q=0.8``); no header, ``*/*``, ``application/json`` and a tie do not,
    so an API client keeps the JSON index whatever else it lists."""
    if not accept:
        return False
    prefs = encoding.preferences(accept)
    html = max(_quality(prefs, media_type) for media_type in HTML_TYPES)
    return html > 0 and html > _quality(prefs, "application/json")


_rendered: dict[tuple[str, ...], encoding.Precomputed] = {}
_render_lock = threading.Lock()


def _render() -> encoding.Precomputed:
    """The page's bytes and encodings; rendered once per process (its context is fixed at
    start-up: the data source and the assets' digests), every time with DEBUG on."""
    context = {
        "title": settings.SPECTACULAR_SETTINGS["TITLE"],
        "version": marketdata.__version__,
        "upstream": settings.MARKETDATA_UPSTREAM,
        "assets": assets.urls(),
    }
    key = (context["upstream"], *context["assets"].values())
    page = None if settings.DEBUG else _rendered.get(key)
    if page is None:
        body = render_to_string("explorer/index.html", context).encode()
        page = encoding.Precomputed.of(body, "text/html", encoding.ENTRY_QUALITY)
        with _render_lock:
            _rendered.clear()
            _rendered[key] = page
    return page


def page_response(request: HttpRequest) -> HttpResponse:
    """The explorer page (``/explorer``, and ``/`` when the client prefers HTML)."""
    page = _render()
    response = HttpResponse(page.body, content_type="text/html; charset=utf-8")
    # Compressed and tagged by HttpCachingMiddleware like the API's answers; "no-cache" by
    # default there (the page names the current assets' digests).
    response.representations = page  # type: ignore[attr-defined]
    response["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return response


def _method_not_allowed(request: HttpRequest) -> HttpResponse:
    response = JsonResponse(page_error_body(request.path, "Method not allowed", 405),
                            status=405)
    response["Allow"] = "GET, HEAD, OPTIONS"
    return response


def explorer(request: HttpRequest) -> HttpResponse:
    """``GET /explorer``: the page, whatever the client's ``Accept``."""
    if request.method not in SAFE_METHODS:
        return _method_not_allowed(request)
    return page_response(request)


def asset(request: HttpRequest, digest: str, name: str) -> HttpResponse:
    """``GET /explorer/assets/<digest>/<name>``: one of the page's files. The current
    digest is cached for a year; another one (a page rendered before a restart that
    changed the file) still gets today's bytes, revalidated instead of kept."""
    if request.method not in SAFE_METHODS:
        return _method_not_allowed(request)
    try:
        found = assets.get(name)
    except KeyError:
        return JsonResponse(page_error_body(request.path, "Not Found", 404), status=404)
    response = HttpResponse(found.body, content_type=found.content_type)
    response.representations = found.representations  # type: ignore[attr-defined]
    response["Cache-Control"] = IMMUTABLE if digest == found.digest else "no-cache"
    return response


def vary_on_accept(response: HttpResponse) -> HttpResponse:
    """``/`` answers HTML or JSON by ``Accept``: caches must key on it."""
    patch_vary_headers(response, ("Accept",))
    return response
