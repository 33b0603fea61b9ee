"""Base view for API endpoints and JSON handlers for Django's error pages."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework.request import Request
from rest_framework.views import APIView

from apps.core.errors import DETAIL_ERRORS, page_error_body
from apps.core.params import choices_message, validate_query
from apps.core.symbols import encoded_slash_in_path
from apps.core.tabular import TableMixin
from marketdata.errors import FieldError, InvalidParameters, NotFound
from marketdata.symbols import display_symbol


class ApiView(TableMixin, APIView):
    """Read-only endpoint: GET (and HEAD/OPTIONS) only, query validated by a serializer.

    ``query_serializer`` declares the parameters (also what the OpenAPI docs show);
    ``error_style`` picks the spec's 422 body for this endpoint; ``csv_table`` says where
    its table is when it also answers CSV (:mod:`apps.core.tabular`).
    """

    http_method_names = ["get", "head", "options"]
    query_serializer: type | None = None
    error_style = DETAIL_ERRORS

    def query(self, request: Request) -> dict[str, Any]:
        assert self.query_serializer is not None
        return validate_query(self.query_serializer, request.query_params)


def sub_route_choice(request: HttpRequest, symbol: str, name: str, param: str,
                     choices: tuple[str, ...], aliases: dict[str, str]) -> str:
    """The choice a reference-style sub-route names (``/v1/holders/AAPL/insider-roster``).

    ``name`` is a choice itself or one of its hyphenated ``aliases``; anything else is the
    query form's 422, keyed by ``param`` with location ``path``. An encoded slash in the raw
    target (``AAPL%2Fmajor`` decoded into this route) is a malformed symbol: 404.
    """
    if encoded_slash_in_path(request.META):
        raise NotFound(f"Symbol not found: '{display_symbol(f'{symbol}/{name}')}'")
    resolved = name if name in choices else aliases.get(name)
    if resolved is None:
        raise InvalidParameters([FieldError(param, choices_message(choices), "enum", name,
                                            location="path")])
    return resolved


def error_response(request: HttpRequest, message: str, status: int) -> HttpResponse:
    """Django's own error pages as JSON: v2's ApiError on /v2 paths (unknown routes
    included), v1's ``{detail}`` elsewhere."""
    return JsonResponse(page_error_body(request.path, message, status), status=status)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, "Not Found", 404)


def server_error(request: HttpRequest) -> HttpResponse:
    return error_response(request, "Internal server error", 500)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, "Bad request", 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return error_response(request, "Forbidden", 403)
