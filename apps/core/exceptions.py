"""DRF exception handler: domain errors and DRF's own errors -> the spec's JSON bodies."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import (
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
)
from rest_framework import exceptions as drf_exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_default_handler

from apps.core.errors import (
    DETAIL_ERRORS,
    V2,
    error_body,
    error_headers,
    error_status,
    v2_error_body,
)
from marketdata.errors import MarketDataError, NotConfigured
from marketdata.logs import get_logger

log = get_logger("apps.core.exceptions")


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    view = context.get("view")
    style = getattr(view, "error_style", DETAIL_ERRORS)
    if isinstance(exc, MarketDataError):
        # A 501 for a missing key is configuration, not an upstream failure.
        if exc.status_code >= 500 and not isinstance(exc, NotConfigured):
            log.warning("upstream failure", error=exc.detail, status_code=exc.status_code,
                        provider=getattr(exc, "provider", None))
        return Response(error_body(exc, style), status=error_status(exc, style),
                        headers=error_headers(exc))
    if isinstance(exc, SuspiciousOperation):
        # A request Django refuses to parse (over DATA_UPLOAD_MAX_NUMBER_FIELDS query
        # parameters, a body over DATA_UPLOAD_MAX_MEMORY_SIZE, a malformed multipart
        # body...): the client's fault, never a 500.
        log.warning("request refused", error_type=type(exc).__name__)
        status = 400
        if isinstance(exc, TooManyFieldsSent):
            detail = "Too many query parameters"
        elif isinstance(exc, RequestDataTooBig):
            status = 413
            detail = "Request body too large: at most " \
                f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes are accepted"
        else:
            detail = "Malformed request"
        if style == V2:
            return Response(v2_error_body(detail, status), status=status)
        return Response({"detail": detail}, status=status)
    if isinstance(exc, drf_exceptions.APIException):
        response = drf_default_handler(exc, context)
        if response is not None and style == V2:
            drf_detail = response.data.get("detail") if isinstance(response.data, dict) else None
            response.data = v2_error_body(str(drf_detail or exc.detail), response.status_code)
            return response
        if response is not None and not isinstance(response.data, dict):
            response.data = {"detail": response.data}
        return response
    log.exception("unhandled error", error_type=type(exc).__name__)
    if style == V2:
        return Response(v2_error_body("Internal server error", 500), status=500)
    return Response({"detail": "Internal server error"}, status=500)
