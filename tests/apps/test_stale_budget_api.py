"""One stale budget per answer (issue 39): an endpoint whose answer needs several upstream
calls, each with a stale copy, waits for a hanging upstream once in all, not once per call.

No timing here: the wait itself is replaced by a recorder that serves the stale copy at
once (as the cache does when the budget runs out) and notes when each wait was told to
end. Every wait of one request must be given the same end: the request's one budget. The
timed check through a real server with a hanging upstream is in
tests/integration/test_fault_containment.py."""

from __future__ import annotations

import time
import types

import pytest

from marketdata import cache as md_cache
from marketdata import deadline


@pytest.fixture
def stale_everywhere(monkeypatch, settings):
    """(advance the data cache's clock, the recorded ends of the waits)."""
    settings.RESPONSE_CACHE_ENABLED = False  # every request computes its answer
    offset = {"seconds": 0.0}
    monkeypatch.setattr(md_cache, "time", types.SimpleNamespace(
        time=lambda: time.time() + offset["seconds"], monotonic=time.monotonic,
        sleep=time.sleep, perf_counter=time.perf_counter))
    waits: list[float] = []

    def hanging_upstream(produce, release, stale, wait_until):
        waits.append(wait_until)
        release()
        return stale, False

    monkeypatch.setattr(md_cache, "_produce_within_grace", hanging_upstream)

    def advance(seconds: float) -> None:
        offset["seconds"] += seconds

    return advance, waits


@pytest.mark.parametrize(("target", "calls"), [
    # ticker table, filing list, then an index and an exhibit per filing
    ("/v2/press-releases/AAPL?limit=3", 8),
    ("/v2/trending?region=US", 2),  # the trending list, then one quote batch
    ("/v2/filings/AAPL", 2),  # ticker table, filer and filings
])
def test_a_fan_out_answer_waits_one_stale_budget(api, sandbox_upstream, stale_everywhere,
                                                 target, calls):
    advance, waits = stale_everywhere
    assert api.get(target).status_code == 200  # warm: every entry stored fresh
    advance(8 * 86400)  # every entry stale (past every TTL, within CACHE_MAX_STALE)
    budgets = []
    original = deadline.StaleBudget.ends

    def ends(self, now):
        budgets.append(self)
        return original(self, now)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(deadline.StaleBudget, "ends", ends)
        response = api.get(target)
    assert response.status_code == 200 and response["X-Cache"] == "STALE"
    assert len(waits) >= calls, waits  # the answer's upstream calls, each served stale
    [budget] = set(budgets)  # one budget for the request
    assert set(waits) <= {budget.started + deadline.stale_grace_seconds()}, waits


def test_every_run_of_a_request_shares_its_budget(rf):
    """A parked request runs again (apps.core.bridge): the runs share the first one's
    budget; another request gets its own."""
    from apps.core.middleware import RequestDeadlineMiddleware

    seen = []
    middleware = RequestDeadlineMiddleware(
        lambda request: seen.append(deadline.current_stale_budget()) or "ok")
    scope = {"type": "http"}
    for _ in range(2):
        request = rf.get("/v2/quote/AAPL")
        request.scope = scope
        middleware(request)
    middleware(rf.get("/v2/quote/AAPL"))
    assert seen[0] is seen[1] is not None and seen[2] not in (None, seen[0])
    assert deadline.current_stale_budget() is None  # reset after the request
