"""Domain errors raised by providers and services, mapped to HTTP statuses in one place.

The core raises these; ``apps.core.exceptions`` renders them in the spec's bodies. Nothing
here knows about DRF, so providers stay framework-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class MarketDataError(Exception):
    """Base class: every error the service means to show a client."""

    status_code: int = 500
    code: str = "error"
    # Whether a v1 body names ``code`` beside ``detail`` (upstream errors always do): for a
    # status a client must tell apart from another of the same number.
    shows_code: bool = False

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail

    def to_dict(self) -> dict[str, Any]:
        """Serialisable form, so a cached error can be replayed to other waiters."""
        return {"cls": type(self).__name__, "detail": self.detail}


class NotFound(MarketDataError):
    """A symbol or resource is unknown, or has no data."""

    status_code = 404
    code = "not_found"


class IncompleteAnswer(MarketDataError):
    """An item of a fan-out came back without what the answer needs (e.g. no price)."""

    status_code = 502
    code = "incomplete_answer"


class NotServed(MarketDataError):
    """A source does not serve this query at all (a daily-bars source asked for minutes):
    the capability table passes it over for the next. Reaches a client only when no source
    serves the query (400)."""

    status_code = 400
    code = "not_served"


class NotConfigured(MarketDataError):
    """Nothing can serve this data with the settings in place: its only sources need a key
    that is not set (501, naming the setting)."""

    status_code = 501
    code = "not_configured"


class BadRequest(MarketDataError):
    """A well-formed request that cannot be served as asked (e.g. interval/range combination)."""

    status_code = 400
    code = "bad_request"


@dataclass
class FieldError:
    """One invalid parameter; ``kind`` follows pydantic's error type names (missing, enum, ...)."""

    param: str
    message: str
    kind: str = "value_error"
    value: Any = None
    location: str = "query"


class InvalidParameters(MarketDataError):
    """One or more request parameters are missing or invalid (HTTP 422)."""

    status_code = 422
    code = "invalid_parameters"

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("Invalid request")
        self.errors = errors

    def by_param(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for err in self.errors:
            out.setdefault(err.param, []).append(err.message)
        return out


class UpstreamError(MarketDataError):
    """An upstream provider failed; never shown as a bare 500."""

    status_code = 502
    code = "upstream_error"

    def __init__(self, provider: str, detail: str, upstream_status: int | None = None) -> None:
        super().__init__(detail)
        self.provider = provider
        self.upstream_status = upstream_status

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "provider": self.provider,
                "upstream_status": self.upstream_status}


class UpstreamBadResponse(UpstreamError):
    """The provider answered, but with a 5xx or a body we cannot use (502)."""

    status_code = 502
    code = "upstream_bad_response"


class CredentialsRejected(UpstreamBadResponse):
    """A keyed provider refused its key (401/403) (502 when nothing else can answer). The
    capability's next source is tried (:mod:`marketdata.capabilities.table`); the message
    never carries the key. ``remember``: the key itself was refused (not only this call),
    so it is not sent again for a while."""

    remember = True


class UpstreamUnavailable(UpstreamError):
    """The provider could not be reached, or its circuit is open (503)."""

    status_code = 503
    code = "upstream_unavailable"


class UpstreamCircuitOpen(UpstreamUnavailable):
    """The provider's circuit breaker refused the call without trying it (503, same body)."""


class UpstreamTimeout(UpstreamError):
    """The provider did not answer in time (504)."""

    status_code = 504
    code = "upstream_timeout"


class UpstreamBusy(UpstreamUnavailable):
    """No slot of the upstream's lanes came free within the request deadline, or its lane holds
    its share of the threads already (503).
    Says nothing about the upstream's health: not counted by breakers, not remembered."""


class DeadlineExceeded(UpstreamTimeout):
    """The request deadline ended the call (or left no time to make it) (504). Says
    nothing about the upstream's health: not counted by breakers, not remembered."""


def says_nothing_about_upstream(error: MarketDataError) -> bool:
    """True for failures this server imposed on itself (deadline, full lanes)."""
    return isinstance(error, UpstreamBusy | DeadlineExceeded)


class UpstreamRateLimited(UpstreamError):
    """The provider rate-limited us (429)."""

    status_code = 429
    code = "upstream_rate_limited"


_REPLAYABLE: dict[str, type[MarketDataError]] = {cls.__name__: cls for cls in (
    NotFound, BadRequest, UpstreamError, UpstreamBadResponse, CredentialsRejected,
    UpstreamUnavailable,
    UpstreamCircuitOpen, UpstreamTimeout, UpstreamRateLimited, UpstreamBusy, DeadlineExceeded,
)}


def telling_failure(failures: list[MarketDataError]) -> MarketDataError | None:
    """The failure to report when a fan-out failed everywhere: the first one the upstream
    itself caused. This server's own limits (deadline, full lanes) come next, breaker
    refusals last: the circuit opened *because* of the others, and which calls it refused
    depends only on thread timing."""

    def rank(failure: MarketDataError) -> int:
        if isinstance(failure, UpstreamCircuitOpen):
            return 2
        return 1 if says_nothing_about_upstream(failure) else 0

    return min(failures, key=rank) if failures else None


def error_from_dict(data: dict[str, Any]) -> MarketDataError:
    """Rebuild an error stored by :meth:`MarketDataError.to_dict` (used by the cache)."""
    cls = _REPLAYABLE.get(data.get("cls", ""), UpstreamError)
    if issubclass(cls, UpstreamError):
        return cls(data.get("provider", "unknown"), data["detail"], data.get("upstream_status"))
    return cls(data["detail"])
