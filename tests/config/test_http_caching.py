"""HTTP caching and compression (apps.core.encoding, HttpCachingMiddleware, /openapi.json):
negotiation as a property, ETags and 304s, lifetimes and no-store on the Django path, the
OpenAPI document, the CORS preflight of the backtest. The fast path's side is in
test_fastpath_equivalence.py (it must give the Django path's answer)."""

from __future__ import annotations

import gzip
import re

import brotli
import pytest
from django.http import HttpResponse, StreamingHttpResponse
from django.test import RequestFactory
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from apps.core import encoding
from tests.config.fastpath_client import django_path, front

ALL = (encoding.BROTLI, encoding.GZIP)


def _decoded(answer) -> bytes:
    coding = answer.header("content-encoding")
    if coding is None:
        return answer.body
    return gzip.decompress(answer.body) if coding == "gzip" else brotli.decompress(answer.body)


# -- negotiation -------------------------------------------------------------------------------
@pytest.mark.parametrize(("header", "expected"), [
    (None, "identity"),
    ("", "identity"),
    ("gzip", "gzip"),
    ("gzip, deflate, br", "br"),
    ("br;q=0.5, gzip;q=0.9", "gzip"),
    ("gzip;q=0, br;q=0", "identity"),
    ("*", "br"),
    ("*;q=0", "identity"),  # everything refused: identity anyway, never a 406
    ("identity;q=0", "identity"),
    ("*;q=0.5, br;q=0", "gzip"),
    ("gzip;q=0.4, identity;q=0.5", "identity"),  # the client ranks identity higher
    ("gzip;q=0.5, identity;q=0.5", "gzip"),  # a tie: the smaller answer
    ("GZIP;Q=1", "gzip"),
    ("x-gzip", "gzip"),
    ("gzip;q=0, gzip", "identity"),  # listed twice: the refusal wins
    ("gzip;q=abc, br;q=0.1", "br"),  # a member with a garbage q is ignored
    ("deflate, compress", "identity"),
    (" , ;q=1, br ; q = 0.7 ", "br"),
])
def test_choices(header, expected):
    assert encoding.choose(header, ALL) == expected


def test_only_kept_encodings_are_chosen():
    assert encoding.choose("br, gzip", (encoding.GZIP,)) == "gzip"
    assert encoding.choose("br", (encoding.GZIP,)) == "identity"
    assert encoding.choose("br, gzip", ()) == "identity"


_TOKENS = st.sampled_from(["gzip", "br", "identity", "*", "deflate", "x-gzip", "BR", "zstd",
                           "", " ", "gzip ", "q", ";", "="])
_Q = st.one_of(st.none(), st.sampled_from(["0", "1", "0.5", "0.001", "1.000", "2", "-1",
                                           "nan", "inf", "", "abc", "0.5.5"]),
               st.floats(allow_nan=True).map(str))
_MEMBER = st.tuples(_TOKENS, _Q).map(lambda m: m[0] if m[1] is None else f"{m[0]};q={m[1]}")


@hsettings(max_examples=400, deadline=None)
@given(st.one_of(st.lists(_MEMBER, max_size=6).map(", ".join), st.text(max_size=40)),
       st.sampled_from([ALL, (encoding.GZIP,), (encoding.BROTLI,), ()]))
def test_any_accept_encoding_gets_a_valid_choice(header, available):
    choice = encoding.choose(header, available)
    assert choice in (*available, encoding.IDENTITY)
    prefs = encoding.preferences(header)
    if choice != encoding.IDENTITY:
        # Never a coding the client refused, never a lower q than another on offer.
        q = prefs.get(choice, prefs.get("*", 0.0))
        assert q > 0
        assert all(prefs.get(c, prefs.get("*", 0.0)) <= q for c in available)


@pytest.mark.parametrize(("header", "matches"), [
    ('"abc"', True), ('W/"abc"', True), ('"x", "abc"', True), ('"x",W/"abc"', True),
    ("*", True), (' "abc" ', True), ('"abc-gz"', False), ('"ab"', False), ("abc", False),
    ("", False), ('"x", "y"', False),
])
def test_if_none_match(header, matches):
    assert encoding.none_match(header, '"abc"') is matches


def test_small_or_binary_bodies_are_not_compressed():
    assert encoding.encode_all(b"x" * 1023, "application/json") == ()
    assert encoding.encode_all(b"x" * 4096, "image/png") == ()
    kept = dict(encoding.encode_all(b'{"a":1}' * 400, "text/csv; charset=utf-8"))
    assert set(kept) == {"br", "gzip"}
    assert gzip.decompress(kept["gzip"]) == brotli.decompress(kept["br"]) == b'{"a":1}' * 400


