"""The explorer page and its assets through Django (apps/explorer): content negotiation at
``/`` both ways, the page's headers and links, the assets' versions, encodings, tags and
errors. The page in a real browser: tests/integration/test_explorer_browser.py."""

from __future__ import annotations

import gzip
import re

import brotli
import pytest
from hypothesis import given
from hypothesis import strategies as st

from apps.core import encoding
from apps.explorer import assets
from apps.explorer.views import prefers_html

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"
FIREFOX = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize("accept", [BROWSER, FIREFOX, "text/html", "text/*",
                                    "application/xhtml+xml", "text/html, application/json;q=0.5"])
def test_a_browser_gets_the_page_at_the_root(client, accept):
    response = client.get("/", HTTP_ACCEPT=accept)
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert b'id="price-chart"' in response.content
    assert "Accept" in response["Vary"]


@pytest.mark.parametrize("accept", [None, "", "*/*", "application/json",
                                    "application/json, text/html",
                                    "text/html;q=0.5, application/json", "text/html;q=0",
                                    "application/*", "text/plain", "garbage;;q=x,,"])
def test_an_api_client_keeps_the_json_index(client, accept):
    extra = {} if accept is None else {"HTTP_ACCEPT": accept}
    response = client.get("/", **extra)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json()["links"]["explorer"] == "/explorer"
    assert "Accept" in response["Vary"]


@given(st.text(max_size=200))
def test_negotiation_never_raises(accept):
    assert prefers_html(accept) in (True, False)


