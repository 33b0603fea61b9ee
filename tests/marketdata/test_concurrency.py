"""marketdata.concurrency.gather_partial: the one "serve what you can, report the most
telling failure" fan-out (full quotes, sectors, indices, general news, v2 indicator sets)."""

from __future__ import annotations

import pytest

from marketdata.cache import end_report, start_report
from marketdata.concurrency import gather_partial
from marketdata.errors import (
    DeadlineExceeded,
    IncompleteAnswer,
    NotFound,
    UpstreamBadResponse,
    UpstreamCircuitOpen,
    UpstreamTimeout,
)
from tests.conftest import capture_logs


def outcome_of(table):
    def fn(item):
        value = table[item]
        if isinstance(value, BaseException):
            raise value
        return value
    return fn


def test_values_in_input_order_and_left_out_items_sorted_out():
    table = {"A": 1, "B": NotFound("B not found"), "C": UpstreamTimeout("yahoo", "slow"),
             "D": 4}
    result = gather_partial(outcome_of(table), ["D", "B", "A", "C"])
    assert result.values == [("D", 4), ("A", 1)]
    assert [item for item, _ in result.not_found] == ["B"]
    assert [item for item, _ in result.failures] == ["C"]
    assert result.errors() == [{"symbol": "B", "message": "B not found"},
                               {"symbol": "C", "message": "slow"}]
    assert result.upstream_failed


def test_the_telling_failure_is_the_upstreams_own_answer():
    """Breaker refusals come last (the circuit opened because of the others), this server's
    own limits (deadline) next; the first answer the upstream itself gave wins."""
    table = {"A": UpstreamCircuitOpen("yahoo", "circuit open"),
             "B": DeadlineExceeded("yahoo", "deadline"),
             "C": UpstreamBadResponse("yahoo", "HTTP 500", 500),
             "D": UpstreamTimeout("yahoo", "slow")}
    result = gather_partial(outcome_of(table), ["A", "B", "C", "D"])
    with pytest.raises(UpstreamBadResponse):
        result.raise_if_empty(lambda: NotFound("none"))
    only_limits = gather_partial(outcome_of(table), ["A", "B"])
    assert isinstance(only_limits.telling_failure(), DeadlineExceeded)
    only_refusals = gather_partial(outcome_of(table), ["A"])
    assert isinstance(only_refusals.telling_failure(), UpstreamCircuitOpen)


def test_nothing_found_raises_the_callers_error():
    result = gather_partial(outcome_of({"A": NotFound("a"), "B": NotFound("b")}), ["A", "B"])
    with pytest.raises(NotFound, match="none of them"):
        result.raise_if_empty(lambda: NotFound("none of them"))
    assert not result.upstream_failed


def test_accept_refuses_an_unusable_value():
    result = gather_partial(outcome_of({"A": {"price": None}, "B": {"price": 1}}), ["A", "B"],
                            accept=lambda v: v["price"] is not None)
    assert result.values == [("B", {"price": 1})]
    [(item, error)] = result.failures
    assert item == "A" and isinstance(error, IncompleteAnswer)
    assert not result.upstream_failed


def test_a_bug_is_raised_not_left_out():
    with pytest.raises(ZeroDivisionError):
        gather_partial(lambda item: 1 / 0, ["A", "B"])


def test_an_upstream_failure_marks_the_answer_partial():
    report, token = start_report()
    try:
        gather_partial(outcome_of({"A": 1, "B": UpstreamTimeout("yahoo", "slow")}), ["A", "B"])
    finally:
        end_report(token)
    assert report.incomplete
    report, token = start_report()
    try:
        gather_partial(outcome_of({"A": 1, "B": NotFound("b")}), ["A", "B"])
    finally:
        end_report(token)
    assert not report.incomplete


