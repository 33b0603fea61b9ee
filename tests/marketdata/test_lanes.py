"""marketdata.lanes: occupants bounded by a share, in-flight slots bounded by a capacity,
all-or-none entry, parked requests woken one per leave."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from marketdata import deadline, lanes
from marketdata.errors import UpstreamBusy


def _lane(capacity: int = 2, share: int = 3, name: str = "chart") -> lanes.Lane:
    return lanes.Lane(name, f"Example ({name})", "ex", capacity, share)


def test_a_lane_admits_up_to_its_share():
    lane = _lane(share=2)
    assert lane.admit() and lane.admit()
    assert not lane.admit()
    lane.leave()
    assert lane.admit()
    assert lane.snapshot().occupants == 2


def test_slots_bound_calls_in_flight():
    lane = _lane(capacity=1)
    assert lane.acquire_slot(0.0)
    assert not lane.acquire_slot(0.05)
    assert lane.snapshot().in_flight == 1
    lane.release_slot()
    assert lane.acquire_slot(0.0)


def test_enter_is_all_or_none_and_names_the_full_lane():
    endpoint, provider = _lane(share=5), _lane(share=1, name="")
    assert provider.admit()  # the provider's share is taken
    with deadline.within(0.05), pytest.raises(UpstreamBusy) as info:
        lanes.enter(endpoint, provider)
    assert info.value.provider == "ex" and "Example () is busy" in info.value.detail
    assert endpoint.snapshot().occupants == 0  # let go again
    provider.leave()
    with lanes.enter(endpoint, provider) as ticket:
        assert ticket.lanes == (endpoint, provider)
        assert endpoint.snapshot().occupants == provider.snapshot().occupants == 1
    assert endpoint.snapshot().occupants == provider.snapshot().occupants == 0


def test_a_full_lane_parks_a_request_at_once():
    lane = _lane(share=1)
    lane.admit()
    with lanes.parking(True), pytest.raises(lanes.LaneFull) as info:
        lanes.enter(lane)
    assert info.value.lane is lane and isinstance(info.value.busy, UpstreamBusy)
    assert not isinstance(info.value, Exception)  # no `except Exception` turns it into an answer
    assert not lanes.parking_allowed()


def test_elsewhere_a_full_lane_is_waited_for_within_the_deadline():
    lane = _lane(share=1)
    lane.admit()
    with deadline.within(0.05), pytest.raises(UpstreamBusy):
        lanes.enter(lane)
    # Room made while waiting: admitted.
    threading.Timer(0.1, lane.leave).start()
    with deadline.within(5), lanes.enter(lane) as ticket:
        assert ticket.lanes == (lane,)
    assert lane.snapshot().occupants == 0


def test_parking_follows_the_context_into_threads():
    import contextvars

    seen = []
    with lanes.parking(True):
        context = contextvars.copy_context()
    thread = threading.Thread(target=lambda: seen.append(context.run(lanes.parking_allowed)))
    thread.start()
    thread.join()
    assert seen == [True]


def test_slots_of_a_ticket_are_released_when_one_does_not_come():
    endpoint, provider = _lane(capacity=2), _lane(capacity=1, name="")
    assert provider.acquire_slot(0.0)  # the provider has no slot left
    ticket = lanes.enter(endpoint, provider)
    with pytest.raises(UpstreamBusy), ticket.slots(0.0, lambda: UpstreamBusy("ex", "none")):
        pass
    assert endpoint.snapshot().in_flight == 0
    ticket.leave()
    ticket.leave()  # twice is once
    assert endpoint.snapshot().occupants == 0


def test_a_parked_request_is_woken_when_an_occupant_leaves():
    lane = _lane(share=1)
    lane.admit()
    woken = []
    lane.when_room(lambda: woken.append("first"))
    lane.when_room(lambda: woken.append("second"))
    assert woken == [] and lane.snapshot().parked == 2
    lane.leave()  # one leave wakes one request
    assert woken == ["first"]
    lane.admit()  # the woken request took the room
    lane.leave()
    assert woken == ["first", "second"]


def test_room_now_wakes_at_once_and_withdrawn_callbacks_are_not_called():
    lane = _lane(share=1)
    woken = []
    lane.when_room(lambda: woken.append("now"))
    assert woken == ["now"]
    lane.admit()
    withdraw = lane.when_room(lambda: woken.append("gone"))
    withdraw()
    withdraw()
    lane.leave()
    assert woken == ["now"]


def test_pass_on_wakes_the_next_when_the_room_is_still_free():
    lane = _lane(share=1)
    lane.admit()
    woken = []
    lane.when_room(lambda: woken.append(1))
    lane.when_room(lambda: woken.append(2))
    lane.leave()
    assert woken == [1]
    # Request 1 ran again and was answered without entering the lane: pass the room on.
    lane.pass_on()
    assert woken == [1, 2]
    lane.admit()
    lane.pass_on()  # full again: nothing to pass on
    assert woken == [1, 2]


def test_endpoint_capacity_keeps_slots_for_the_others():
    assert lanes.LanePolicy.endpoint_capacity(32) == 24
    assert lanes.LanePolicy.endpoint_capacity(4) == 3
    assert lanes.LanePolicy.endpoint_capacity(2) == 1
    assert lanes.LanePolicy.endpoint_capacity(1) == 1


def test_lane_sets_make_one_lane_per_endpoint_and_a_shared_provider_lane():
    lane_set = lanes.LaneSet(lanes.LanePolicy(endpoint_share=4, provider_share=6))
    chart = lane_set.for_call("yahoo", "Yahoo Finance", "chart", 32, own=False)
    quote = lane_set.for_call("yahoo", "Yahoo Finance", "quote", 32, own=False)
    crumb = lane_set.for_call("yahoo", "Yahoo Finance", "auth.crumb", 32, own=True)
    assert chart[1] is quote[1] and chart[0] is not quote[0]
    assert (chart[0].capacity, chart[0].share, chart[1].capacity, chart[1].share) == (24, 4, 32, 6)
    assert len(crumb) == 1 and crumb[0] not in chart
    assert [(s.provider, s.lane) for s in lane_set.states()] == [
        ("yahoo", ""), ("yahoo", "auth.crumb"), ("yahoo", "chart"), ("yahoo", "quote")]


@settings(max_examples=60, deadline=None)
@given(share=st.integers(1, 6), threads=st.integers(1, 12))
def test_occupants_never_exceed_the_share(share, threads):
    lane = _lane(capacity=share, share=share)
    gate, most, lock = threading.Barrier(threads), [0], threading.Lock()
    refused = []

    def occupant():
        gate.wait()
        try:
            with deadline.within(0.01), lanes.enter(lane):
                with lock:
                    most[0] = max(most[0], lane.snapshot().occupants)
        except UpstreamBusy:
            refused.append(1)

    workers = [threading.Thread(target=occupant) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert most[0] <= share
    assert lane.snapshot().occupants == 0
    assert len(refused) <= max(0, threads - 1)
