"""GraphiQL's page (apps/graphql/graphiql.py) and its assets through Django
(``/graphql/assets/<digest>/<name>``, apps.core.assets): the page's headers and policy,
every URL it names served on this origin with the right type, immutable and compressed;
the vendored files are the npm builds the README names. The page in a real browser:
tests/integration/test_graphiql_browser.py."""

from __future__ import annotations

import gzip
import html
import re
from urllib.parse import urljoin, urlsplit

import brotli
import pytest
from graphql import parse

from apps.core import assets as core_assets
from apps.core import encoding
from apps.graphql import graphiql

IMMUTABLE = "public, max-age=31536000, immutable"
VENDORED = ("graphiql.min.js", "graphiql.min.css", "react.production.min.js",
            "react-dom.production.min.js")


def _headers() -> dict[str, str]:
    _body, headers = graphiql.page()
    names = [name for name, _value in headers]
    assert len(names) == len(set(names)) and all(name == name.lower() for name in names)
    return {name.decode(): value.decode() for name, value in headers}


def _html() -> str:
    body, _headers = graphiql.page()
    return body.decode("utf-8")


def _directives() -> dict[str, list[str]]:
    policy = _headers()["content-security-policy"]
    return {name: sources for name, *sources in
            (part.split() for part in policy.split(";") if part.strip())}


def _urls(page: str) -> list[str]:
    return re.findall(r'(?:src|href)="([^"]*)"', page)


def test_the_page_is_utf8_html_revalidated_and_not_sniffed():
    headers = _headers()
    assert headers["content-type"] == "text/html; charset=utf-8"
    assert headers["cache-control"] == "no-cache"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"
    assert headers["vary"] == "Accept"
    page = _html()
    assert page.startswith("<!doctype html>") and '<meta charset="utf-8">' in page
    assert "· GraphiQL</title>" in page


def test_the_policy_keeps_every_request_on_this_origin():
    directives = _directives()
    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"] == ["'self'"]  # no inline script, no eval
    assert directives["style-src"] == ["'self'"]  # GraphiQL needs no inline style
    assert directives["connect-src"] == ["'self'"]  # fetch, and ws:/wss: to this host
    assert directives["img-src"] == ["'self'", "data:"]
    assert directives["font-src"] == ["'self'", "data:"]  # GraphiQL's fonts are data: URIs
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["object-src"] == ["'none'"] and directives["base-uri"] == ["'none'"]
    for sources in directives.values():
        for source in sources:
            assert source in ("'self'", "'none'", "data:"), source  # no host, no scheme


def test_the_page_has_no_inline_script_or_style_and_names_no_other_host():
    page = _html()
    assert not re.search(r"<script(?![^>]*\bsrc=)", page)
    assert "<style" not in page and " style=" not in page
    for url in _urls(page):
        assert not urlsplit(url).netloc, url
        assert url.startswith("/graphql/assets/") or url.startswith("data:"), url


def test_the_default_query_and_the_endpoint_are_in_the_page():
    page = _html()
    found = re.search(r'<div id="graphiql" data-endpoint="([^"]*)" '
                      r'data-default-query="([^"]*)">', page)
    assert found
    assert found.group(1) == "/graphql"
    query = html.unescape(found.group(2))
    assert query == graphiql.DEFAULT_QUERY
    assert 'ticker(symbol: "AAPL")' in query and "regularMarketPrice" in query
    parse(query)  # a valid GraphQL document


@pytest.mark.parametrize("page_url", ["http://testserver/graphql",
                                      "http://testserver/graphql/"])
def test_the_page_urls_resolve_the_same_with_or_without_a_slash(page_url):
    """The endpoint answers at both paths; the assets are the same files from either."""
    assets = [urljoin(page_url, url) for url in _urls(_html()) if not url.startswith("data:")]
    assert sorted(urlsplit(url).path.rsplit("/", 1)[1] for url in assets) == \
        sorted(graphiql.SOURCES)
    for url in assets:
        assert urlsplit(url).path == f"/graphql/assets/{url.split('/assets/')[1]}"


def test_behind_a_prefix_every_url_starts_with_the_root_path():
    body, _headers = graphiql.page(root_path="/md/")
    page = body.decode()
    urls = [url for url in _urls(page) if not url.startswith("data:")]
    assert len(urls) == len(graphiql.SOURCES)
    assert all(url.startswith("/md/graphql/assets/") for url in urls), urls
    assert 'data-endpoint="/md/graphql"' in page
    assert graphiql.page()[0] != body  # one rendering per prefix


@pytest.mark.parametrize("root_path", ['/x"><script>', "//cdn.example.com", "/a b",
                                       "https://cdn.example.com", "md"])
def test_a_root_path_that_is_not_a_plain_path_is_ignored(root_path):
    assert graphiql.page(root_path=root_path)[0] == graphiql.page()[0]


def test_scripts_load_react_before_graphiql_and_the_bootstrap_last():
    scripts = re.findall(r'<script src="[^"]*/([^"/]+)" defer></script>', _html())
    assert scripts == ["react.production.min.js", "react-dom.production.min.js",
                       "graphiql.min.js", "graphiql-init.js"]


