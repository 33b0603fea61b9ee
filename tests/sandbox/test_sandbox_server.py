import pytest


@pytest.mark.slow("watches the time-lapse clock run for a real second or two")
def test_a_time_lapse_clock_starts_where_asked_and_runs_faster():
    import time as _time
    from datetime import UTC, datetime

    from marketdata.sandbox.cli import make_clock

    assert make_clock(None, 1.0) is None  # the real clock
    start = datetime(2026, 11, 24, 14, 31, tzinfo=UTC)
    clock = make_clock(start, 60.0)
    first = clock()
    _time.sleep(0.1)
    elapsed = (clock() - first).total_seconds()
    assert (first - start).total_seconds() < 1.0
    assert 5.0 <= elapsed < 30.0  # 0.1 s of real time is 6 simulated seconds
