"""``/openapi.json``: the OpenAPI document, compact, generated once per process.

drf-spectacular's view builds the document on every request (seconds of CPU for ~180
operations) and writes it indented (1.8 MB). This view builds it on the first request,
writes it without indentation, and keeps it with its gzip and brotli encodings made once
at the libraries' best (:data:`apps.core.encoding.DOCUMENT_QUALITY`: 1.3 MB is 70 KB in
brotli, 124 KB in gzip); :class:`apps.core.middleware.HttpCachingMiddleware` then serves
the encoding the client accepts, its ETag and 304s. The document depends on settings
only (not on the request: no per-host servers, no permission filtering), so it is rebuilt
after one of :data:`DOCUMENT_SETTINGS` changes (tests) and otherwise at the next deployment.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from django.core.signals import setting_changed
from django.http import HttpResponse
from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiJsonRenderer2
from drf_spectacular.views import SpectacularJSONAPIView
from rest_framework.request import Request

from apps.core import encoding

# Downstream caches may keep it a few minutes; after that a revalidation is a 304.
CACHE_CONTROL = "public, max-age=300"


class CompactOpenApiJsonRenderer(OpenApiJsonRenderer):
    """drf-spectacular's JSON renderer without its default indentation of 4."""

    def get_indent(self, accepted_media_type: Any, renderer_context: Any) -> None:
        return None


class CompactOpenApiJsonRenderer2(CompactOpenApiJsonRenderer, OpenApiJsonRenderer2):
    media_type = "application/json"


_lock = threading.Lock()
_document: encoding.Precomputed | None = None


# The settings the document is generated from (drf-spectacular's and DRF's, the URLs and
# the apps that declare the views); no view or schema hook reads another. Any other change
# (tests flip the upstream mode, keys, limits) keeps the document: building it again costs
# seconds.
DOCUMENT_SETTINGS = frozenset({"SPECTACULAR_SETTINGS", "REST_FRAMEWORK", "ROOT_URLCONF",
                               "INSTALLED_APPS"})


def _forget(setting: str = "", **_kwargs: Any) -> None:
    global _document
    if setting in DOCUMENT_SETTINGS:
        _document = None


setting_changed.connect(_forget, weak=False)


class OpenApiDocumentView(SpectacularJSONAPIView):
    """The cached document, with the media type the client negotiated (the same bytes)."""

    renderer_classes = [CompactOpenApiJsonRenderer, CompactOpenApiJsonRenderer2]

    def _document(self, request: Request) -> encoding.Precomputed:
        global _document
        document = _document
        if document is None:
            with _lock:  # one build per process, however many ask at once
                document = _document
                if document is None:
                    data = super()._get_schema_response(request).data
                    body = CompactOpenApiJsonRenderer().render(data)
                    document = _document = encoding.Precomputed.of(
                        body, CompactOpenApiJsonRenderer.media_type)
        return document

    def _get_schema_response(self, request: Request) -> HttpResponse:
        document = self._document(request)
        renderer = request.accepted_renderer
        response = HttpResponse(document.body, content_type=renderer.media_type)
        response["Content-Disposition"] = \
            f'inline; filename="{self._get_filename(request, None)}"'
        response["Cache-Control"] = CACHE_CONTROL
        response.representations = document  # type: ignore[attr-defined]
        return response



_NOT_MODIFIED = {
    "description": "Not Modified: `If-None-Match` named this answer's `ETag` (no body)",
    "headers": {"ETag": {"$ref": "#/components/headers/ETag"},
                "Cache-Control": {"$ref": "#/components/headers/Cache-Control"}},
}
_CACHING_HEADERS = {
    "ETag": "Strong entity tag of this representation (a digest of the body; `-gz`/`-br` "
            "for the compressed encodings); send it back in `If-None-Match` for a 304",
    "Cache-Control": "`public, max-age=<seconds left in the server's cache>` for a cached "
                     "answer, `no-cache` for one computed afresh, `no-store` for a partial "
                     "or stale one",
}


def postprocess_conditional_get(result: dict[str, Any], generator: Any, request: Any,
                                public: bool) -> dict[str, Any]:
    """Every GET of the API answers 200s with an ETag and ``Cache-Control`` and a 304 to a
    matching ``If-None-Match`` (HttpCachingMiddleware): say so, once, for all of them."""
    from apps.core import response_cache

    result.setdefault("components", {}).setdefault("headers", {}).update(
        {name: {"schema": {"type": "string"}, "description": text}
         for name, text in _CACHING_HEADERS.items()})
    for path, operations in result.get("paths", {}).items():
        operation = operations.get("get")
        if operation is None or not path.startswith(("/v1/", "/v2/")) or \
                path.startswith(response_cache.UNCACHEABLE):
            continue
        responses = operation.setdefault("responses", {})
        ok = responses.get("200")
        if ok is None:
            continue
        ok.setdefault("headers", {}).update(
            {name: {"$ref": f"#/components/headers/{name}"} for name in _CACHING_HEADERS})
        responses.setdefault("304", copy.deepcopy(_NOT_MODIFIED))
    return result
