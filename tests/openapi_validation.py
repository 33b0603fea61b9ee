"""Responses checked against the OpenAPI document the service serves (issue 27, item 2).

A client generated from ``/openapi.json`` (or a validator such as openapi-core) trusts three
things about every answer: its status is one the operation lists, its content type is one
that status lists, and its body matches that status's schema. :func:`check_response` checks
all three for one response of Django's test client; ``tests/apps/conftest.py`` runs it on
every response the API tests get, so a serializer, a ``fields`` selection or an error body
that drifts from the document fails the test that produced it.

The document is the served one: drf-spectacular's generator (the view's class, its
post-processing hooks included), built once per process. Bodies are validated with
openapi-schema-validator's ``OAS31Validator`` and its format checker: JSON Schema 2020-12
with OpenAPI 3.1's formats, what openapi-core 0.23.1 itself validates bodies with (without
openapi-core's per-request path search and spec wrapping, which would slow the suite).
Validators are compiled lazily, once per (operation, status, media type).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import unquote, urlsplit

from jsonschema.exceptions import ValidationError, best_match
from openapi_schema_validator import OAS31Validator, oas31_format_checker

# Paths that are not API operations: never looked up (the admin, the docs and their assets,
# the metrics, the document itself). Event streams are recognised by content type.
SKIPPED_PREFIXES = ("/admin", "/static", "/docs", "/redoc", "/metrics", "/openapi.json",
                    "/mcp", "/__")
API_PREFIXES = ("/v1/", "/v2/")
EVENT_STREAM = "text/event-stream"
MAX_ERRORS = 5
MAX_MESSAGE = 300


# Answers found valid, by operation and digest of the body (bounded; emptied when full).
VALIDATED_CAP = 50_000
_validated: set[tuple[Any, ...]] = set()


class ResponseMismatch(AssertionError):
    """A response the served document does not describe. An AssertionError, so a test that
    produced one fails with the message (method, path, status, the members at fault)."""


@dataclass(frozen=True)
class Operation:
    template: str  # the document's path, e.g. /v2/quote/{symbol}
    method: str  # lower case
    responses: Mapping[str, Any]


DOCUMENTED_URLCONF = "config.urls"


@cache
def served_document() -> dict[str, Any]:
    """``/openapi.json`` as the service generates it (its view's generator, the project's
    URLs and settings), as plain JSON: what a client downloads."""
    from drf_spectacular.renderers import OpenApiJsonRenderer
    from drf_spectacular.settings import spectacular_settings

    generator = spectacular_settings.DEFAULT_GENERATOR_CLASS(urlconf=DOCUMENTED_URLCONF)
    schema = generator.get_schema(request=None, public=spectacular_settings.SERVE_PUBLIC)
    return json.loads(OpenApiJsonRenderer().render(schema, renderer_context={}))


def _template_regex(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}/]+\})", template)
    return re.compile("".join("[^/]+" if p.startswith("{") else re.escape(p) for p in parts)
                      + r"\Z")


class DocumentValidator:
    """Matches responses to a document's operations and validates them."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self._components = document.get("components", {})
        paths: Mapping[str, Any] = document.get("paths", {})
        # Literal paths before templated ones (/v2/filings/search before
        # /v2/filings/{symbol}), as a router's exact match wins.
        ordered = sorted(paths, key=lambda p: (p.count("{"), -len(p)))
        self._routes = [(_template_regex(p), p) for p in ordered]
        self._validators: dict[tuple[str, str, str, str], OAS31Validator] = {}

    def operation(self, method: str, path: str) -> Operation | None:
        """The document's operation for a request, None when no path matches. HEAD is
        answered by the GET operation (Django serves HEAD from the GET handler)."""
        method = method.lower()
        for regex, template in self._routes:
            if regex.match(path):
                item = self.document["paths"][template]
                found = item.get(method) or (item.get("get") if method == "head" else None)
                if isinstance(found, dict):
                    return Operation(template, method, found.get("responses", {}))
                return None
        return None

    def path_documented(self, path: str) -> bool:
        return any(regex.match(path) for regex, _ in self._routes)

    def validate(self, method: str, path: str, status: int, content_type: str | None,
                 body: bytes | None) -> None:
        """Raise :class:`ResponseMismatch` unless the document describes this answer.
        ``body`` None: not checked (HEAD, 304, a stream). Unknown paths are not checked
        (a 404 of no route is not an operation); an API path answering 2xx that the
        document lacks is a mismatch."""
        operation = self.operation(method, path)
        where = f"{method.upper()} {path} -> {status}"
        if operation is None:
            if path.startswith(API_PREFIXES) and 200 <= status < 300 \
                    and method.lower() not in ("options",):
                raise ResponseMismatch(f"{where}: no operation in the document for "
                                       f"{method.upper()} {path}")
            return
        key = _status_key(operation.responses, status)
        if key is None:
            raise ResponseMismatch(
                f"{where}: status {status} is not documented for {method.upper()} "
                f"{operation.template} (documented: {', '.join(sorted(operation.responses))})")
        content = operation.responses[key].get("content") or {}
        media = (content_type or "").split(";")[0].strip().lower()
        if not content:
            if body:
                raise ResponseMismatch(f"{where}: the document gives status {key} no body, "
                                       f"the response has {len(body)} bytes ({media})")
            return
        documented = _media_key(content, media)
        if documented is None:
            raise ResponseMismatch(f"{where}: content type {media or '(none)'!r} is not "
                                   f"documented (documented: {', '.join(sorted(content))})")
        if body is None or media == EVENT_STREAM or "json" not in media:
            return  # only JSON bodies have a schema to check here
        schema = content[documented].get("schema")
        if schema is None:
            return
        try:
            instance = json.loads(body)
        except ValueError as exc:
            raise ResponseMismatch(f"{where}: body is not JSON ({exc})") from None
        validator = self._validator(operation, key, documented, schema)
        errors = list(validator.iter_errors(instance))
        if errors:
            raise ResponseMismatch(_describe(where, operation, key, errors))

    def _validator(self, operation: Operation, status: str, media: str,
                   schema: Mapping[str, Any]) -> OAS31Validator:
        key = (operation.template, operation.method, status, media)
        found = self._validators.get(key)
        if found is None:
            # The schema's $refs point into the document ("#/components/schemas/X"):
            # the components ride along as an unknown keyword, so they resolve.
            rooted = {**schema, "components": self._components}
            found = OAS31Validator(rooted, format_checker=oas31_format_checker)
            self._validators[key] = found
        return found


