"""Base view for API endpoints and JSON handlers for Django's error pages."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework.request import Request
from rest_framework.views import APIView

from apps.core.errors import DETAIL_ERRORS
from apps.core.params import validate_query


class ApiView(APIView):
    """Read-only endpoint: GET (and HEAD/OPTIONS) only, query validated by a serializer.

    ``query_serializer`` declares the parameters (also what the OpenAPI docs show);
    ``error_style`` picks the spec's 422 body for this endpoint.
    """

    http_method_names = ["get", "head", "options"]
    query_serializer: type | None = None
    error_style = DETAIL_ERRORS

    def query(self, request: Request) -> dict[str, Any]:
        assert self.query_serializer is not None
        return validate_query(self.query_serializer, request.query_params)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return JsonResponse({"detail": "Not Found"}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    return JsonResponse({"detail": "Internal server error"}, status=500)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return JsonResponse({"detail": "Bad request"}, status=400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return JsonResponse({"detail": "Forbidden"}, status=403)
