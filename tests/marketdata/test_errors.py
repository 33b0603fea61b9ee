"""Domain errors: replay from the cache, and which failure a failed fan-out reports."""

from __future__ import annotations

from marketdata.errors import (
    NotFound,
    UpstreamBadResponse,
    UpstreamCircuitOpen,
    UpstreamTimeout,
    error_from_dict,
    telling_failure,
)


def test_a_breaker_refusal_is_reported_only_when_nothing_else_failed():
    refused = UpstreamCircuitOpen("yahoo", "circuit open")
    bad = UpstreamBadResponse("yahoo", "HTTP 500")
    slow = UpstreamTimeout("yahoo", "timed out")
    assert telling_failure([refused, bad, slow]) is bad
    assert telling_failure([slow, refused]) is slow
    assert telling_failure([refused]) is refused
    assert telling_failure([]) is None


def test_a_breaker_refusal_replays_as_itself_with_the_503_body():
    refused = UpstreamCircuitOpen("yahoo", "circuit open")
    replayed = error_from_dict(refused.to_dict())
    assert type(replayed) is UpstreamCircuitOpen
    assert (replayed.status_code, replayed.code, replayed.provider) == (
        503, "upstream_unavailable", "yahoo")
    assert type(error_from_dict(NotFound("x").to_dict())) is NotFound
