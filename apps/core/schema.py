"""OpenAPI pieces shared by every endpoint: the spec's error bodies as named schemas."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers

from apps.core.errors import DETAIL_ERRORS, DETAIL_LIST, ERRORS


class ErrorDetail(serializers.Serializer):
    detail = serializers.CharField()



class ValidationErrorDetail(serializers.Serializer):
    detail = serializers.CharField(default="Invalid request")
    # A declared field, not Serializer.errors: the metaclass moves it out of the class.
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Parameter name -> messages")


class ValidationErrorItem(serializers.Serializer):
    type = serializers.CharField()
    loc = serializers.ListField(child=serializers.CharField())
    msg = serializers.CharField()
    input = serializers.JSONField(allow_null=True)


class ValidationErrorList(serializers.Serializer):
    detail = ValidationErrorItem(many=True)


class ValidationErrors(serializers.Serializer):
    # A declared field, not Serializer.errors: the metaclass moves it out of the class.
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Parameter name -> messages")


class UpstreamErrorBody(serializers.Serializer):
    detail = serializers.CharField()
    provider = serializers.CharField(help_text="Which upstream provider failed, e.g. yahoo")
    code = serializers.CharField(help_text="upstream_bad_response | upstream_unavailable | "
                                 "upstream_timeout | upstream_rate_limited")


UPSTREAM_503 = ("Upstream unreachable, its endpoint's circuit open after repeated failures, "
                "or too many calls to it in flight from this server (Retry-After)")
UPSTREAM_504 = ("Upstream timed out, or the request deadline (REQUEST_DEADLINE_SECONDS from "
                "arrival) passed before it answered")
_VALIDATION = {DETAIL_ERRORS: ValidationErrorDetail, DETAIL_LIST: ValidationErrorList,
               ERRORS: ValidationErrors}
# What each status means on every v1 endpoint that lists it; ``notes`` adds what is
# particular to one endpoint.
_DESCRIPTIONS = {
    400: "Incompatible interval and range (the compatibility table is in the operation's "
         "description). Every parameter is valid on its own, so the parameter schemas cannot "
         "express this",
    404: "Unknown symbol or no data. A malformed symbol (not ASCII letters, digits and "
         "`. - = &` after an optional leading `^`; more than 24 characters; `..`; control "
         "characters) is an unknown symbol: never sent upstream, always 404. A path value "
         "with `/` (`%2F`) matches no route: 404",
    422: "Missing or invalid parameter. An empty value (`count=`) is an invalid value, not an "
         "absent parameter (the default applies only when the parameter is left out)",
}


def error_responses(*statuses: int, upstream: bool = False, style: str = DETAIL_ERRORS,
                    notes: dict[int, str] | None = None) -> dict[int, OpenApiResponse]:
    """Responses for the listed statuses, plus 429/502/503/504 when the endpoint calls an
    upstream provider. ``notes`` appends endpoint-specific text to a status's description
    (e.g. the indicator's 400 for too little history)."""
    out: dict[int, OpenApiResponse] = {}
    for status in statuses:
        schema = _VALIDATION[style] if status == 422 else ErrorDetail
        text = _DESCRIPTIONS.get(status, "")
        if notes and status in notes:
            text = f"{text}. {notes[status]}" if text else notes[status]
        out[status] = OpenApiResponse(schema, description=text)
    if upstream:
        out[429] = OpenApiResponse(UpstreamErrorBody, description="Upstream rate limited us")
        out[502] = OpenApiResponse(UpstreamErrorBody, description="Bad upstream answer")
        out[503] = OpenApiResponse(UpstreamErrorBody, description=UPSTREAM_503)
        out[504] = OpenApiResponse(UpstreamErrorBody, description=UPSTREAM_504)
    return out


class ApiError(serializers.Serializer):
    error = serializers.CharField()
    status = serializers.IntegerField()
    provider = serializers.CharField(required=False,
                                     help_text="Upstream failures: which provider failed")


_V2_DESCRIPTIONS = {
    400: "Missing or invalid parameter (unknown enum value, bad path segment, non-integer or "
         "out-of-range `limit`, garbled `cursor`, malformed JSON body), or incompatible "
         "interval and range",
    404: "Unknown symbol, no data, or no such route",
    429: "Rate limited: by this service's token bucket (RateLimitError with "
         "`retryAfterSeconds` and `Retry-After`), or by the upstream (ApiError with "
         "`provider` and `Retry-After`)",
    500: "Internal server error",
    502: "Bad upstream answer", 503: UPSTREAM_503, 504: UPSTREAM_504,
}


def v2_error_responses() -> dict[int, OpenApiResponse]:
    """The four statuses every v2 endpoint lists, plus the upstream failures."""
    return {status: OpenApiResponse(ApiError, description=text)
            for status, text in _V2_DESCRIPTIONS.items()}


_PATH_DESCRIPTIONS = {
    "symbol": "Ticker symbol, e.g. AAPL, BRK-B, ^GSPC, EURUSD=X; a malformed one is an "
              "unknown symbol (404, never sent upstream)",
}


class V2AutoSchema(AutoSchema):
    """The OpenAPI operation of a :class:`apps.core.v2.V2ApiView`, derived from what the view
    declares: its query serializer and path enums (parameters), body serializer (request
    body), ``response_schema`` (200) and the v2 error statuses. No per-view ``extend_schema``
    block is needed; a view that still has one overrides these."""

    def _v2(self, name: str) -> Any:
        return getattr(self.view, name, None)

    def get_override_parameters(self) -> list[Any]:
        params = list(super().get_override_parameters())
        query = self._v2("query_serializer")
        if query is not None and query not in params:
            params.append(query)
        path_choices = self._v2("path_choices") or {}
        for name, choices in path_choices.items():
            params.append(OpenApiParameter(name, OpenApiTypes.STR, OpenApiParameter.PATH,
                                           enum=list(choices)))
        path = self.path or ""
        # A view may describe its own path values (a COT symbol is a contract code or a
        # futures root, a macro series an id); the shared words cover the rest. A described
        # path enum keeps its values (the description's parameter replaces the one above).
        described = {**_PATH_DESCRIPTIONS, **(self._v2("path_descriptions") or {})}
        for name, text in described.items():
            if "{" + name + "}" in path:
                # A description, or a schema with one ({"description", "pattern", ...}).
                schema = {"type": "string", **text} if isinstance(text, dict) else None
                if name in path_choices:
                    schema = {"type": "string", "enum": list(path_choices[name]),
                              **(schema or {})}
                params.append(OpenApiParameter(
                    name, OpenApiTypes.STR if schema is None else
                    {k: v for k, v in schema.items() if k != "description"},
                    OpenApiParameter.PATH,
                    # No description ("" or None) leaves the parameter undescribed.
                    description=text if isinstance(text, str) else text.get("description", "")))
        return params

    def get_request_serializer(self) -> Any:
        body = self._v2("body_serializer")
        return body if body is not None else super().get_request_serializer()

    def get_response_serializers(self) -> Any:
        schema = self._v2("response_schema")
        if schema is None:
            return super().get_response_serializers()
        extra = {status: OpenApiResponse(ApiError, description=text)
                 for status, text in (self._v2("extra_responses") or {}).items()}
        return {200: OpenApiResponse(schema, description="OK"), **v2_error_responses(),
                **extra}

    def get_operation_id(self) -> str:
        return self._v2("operation_id") or super().get_operation_id()

    def get_tags(self) -> list[str]:
        tag = self._v2("tag")
        return [tag] if tag else super().get_tags()

    def get_summary(self) -> str | None:
        return self._v2("summary") or super().get_summary()

    # drf-spectacular's own get_description() drops ViewInspector's (path, method) arguments
    # with the same ignore; this override matches drf-spectacular's signature.
    def get_description(self) -> str:  # type: ignore[override]
        text = self._v2("description")
        return text if text else super().get_description()


def postprocess_nullable(result: dict[str, Any], generator: Any, request: Any, public: bool,
                         **kwargs: Any) -> dict[str, Any]:
    """OpenAPI 3.1 has no ``nullable``: hand-written schemas that still say
    ``nullable: true`` get ``null`` added to their type (or a null alternative), so a client
    generated from the document accepts the nulls the service sends."""

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
            return
        if not isinstance(node, dict):
            return
        for value in node.values():
            walk(value)
        alternatives = node.get("oneOf")
        if isinstance(alternatives, list) and {} in alternatives:
            # drf-spectacular writes a nullable JSONField as oneOf [{}, null]: null then
            # matches both, which oneOf forbids. {} alone already admits any value.
            node.pop("oneOf")
        if node.pop("nullable", False) is True:
            kind = node.get("type")
            if isinstance(kind, str):
                node["type"] = [kind, "null"]
            elif isinstance(kind, list):
                if "null" not in kind:
                    kind.append("null")
            elif "oneOf" in node:
                # anyOf, not another oneOf member: an alternative that already admits null
                # would make null match twice, which oneOf forbids.
                node["anyOf"] = [{"oneOf": node.pop("oneOf")}, {"type": "null"}]
            else:
                alternatives = {k: node.pop(k) for k in list(node) if k not in (
                    "description", "title", "default", "example", "examples")}
                if alternatives:  # an empty schema is any value, null included
                    node["anyOf"] = [alternatives, {"type": "null"}]

    walk(result)
    return result


# Example values of parameters by name, and by (path prefix, name) where one name means
# different things: what Swagger's "Try it out" starts from. Every path parameter and every
# required query parameter gets one (from here, else its default, else its first allowed
# value); tests/apps/test_schema_examples.py calls every GET with its examples.
PARAMETER_EXAMPLES: dict[str, Any] = {
    "symbol": "AAPL", "symbols": "AAPL,MSFT", "q": "apple", "query": "apple",
    "interval": "1d", "range": "1mo", "from": "EUR", "to": "USD",
}
PATH_PARAMETER_EXAMPLES: dict[tuple[str, str], Any] = {
    ("/v2/crypto/", "id"): "bitcoin",
    ("/v2/crypto/", "query"): "bitcoin",
    ("/v2/macro/series/", "id"): "GDP",
    ("/v2/futures/", "symbol"): "GC=F",
    ("/v2/index-constituents/", "symbol"): "^GSPC",
    ("/v2/positioning/", "symbol"): "GC=F",
    ("/v2/filings/search", "q"): "climate risk",
}


def parameter_example(path: str, parameter: dict[str, Any]) -> Any:
    """The example of one parameter of ``path`` (None when it has none)."""
    name = parameter.get("name", "")
    for (prefix, known), value in PATH_PARAMETER_EXAMPLES.items():
        if known == name and path.startswith(prefix):
            return value
    if name in PARAMETER_EXAMPLES:
        return PARAMETER_EXAMPLES[name]
    schema = parameter.get("schema") or {}
    if "default" in schema:
        return schema["default"]
    enum = [v for v in schema.get("enum") or [] if v is not None]
    return enum[0] if enum else None


def postprocess_examples(result: dict[str, Any], generator: Any, request: Any, public: bool,
                         **kwargs: Any) -> dict[str, Any]:
    """An ``example`` on every path parameter and required query parameter that has
    none (optional ones stay empty: "Try it out" would send them)."""
    for path, operations in result.get("paths", {}).items():
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                if "example" in parameter or "examples" in parameter:
                    continue
                if parameter.get("in") == "path" or parameter.get("required"):
                    example = parameter_example(path, parameter)
                    if example is not None:
                        parameter["example"] = example
    return result