def test_every_asset_in_the_page_is_served_with_its_type_and_cached_for_a_year(client):
    for url in _urls(_html()):
        if url.startswith("data:"):
            continue
        path = urlsplit(url).path
        digest, name = path.split("/")[-2:]
        assert digest == encoding.digest(graphiql.ASSETS.get(name).body)[
            :core_assets.DIGEST_LENGTH]
        response = client.get(path)
        assert response.status_code == 200, path
        expected = "text/css" if name.endswith(".css") else "text/javascript"
        assert response["Content-Type"] == f"{expected}; charset=utf-8"
        assert response["Cache-Control"] == IMMUTABLE
        assert response.content == (graphiql.HERE / name).read_bytes()


@pytest.mark.parametrize("name", sorted(n for n in graphiql.SOURCES
                                        if (graphiql.HERE / n).stat().st_size >=
                                        encoding.MIN_SIZE))
@pytest.mark.parametrize("coding", ["br", "gzip"])
def test_each_asset_is_served_compressed_and_tagged(client, name, coding):
    url = graphiql.ASSETS.get(name).url
    plain = client.get(url)
    assert "Content-Encoding" not in plain
    packed = client.get(url, HTTP_ACCEPT_ENCODING="gzip, br" if coding == "br" else coding)
    assert packed["Content-Encoding"] == coding
    assert "Accept-Encoding" in packed["Vary"]
    assert packed["Cache-Control"] == IMMUTABLE
    unpack = brotli.decompress if coding == "br" else gzip.decompress
    assert unpack(packed.content) == plain.content
    # (the style sheet's fonts are woff2 in base64: it shrinks by a third only)
    assert len(packed.content) < len(plain.content) * 0.7
    assert client.get(url, HTTP_ACCEPT_ENCODING=coding,
                      HTTP_IF_NONE_MATCH=packed["ETag"]).status_code == 304


def test_an_old_digest_still_gets_the_file_revalidated(client):
    response = client.get("/graphql/assets/0000000000000000/graphiql-init.js")
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-cache"
    assert response.content == graphiql.ASSETS.get("graphiql-init.js").body


@pytest.mark.parametrize("path", ["/graphql/assets/x/nothing.js",
                                  "/graphql/assets/x/..%2Fgraphiql.py",
                                  "/graphql/assets/x/LICENSE.react",
                                  "/graphql/assets/x/README.md",
                                  "/graphql/assets/x/graphiql.min.js.map"])
def test_an_unknown_asset_is_a_json_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


def test_a_post_to_an_asset_is_a_json_405(client):
    response = client.post(graphiql.ASSETS.get("graphiql-init.js").url)
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD, OPTIONS"


def test_the_vendored_builds_are_the_ones_the_readme_names():
    readme = (graphiql.HERE / "README.md").read_text()
    for package in ("graphiql@3.9.0", "react@18.3.1", "react-dom@18.3.1"):
        assert package in readme
    for name in VENDORED:
        assert name in readme
    react = (graphiql.HERE / "react.production.min.js").read_bytes()
    react_dom = (graphiql.HERE / "react-dom.production.min.js").read_bytes()
    assert b'"18.3.1"' in react and b'"18.3.1"' in react_dom
    assert react.startswith(b"/**\n * @license React\n * react.production.min.js")
    bundle = (graphiql.HERE / "graphiql.min.js").read_bytes()
    # GraphiQL's UMD wrapper: it reads React and ReactDOM from globals, exports GraphiQL.
    assert b".GraphiQL=t(e.React,e.ReactDOM)" in bundle[:1000]
    assert b"createFetcher" in bundle
    for licence in ("LICENSE.graphiql", "LICENSE.react", "LICENSE.react-dom"):
        assert (graphiql.HERE / licence).read_text().startswith("MIT License")


def test_the_bootstrap_and_the_assets_reach_no_other_host():
    script = graphiql.ASSETS.get("graphiql-init.js").body.decode()
    assert not re.search(r"""["'`](?:https?:|wss?:)?//""", script)
    css = graphiql.ASSETS.get("graphiql.min.css").body.decode()
    for url in re.findall(r"url\(([^)]*)\)", css):
        assert url.strip("'\"").startswith("data:"), url[:60]
    assert "@import" not in css


def test_encodings_are_made_once_per_host_and_prepare_makes_them(settings, tmp_path,
                                                                 monkeypatch):
    from django.apps import apps

    settings.VAR_DIR = tmp_path
    stale = tmp_path / "graphql-assets" / "0123456789abcdef.br"
    stale.parent.mkdir()
    stale.write_bytes(b"an edit ago")
    monkeypatch.setattr(graphiql.ASSETS, "loaded", {})
    apps.get_app_config("graphql_api").prepare()  # what manage.py prepare runs
    assert not stale.exists()
    made = {path.name for path in stale.parent.iterdir()}
    assert made == {f"{graphiql.ASSETS.get(name).digest}.{coding}"
                    for name in graphiql.SOURCES
                    if encoding.compressible(graphiql.SOURCES[name].content_type,
                                             len(graphiql.ASSETS.get(name).body))
                    for coding in encoding.CODINGS}
    first = graphiql.ASSETS.get("graphiql.min.js").representations.encoded
    monkeypatch.setattr(graphiql.ASSETS, "loaded", {})
    monkeypatch.setattr(encoding, "compress", lambda *a, **k: pytest.fail("compressed twice"))
    assert graphiql.ASSETS.get("graphiql.min.js").representations.encoded == first


def test_debug_rereads_the_files_and_the_page(settings):
    settings.DEBUG = True
    assert graphiql.ASSETS.get("graphiql-init.js") is not graphiql.ASSETS.get(
        "graphiql-init.js")
    assert graphiql.page()[0] == graphiql.page()[0]
