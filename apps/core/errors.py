"""The error bodies of the spec, built in one place.

v1 has three 422 shapes, chosen per view by ``error_style``:
- ``detail_errors`` (default): ``{detail: 'Invalid request', errors: {param: [msg]}}``
- ``detail_list`` (analysis): ``{detail: [{type, loc, msg, input}]}``
- ``errors`` (holders, financials): ``{errors: {param: [msg]}}``
Upstream failures: ``{detail, provider, code}``; other domain errors: ``{detail}``.
v2 (``V2``): ``{error, status}`` for everything (``provider`` added for upstream failures).
"""

from __future__ import annotations

from typing import Any

from marketdata.errors import InvalidParameters, MarketDataError, UpstreamError

DETAIL_ERRORS, DETAIL_LIST, ERRORS = "detail_errors", "detail_list", "errors"


def invalid_parameters_body(exc: InvalidParameters, style: str) -> dict[str, Any]:
    if style == DETAIL_LIST:
        return {"detail": [{"type": e.kind, "loc": [e.location, *e.param.split(".")],
                            "msg": e.message, "input": e.value} for e in exc.errors]}
    if style == ERRORS:
        return {"errors": exc.by_param()}
    return {"detail": "Invalid request", "errors": exc.by_param()}


def error_body(exc: MarketDataError, style: str = DETAIL_ERRORS) -> dict[str, Any]:
    if style == V2:
        return v2_error_body(v2_message(exc), error_status(exc, style),
                             getattr(exc, "provider", None))
    if isinstance(exc, InvalidParameters):
        return invalid_parameters_body(exc, style)
    if isinstance(exc, UpstreamError):
        return {"detail": exc.detail, "provider": exc.provider, "code": exc.code}
    if exc.shows_code:
        return {"detail": exc.detail, "code": exc.code}
    return {"detail": exc.detail}


def error_headers(exc: MarketDataError) -> dict[str, str]:
    """Retry hints for statuses where retrying later is the right move."""
    if isinstance(exc, UpstreamError) and exc.status_code in (429, 503):
        return {"Retry-After": "30"}
    return {}


# v2: every error is ``{error, status}`` (ApiError); 422-style parameter errors are 400.
V2 = "v2"


def v2_error_body(message: str, status: int, provider: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"error": message, "status": status}
    if provider is not None:
        body["provider"] = provider
    return body


def page_error_body(path: str, message: str, status: int) -> dict[str, Any]:
    """An error answered for a whole page rather than by an endpoint's view (Django's 404
    and 500 pages, and the serving front's 400/408/413/414/431): v2's ApiError under /v2/,
    ``{detail}`` everywhere else (v1's shape for errors other than a 422)."""
    if path.startswith("/v2/"):
        return v2_error_body(message, status)
    return {"detail": message}


def error_status(exc: MarketDataError, style: str) -> int:
    if style == V2 and isinstance(exc, InvalidParameters):
        return 400
    return exc.status_code


def v2_message(exc: MarketDataError) -> str:
    """One line: ``"symbols: Field required; limit: Input should be ..."`` for parameters."""
    if isinstance(exc, InvalidParameters):
        return "; ".join(f"{param}: {', '.join(messages)}"
                         for param, messages in exc.by_param().items())
    return exc.detail
