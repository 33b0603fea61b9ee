"""GraphiQL, the in-browser IDE of the GraphQL endpoint, for a browser that opens
``/graphql``: :func:`page` is the HTML and its headers, which the endpoint sends to a
``GET`` that prefers HTML.

Everything the page loads is on this origin: GraphiQL 3's UMD bundle and React 18's, as npm
ships them, and our own bootstrap (``graphiql-init.js``, so the page has no inline script),
vendored in ``assets/`` (versions, tarballs and licences: ``assets/README.md``) and served
content-addressed under ``/graphql/assets/<digest>/<name>`` by :mod:`apps.core.assets`
(cached for a year, gzip and brotli made once per host). The Content-Security-Policy keeps
every request here: queries are POSTed to the endpoint as JSON, subscriptions go over a
WebSocket to the same path (``connect-src 'self'`` covers ``ws:``/``wss:`` to this host).

URLs in the page are paths from the root (``/graphql/assets/...``, the endpoint
``/graphql``), so the page works at ``/graphql`` and ``/graphql/`` alike; behind a proxy
that mounts the service under a prefix, the endpoint passes ASGI's ``root_path`` (the
server's ``--root-path``) and every URL starts with it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from html import escape
from pathlib import Path

from django.conf import settings

from apps.core.assets import CSS, JAVASCRIPT, Assets, Source

HERE = Path(__file__).resolve().parent / "assets"
PREFIX = "/graphql/assets"


def _vendored(name: str) -> Source:
    content_type = CSS if name.endswith(".css") else JAVASCRIPT
    return Source(lambda: HERE / name, content_type)


# In the order the page loads them: GraphiQL's bundle reads window.React and
# window.ReactDOM when it runs; the bootstrap needs all three.
SCRIPTS = ("react.production.min.js", "react-dom.production.min.js", "graphiql.min.js",
           "graphiql-init.js")
STYLES = ("graphiql.min.css", "graphiql-page.css")
SOURCES: Mapping[str, Source] = {name: _vendored(name) for name in (*STYLES, *SCRIPTS)}
ASSETS = Assets(PREFIX, "graphql-assets", SOURCES)

ENDPOINT = "/graphql"
DEFAULT_QUERY = """\
# Market data over GraphQL: Ctrl-Space completes,
# Ctrl-Enter runs, Docs lists every field.
{
  ticker(symbol: "AAPL") {
    quote {
      symbol
      regularMarketPrice
    }
  }
}
"""
# GraphiQL renders with class names and React's style properties (CSSOM, which CSP does
# not govern): no 'unsafe-inline' anywhere. Its fonts are data: URIs inside its CSS.
# 'self' in connect-src matches ws: and wss: to this host (CSP level 3).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
ICON = ("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E"
        "%3Crect width='16' height='16' rx='3' fill='%23e10098'/%3E%3C/svg%3E")


def _prefix(root_path: str) -> str:
    """ASGI's ``root_path`` as a URL prefix: a path of plain segments, else none (it comes
    from the server's configuration, but the page must never carry markup from it)."""
    root_path = root_path.rstrip("/")
    return root_path if re.fullmatch(r"(?:/[A-Za-z0-9._~%-]+)*", root_path) else ""


@lru_cache(maxsize=8)
def _render(title: str, prefix: str, asset_urls: tuple[tuple[str, str], ...]) -> bytes:
    urls = {name: prefix + url for name, url in asset_urls}
    styles = "".join(f'  <link rel="stylesheet" href="{escape(urls[name])}">\n'
                     for name in STYLES)
    scripts = "".join(f'  <script src="{escape(urls[name])}" defer></script>\n'
                      for name in SCRIPTS)
    return (
        "<!doctype html>\n"
        '<html lang="en">\n'
        "<head>\n"
        '  <meta charset="utf-8">\n'
        '  <meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"  <title>{escape(title)} · GraphiQL</title>\n"
        f'  <link rel="icon" href="{ICON}">\n'
        f"{styles}{scripts}"
        "</head>\n"
        "<body>\n"
        f'  <div id="graphiql" data-endpoint="{escape(prefix + ENDPOINT)}"'
        f' data-default-query="{escape(DEFAULT_QUERY)}">'
        "<noscript>GraphiQL needs JavaScript; the endpoint itself answers POST "
        f"{escape(prefix + ENDPOINT)} with a JSON body.</noscript></div>\n"
        "</body>\n"
        "</html>\n"
    ).encode()


def headers() -> list[tuple[bytes, bytes]]:
    """The page's response headers (ASGI's raw form, lower-case names)."""
    return [
        (b"content-type", b"text/html; charset=utf-8"),
        (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
        # It names the current assets' digests: always revalidated.
        (b"cache-control", b"no-cache"),
        # /graphql is the page or a JSON answer depending on Accept.
        (b"vary", b"Accept"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
    ]


def page(root_path: str = "") -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """GraphiQL's HTML page (UTF-8) and its response headers, for a browser's ``GET
    /graphql`` (``root_path``: ASGI's, the prefix a proxy mounts the service under; none
    by default). Rendered once per process and prefix (the asset digests are fixed for its
    life); with DEBUG on, on every call, so edits to the assets show."""
    if settings.DEBUG:
        _render.cache_clear()
    asset_urls = tuple((name, ASSETS.get(name).url) for name in SOURCES)
    title = settings.SPECTACULAR_SETTINGS["TITLE"]
    return _render(title, _prefix(root_path), asset_urls), headers()