# -- the Django path ---------------------------------------------------------------------------
def test_a_computed_answer_is_tagged_and_revalidated(sandbox_upstream):
    """An answer the response cache does not keep (computed from the clock) is tagged,
    must be revalidated (no-cache), and a matching If-None-Match gets a 304."""
    target = "/v2/hours?region=US"
    first = django_path(target, {"accept-encoding": "gzip"})
    assert first.status == 200 and first.header("cache-control") == "no-cache"
    etag = first.header("etag")
    assert re.fullmatch(r'"[0-9a-f]{32}(-gz|-br)?"', etag), etag
    again = django_path(target, {"accept-encoding": "gzip", "if-none-match": etag})
    if _decoded(again) if again.status == 200 else False:
        # The clock moved the answer on between the two requests: a new tag.
        assert again.header("etag") != etag
    else:
        assert again.status == 304 and again.body == b""
        assert again.header("etag") == etag and again.header("content-length") is None


def test_a_stored_answer_says_how_long_it_stays(sandbox_upstream):
    target = "/v1/sectors"
    first = django_path(target)
    assert first.header("x-cache") == "MISS"
    ttl = int(re.search(r"max-age=(\d+)", first.header("cache-control")).group(1))
    hit = django_path(target)
    assert hit.header("x-cache") == "HIT" and hit.header("etag") == first.header("etag")
    left = int(re.search(r"max-age=(\d+)", hit.header("cache-control")).group(1))
    assert first.header("cache-control").startswith("public, ") and ttl - 1 <= left <= ttl
    # The first answer's encodings are the stored ones: the same bytes as the hit's.
    for coding in ("gzip", "br"):
        fresh = django_path("/v1/sectors/symbol/AAPL", {"accept-encoding": coding})
        stored = django_path("/v1/sectors/symbol/AAPL", {"accept-encoding": coding})
        assert fresh.body == stored.body or fresh.header("content-encoding") is None


@pytest.mark.parametrize("target", ["/v2/nothing-here", "/v1/historical?symbol=AAPL&range=7y",
                                    "/v2/quote/%20"])
def test_errors_are_never_kept_downstream(sandbox_upstream, target):
    answer = django_path(target, {"accept-encoding": "br"})
    assert answer.status >= 400, answer.status
    assert answer.header("cache-control") == "no-store"
    assert answer.header("etag") is None


def test_a_stale_answer_is_never_kept_downstream(sandbox_upstream, monkeypatch):
    from marketdata import cache as md_cache

    real = md_cache.start_report

    def stale_report():
        report, token = real()
        report.note(md_cache.STALE, None)  # as a provider answer served past its freshness
        return report, token

    monkeypatch.setattr(md_cache, "start_report", stale_report)
    answer = django_path("/v1/sectors")
    assert answer.header("x-cache") == "STALE"
    assert answer.header("cache-control") == "no-store" and answer.header("etag") is None


def test_the_middleware_leaves_streams_and_pages_alone(settings):
    from apps.core.middleware import HttpCachingMiddleware

    factory = RequestFactory(headers={"accept-encoding": "gzip, br"})
    body = b'{"a": 1}' * 500
    for path, response in (
            ("/v1/stream/quotes", StreamingHttpResponse(iter([b"data: 1\n\n"]),
                                                        content_type="text/event-stream")),
            ("/v2/quotes", StreamingHttpResponse(iter([b"data: 1\n\n"]),
                                                 content_type="text/event-stream")),
            ("/v2/quotes", HttpResponse(b"data: 1\n\n" * 300,
                                        content_type="text/event-stream")),
            ("/admin/", HttpResponse(body, content_type="text/html")),
            ("/docs", HttpResponse(body, content_type="text/html"))):
        answer = HttpCachingMiddleware(lambda r, response=response: response)(
            factory.get(path))
        assert not answer.has_header("Content-Encoding"), path
        assert not answer.has_header("ETag") and not answer.has_header("Vary"), path
    # Already encoded: not again.
    encoded = HttpResponse(gzip.compress(body), content_type="application/json")
    encoded["Content-Encoding"] = "gzip"
    answer = HttpCachingMiddleware(lambda r: encoded)(factory.get("/v2/quotes"))
    assert gzip.decompress(answer.content) == body
    # An API answer: compressed, with its length and Vary.
    answer = HttpCachingMiddleware(
        lambda r: HttpResponse(body, content_type="application/json"))(factory.get("/v2/x"))
    assert answer["Content-Encoding"] == "br" and answer["Vary"] == "Accept-Encoding"
    assert answer["Content-Length"] == str(len(answer.content))
    assert brotli.decompress(answer.content) == body


def test_the_cors_preflight_allows_the_backtest_post(sandbox_upstream):
    answer = front("/v2/backtest", {"origin": "https://app.example",
                                    "access-control-request-method": "POST",
                                    "access-control-request-headers": "content-type"},
                   method="OPTIONS")
    assert answer.status == 200
    assert "POST" in [m.strip() for m in answer.header("access-control-allow-methods").split(",")]
    assert "content-type" in answer.header("access-control-allow-headers")
    assert answer.header("access-control-allow-origin") in ("*", "https://app.example")