def test_left_out_items_are_logged_with_the_callers_fields():
    with capture_logs("marketdata.concurrency") as logs:
        gather_partial(outcome_of({"dax": UpstreamTimeout("yahoo", "slow")}), ["dax"],
                       what="index", log_fields=lambda i: {"index": i, "symbol": "^GDAXI"})
    [record] = logs.records()
    assert record["message"] == "index left out"
    assert record["index"] == "dax" and record["symbol"] == "^GDAXI"
    assert record["reason"] == "slow" and record["error"] == "UpstreamTimeout"


# -- fan-out and full lanes -----------------------------------------------------------------
def _lane_call(lane, seen):
    """A call that occupies ``lane`` for a moment (a fan-out item on one upstream lane)."""
    import time

    from marketdata import lanes

    def call(item):
        with lanes.enter(lane):
            seen.append(item)
            time.sleep(0.02)
        return item * 10
    return call


def test_a_fan_out_larger_than_its_lanes_share_is_served_whole():
    """Items its own siblings crowded out of the lane run again when they have left."""
    from marketdata import lanes
    from marketdata.concurrency import run_parallel

    lane = lanes.Lane("chart", "Example (chart)", "ex", capacity=3, share=3)
    seen = []
    with lanes.parking(True):
        results = run_parallel(_lane_call(lane, seen), list(range(20)))
    assert results == [n * 10 for n in range(20)]
    assert sorted(seen) == list(range(20))
    assert lane.snapshot().occupants == 0


def test_a_fan_out_on_a_lane_others_hold_parks_its_request():
    from marketdata import lanes
    from marketdata.concurrency import run_parallel

    lane = lanes.Lane("chart", "Example (chart)", "ex", capacity=1, share=1)
    lane.admit()  # another request's slow call
    with lanes.parking(True), pytest.raises(lanes.LaneFull):
        run_parallel(_lane_call(lane, []), [1, 2, 3])
    lane.leave()


# -- a bounded fan-out (max_parallel) ----------------------------------------------------------
def test_a_bounded_fan_out_keeps_at_most_its_bound_in_flight_and_the_order():
    import threading
    import time

    from marketdata.concurrency import run_parallel

    lock, state = threading.Lock(), {"now": 0, "most": 0}

    def call(item):
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        time.sleep(0.01 * (item % 3))
        with lock:
            state["now"] -= 1
        if item == 7:
            raise ValueError("seven")
        return item * 2

    results = run_parallel(call, list(range(20)), max_parallel=3)
    assert [r for i, r in enumerate(results) if i != 7] == [n * 2 for n in range(20) if n != 7]
    assert isinstance(results[7], ValueError)
    assert 1 < state["most"] <= 3


def test_a_bounded_fan_out_larger_than_its_lanes_share_is_served_whole():
    from marketdata import lanes
    from marketdata.concurrency import run_parallel

    lane = lanes.Lane("chart", "Example (chart)", "ex", capacity=2, share=2)
    seen = []
    with lanes.parking(True):
        results = run_parallel(_lane_call(lane, seen), list(range(12)), max_parallel=5)
    assert results == [n * 10 for n in range(12)]
    assert sorted(seen) == list(range(12))
    assert lane.snapshot().occupants == 0


def test_a_bounded_fan_out_on_a_lane_others_hold_parks_its_request():
    from marketdata import lanes
    from marketdata.concurrency import run_parallel

    lane = lanes.Lane("chart", "Example (chart)", "ex", capacity=1, share=1)
    lane.admit()
    with lanes.parking(True), pytest.raises(lanes.LaneFull):
        run_parallel(_lane_call(lane, []), [1, 2, 3, 4], max_parallel=2)
    lane.leave()


def test_gather_partial_passes_its_bound_on():
    result = gather_partial(outcome_of({n: n for n in range(10)} | {3: NotFound("x")}),
                            list(range(10)), max_parallel=2)
    assert [item for item, _ in result.values] == [n for n in range(10) if n != 3]
    assert [item for item, _ in result.not_found] == [3]
