"""OpenAPI pieces shared by every endpoint: the spec's error bodies as named schemas."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

from apps.core.errors import DETAIL_ERRORS, DETAIL_LIST, ERRORS


class ErrorDetail(serializers.Serializer):
    detail = serializers.CharField()



class ValidationErrorDetail(serializers.Serializer):
    detail = serializers.CharField(default="Invalid request")
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()),
                                   help_text="Parameter name -> messages")


class ValidationErrorItem(serializers.Serializer):
    type = serializers.CharField()
    loc = serializers.ListField(child=serializers.CharField())
    msg = serializers.CharField()
    input = serializers.JSONField(allow_null=True)


class ValidationErrorList(serializers.Serializer):
    detail = ValidationErrorItem(many=True)


class ValidationErrors(serializers.Serializer):
    errors = serializers.DictField(child=serializers.ListField(child=serializers.CharField()),
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
    400: "Missing or invalid parameter, or incompatible interval and range",
    404: "Unknown symbol or no data",
    429: "Rate limited (upstream rate limits carry `provider`)",
    500: "Internal server error",
    502: "Bad upstream answer", 503: UPSTREAM_503, 504: UPSTREAM_504,
}


def v2_error_responses() -> dict[int, OpenApiResponse]:
    """The four statuses every v2 endpoint lists, plus the upstream failures."""
    return {status: OpenApiResponse(ApiError, description=text)
            for status, text in _V2_DESCRIPTIONS.items()}