def test_etag_and_the_rate_limit_headers_are_exposed_to_browsers(sandbox_upstream):
    exposed = django_path("/v1/sectors", {"origin": "https://app.example"}).header(
        "access-control-expose-headers")
    names = {name.strip().lower() for name in exposed.split(",")}
    assert {"etag", "ratelimit", "ratelimit-policy", "x-ratelimit-remaining"} <= names


# -- sizes the issue sets ------------------------------------------------------------------------
def test_five_years_of_history_compress_under_30_kb(sandbox_upstream):
    target = "/v1/historical?symbol=AAPL&range=5y&interval=1d"
    sizes = {}
    for coding in ("gzip", "br"):
        for _ in range(2):  # computed, then the stored entry's
            answer = django_path(target, {"accept-encoding": coding})
            assert answer.status == 200 and answer.header("content-encoding") == coding
            sizes[coding, answer.header("x-cache")] = len(answer.body)
    assert sizes["br", "HIT"] < 30_000, sizes
    assert sizes["gzip", "HIT"] < 35_000, sizes  # gzip at its best is 31 KB: brotli's target


# -- /openapi.json -------------------------------------------------------------------------------
def test_the_document_is_compact_cached_and_compressed(sandbox_upstream, monkeypatch):
    from drf_spectacular.views import SpectacularAPIView

    from apps.core import openapi

    monkeypatch.setattr(openapi, "_document", None)
    built = []
    original = SpectacularAPIView._get_schema_response

    def counted(self, request):
        built.append(1)
        return original(self, request)

    monkeypatch.setattr(SpectacularAPIView, "_get_schema_response", counted)
    plain = django_path("/openapi.json")
    assert plain.status == 200 and plain.header("content-encoding") is None
    assert b"\n" not in plain.body[:10_000] and plain.body.startswith(b'{"openapi":"3.1.0"')
    assert plain.header("cache-control") == openapi.CACHE_CONTROL
    vary = [v.strip() for v in plain.header("vary").split(",")]
    assert "Accept" in vary and "Accept-Encoding" in vary
    sizes = {}
    for coding in ("gzip", "br"):
        answer = django_path("/openapi.json", {"accept-encoding": coding})
        assert answer.header("content-encoding") == coding
        assert _decoded(answer) == plain.body
        sizes[coding] = len(answer.body)
        assert answer.header("content-length") == str(len(answer.body))
        not_modified = django_path("/openapi.json", {"accept-encoding": coding,
                                                     "if-none-match": answer.header("etag")})
        assert not_modified.status == 304 and not_modified.body == b""
    # 161 KB gzip and 90 KB brotli with the issue-46 routes (111 operations): the bound grows
    # with the API; a document that lost its compaction would be several times over it.
    assert sizes["gzip"] < 200_000 and sizes["br"] < sizes["gzip"], sizes
    # application/json gets the same bytes with that media type.
    as_json = django_path("/openapi.json", {"accept": "application/json"})
    assert as_json.header("content-type") == "application/json" and as_json.body == plain.body
    assert len(built) == 1, "generated once per process"


def test_the_document_is_rebuilt_after_a_setting_changes(sandbox_upstream, settings,
                                                         monkeypatch):
    from apps.core import openapi

    first = django_path("/openapi.json").body
    assert openapi._document is not None and openapi._document.body == first
    settings.SPECTACULAR_SETTINGS = {**settings.SPECTACULAR_SETTINGS, "TITLE": "Renamed"}
    assert openapi._document is None, "a setting changed: built again on the next request"
    assert django_path("/openapi.json").status == 200 and openapi._document is not None


def test_a_setting_the_document_is_not_built_from_keeps_it(sandbox_upstream, settings):
    from apps.core import openapi

    django_path("/openapi.json")
    built = openapi._document
    settings.V2_RATE_LIMIT_CAPACITY = 3
    settings.FRED_API_KEY = "another"
    assert openapi._document is built


def test_the_document_describes_304_and_the_limit_headers():
    from tests.openapi_validation import served_document

    document = served_document()
    quote = document["paths"]["/v2/quote/{symbol}"]["get"]["responses"]
    assert "304" in quote and "ETag" in quote["200"]["headers"]
    assert {"RateLimit", "RateLimit-Policy"} <= set(quote["200"]["headers"])
    assert {"RateLimit", "RateLimit-Policy", "Retry-After"} <= set(quote["429"]["headers"])
    v1 = document["paths"]["/v1/quotes"]["get"]["responses"]
    assert {"RateLimit", "X-RateLimit-Remaining", "ETag"} <= set(v1["200"]["headers"])
    assert "304" not in document["paths"]["/v1/health"]["get"]["responses"]
