"""The labels requests are counted under, shared by the metrics middleware
(:mod:`apps.health.metrics`), the serving front and its fast path (:mod:`apps.core.front`,
:mod:`apps.core.fastpath`), so a request answered on either path is counted alike."""

from __future__ import annotations

UNMATCHED = "<unmatched>"  # the route of a request no URL pattern matched


def rate_limit_name(path: str) -> str:
    """The rate limit a request to ``path`` is counted against (its refusals' label)."""
    if path == "/v1/health":
        return "v1_health"
    return "v2_bucket" if path.startswith("/v2/") else "v1_daily"