def test_the_explorer_path_is_the_page_whatever_the_accept(client):
    response = client.get("/explorer", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert client.head("/explorer").status_code == 200
    assert client.options("/explorer")["Allow"] == "GET, HEAD, OPTIONS"


def test_a_post_to_the_page_is_a_json_405(client):
    response = client.post("/explorer")
    assert response.status_code == 405
    assert response.json() == {"detail": "Method not allowed"}
    assert response["Allow"] == "GET, HEAD, OPTIONS"


def test_the_page_reaches_no_other_host(client):
    response = client.get("/explorer")
    policy = response["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "connect-src 'self'" in policy
    assert "script-src 'self';" in policy  # no inline script, no eval
    html = response.content.decode()
    # Every URL the page names is on this origin (or a data: URI: the icon).
    for url in re.findall(r'(?:src|href)="([^"]*)"', html):
        assert url.startswith(("/", "#", "data:")), url
    assert "<script>" not in html  # no inline script (the policy would block it)
    script = assets.get("explorer.js").body.decode()
    assert not re.search(r"""["'`](?:https?:|wss?:)?//""", script)


def test_the_page_says_when_the_data_are_synthetic(client, settings):
    settings.MARKETDATA_UPSTREAM = "sandbox"
    page = client.get("/explorer").content.decode()
    assert 'id="sandbox-notice"' in page and "synthetic" in page
    settings.MARKETDATA_UPSTREAM = "live"
    page = client.get("/explorer").content.decode()
    assert 'id="sandbox-notice"' not in page
    assert 'data-upstream="live"' in page


def test_the_page_is_compressed_tagged_and_revalidated(client):
    plain = client.get("/explorer")
    assert plain["Cache-Control"] == "no-cache"
    tag = plain["ETag"]
    squeezed = client.get("/explorer", HTTP_ACCEPT_ENCODING="gzip, br")
    assert squeezed["Content-Encoding"] == "br"
    assert brotli.decompress(squeezed.content) == plain.content
    assert "Accept-Encoding" in squeezed["Vary"]
    assert client.get("/explorer", HTTP_IF_NONE_MATCH=tag).status_code == 304


def _asset_urls(client) -> list[str]:
    html = client.get("/explorer").content.decode()
    return re.findall(r'(?:src|href)="(/explorer/assets/[^"]+)"', html)


def test_the_page_names_each_asset_by_its_digest(client):
    urls = _asset_urls(client)
    assert sorted(url.rsplit("/", 1)[1] for url in urls) == sorted(assets.SOURCES)
    for url in urls:
        digest, name = url.split("/")[-2:]
        assert digest == encoding.digest(assets.get(name).body)[:assets.DIGEST_LENGTH]


@pytest.mark.parametrize("name", sorted(assets.SOURCES))
@pytest.mark.parametrize("coding", ["br", "gzip"])
def test_each_asset_is_served_compressed_and_immutable(client, name, coding):
    url = assets.get(name).url
    plain = client.get(url)
    assert plain.status_code == 200
    assert plain["Cache-Control"] == "public, max-age=31536000, immutable"
    assert plain["Content-Type"].startswith(("text/javascript", "text/css"))
    assert "Content-Encoding" not in plain
    packed = client.get(url, HTTP_ACCEPT_ENCODING=coding)
    assert packed["Content-Encoding"] == coding
    unpack = brotli.decompress if coding == "br" else gzip.decompress
    assert unpack(packed.content) == plain.content
    assert len(packed.content) < len(plain.content) / 2
    assert client.get(url, HTTP_ACCEPT_ENCODING=coding,
                      HTTP_IF_NONE_MATCH=packed["ETag"]).status_code == 304


def test_plotly_is_the_package_own_build(client):
    body = client.get(assets.get("plotly.min.js").url).content
    assert body.startswith(b"/**\n* plotly.js v")
    assert len(body) > 1_000_000


def test_an_old_digest_still_gets_the_file_revalidated(client):
    response = client.get("/explorer/assets/0000000000000000/explorer.js")
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-cache"
    assert response.content == assets.get("explorer.js").body


@pytest.mark.parametrize("path", ["/explorer/assets/x/nothing.js",
                                  "/explorer/assets/x/..%2Fviews.py",
                                  "/explorer/assets/x/plotly.min.js.map"])
def test_an_unknown_asset_is_a_json_404(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


def test_encodings_are_made_once_per_host(settings, tmp_path, monkeypatch):
    """The second process (here: a cleared memo) reads the first one's encodings from
    MARKETDATA_VAR_DIR instead of compressing again."""
    settings.VAR_DIR = tmp_path
    monkeypatch.setattr(assets.ASSETS, "loaded", {})
    first = assets.get("explorer.css")
    assert sorted(p.name for p in (tmp_path / "explorer-assets").iterdir()) == \
        sorted(f"{first.digest}.{coding}" for coding in encoding.CODINGS)
    monkeypatch.setattr(assets.ASSETS, "loaded", {})
    monkeypatch.setattr(encoding, "compress", lambda *a, **k: pytest.fail("compressed twice"))
    again = assets.get("explorer.css")
    assert again.representations.encoded == first.representations.encoded


def test_an_unwritable_cache_only_costs_a_compression(settings, tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    settings.VAR_DIR = blocked
    monkeypatch.setattr(assets.ASSETS, "loaded", {})
    assert assets.get("explorer.css").representations.encoded


def test_debug_rereads_the_files(settings):
    settings.DEBUG = True
    assert assets.get("explorer.js") is not assets.get("explorer.js")


def test_the_compress_command_makes_every_encoding_and_drops_old_ones(settings, tmp_path,
                                                                      monkeypatch):
    from io import StringIO

    from django.core.management import call_command

    settings.VAR_DIR = tmp_path
    stale = tmp_path / "explorer-assets" / "0123456789abcdef.br"
    stale.parent.mkdir()
    stale.write_bytes(b"an edit ago")
    monkeypatch.setattr(assets.ASSETS, "loaded", {})
    out = StringIO()
    call_command("compress_explorer_assets", stdout=out)
    assert not stale.exists()
    made = {path.name for path in stale.parent.iterdir()}
    assert made == {f"{assets.get(name).digest}.{coding}"
                    for name in assets.SOURCES for coding in ("br", "gzip")}
    assert all(path.stat().st_mode & 0o044 == 0o044 for path in stale.parent.iterdir())
    assert "/explorer/assets/" in out.getvalue() and "plotly.min.js" in out.getvalue()