def _status_key(responses: Mapping[str, Any], status: int) -> str | None:
    for key in (str(status), f"{status // 100}XX", f"{status // 100}xx", "default"):
        if key in responses:
            return key
    return None


def _media_key(content: Mapping[str, Any], media: str) -> str | None:
    if media in content:
        return media
    major = media.split("/")[0]
    for key in (f"{major}/*", "*/*"):
        if key in content:
            return key
    return None


def _short(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "..."


def _describe(where: str, operation: Operation, status: str,
              errors: Iterable[ValidationError]) -> str:
    errors = list(errors)
    best = best_match(errors)
    lines = [f"{where}: body does not match the {status} schema of "
             f"{operation.method.upper()} {operation.template} ({len(errors)} error(s))",
             f"  at {best.json_path}: {_short(best.message)}"]
    # Others, but not the containers of the best one (their messages repeat the body).
    others = [e for e in errors if e is not best and not best.json_path.startswith(e.json_path)]
    for error in sorted(others, key=lambda e: e.json_path)[:MAX_ERRORS]:
        lines.append(f"  at {error.json_path}: {_short(error.message)}")
    return "\n".join(lines)


@cache
def document_validator() -> DocumentValidator:
    """The served document's validator, one per process (its validators cached in it)."""
    return DocumentValidator(served_document())


def decoded_body(content: bytes, encoding: str | None) -> bytes:
    """The body before its Content-Encoding (gzip, deflate, br)."""
    coding = (encoding or "").strip().lower()
    if coding in ("", "identity"):
        return content
    if coding == "gzip":
        return gzip.decompress(content)
    if coding == "deflate":
        return zlib.decompress(content)
    if coding == "br":
        import brotli

        return brotli.decompress(content)
    raise ResponseMismatch(f"unknown Content-Encoding {encoding!r}")


def skipped_path(path: str) -> bool:
    return path.startswith(SKIPPED_PREFIXES)


def check_exchange(method: str, path: str, status: int, headers: Mapping[str, str],
                   body: bytes | None) -> None:
    """Validate one answer (``body`` as sent, before Content-Encoding is undone; None when
    there is none to check) against the served document; raise :class:`ResponseMismatch`
    when it does not match.

    Not checked: non-API paths (:data:`SKIPPED_PREFIXES`), OPTIONS (CORS preflights and
    DRF's metadata are not operations); no body checked for HEAD, 304 and streams."""
    if not path or skipped_path(path) or method.upper() == "OPTIONS":
        return
    content_type = headers.get("Content-Type")
    if method.upper() == "HEAD" or status == 304 \
            or (content_type or "").startswith(EVENT_STREAM):
        body = None
    if body is not None:
        body = decoded_body(body, headers.get("Content-Encoding"))
    # The same answer to the same operation was already found valid (the property tests
    # fetch one long list many times): not validated again.
    key = (method.upper(), path, status, content_type,
           None if body is None else hashlib.blake2b(body, digest_size=16).digest())
    if key in _validated:
        return
    document_validator().validate(method, path, status, content_type, body)
    if len(_validated) >= VALIDATED_CAP:
        _validated.clear()
    _validated.add(key)


def check_response(response: Any) -> None:
    """:func:`check_exchange` for a response of Django's test client (or DRF's APIClient)."""
    wsgi_request = getattr(response, "wsgi_request", None)
    if wsgi_request is None:
        return
    from django.conf import settings

    # A test that routes its own URLs (ROOT_URLCONF overridden) serves no documented API.
    if getattr(wsgi_request, "urlconf", None) or settings.ROOT_URLCONF != DOCUMENTED_URLCONF:
        return
    streaming = getattr(response, "streaming", False)  # reading it would end the test's
    check_exchange(wsgi_request.method or "GET", wsgi_request.path_info,
                   response.status_code, response.headers,
                   None if streaming else response.content)


def check_http(method: str, url: str, status: int, headers: Mapping[str, str],
               body: bytes) -> None:
    """:func:`check_exchange` for an answer a real server process sent over HTTP
    (tests/integration). Only the service's answers are checked: they carry
    ``X-Data-Source`` (the sandbox upstream's do not)."""
    if headers.get("X-Data-Source") is None:
        return
    check_exchange(method, unquote(urlsplit(url).path), status, headers, body)
