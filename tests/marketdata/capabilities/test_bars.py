"""marketdata.capabilities.bars: the query validated once, before any source; the sources
of the ``bars`` row asked in order, a source that does not serve the query passed over, the
first source given only a share of the deadline when a next one exists."""

from __future__ import annotations

import dataclasses
import time

import pytest

from marketdata import deadline
from marketdata.capabilities import bars as price_history
from marketdata.capabilities import table
from marketdata.errors import BadRequest, NotFound, NotServed, UpstreamUnavailable
from marketdata.records.bars import NO_EVENTS, Bars, chart_meta


def _bars(source: str) -> Bars:
    return Bars("1d", chart_meta({"symbol": "X"}), [1], [1.0], [1.0], [1.0], [1.0], [5],
                None, NO_EVENTS, source)


@pytest.fixture
def two_sources(monkeypatch):
    """The ``bars`` row with a second, keyless test source; the fetchers are set per test."""
    calls: list[tuple[str, tuple, dict]] = []
    answers: dict[str, object] = {}

    def fetcher(name):
        def fetch(*args, **kwargs):
            calls.append((name, args, {**kwargs, "left": deadline.remaining()}))
            answer = answers[name]
            if isinstance(answer, Exception):
                raise answer
            return answer
        return fetch

    row = table.CAPABILITIES["bars"]
    second = table.Source("second", "a second source", fetcher="tests.second:bars")
    monkeypatch.setitem(table.CAPABILITIES, "bars", dataclasses.replace(
        row, sources=(*row.sources[:1], second)))
    monkeypatch.setitem(table._fetchers, row.sources[0].fetcher, fetcher("yahoo"))
    monkeypatch.setitem(table._fetchers, "tests.second:bars", fetcher("second"))
    return calls, answers


def test_a_bad_combination_is_refused_before_any_source(two_sources):
    calls, _ = two_sources
    with pytest.raises(BadRequest):
        price_history.chart("X", "1m", "1y")
    with pytest.raises(BadRequest):
        price_history.chart("X", "1d", start=200, end=100)
    assert calls == []


def test_the_first_answer_wins(two_sources):
    calls, answers = two_sources
    answers.update(yahoo=_bars("yahoo"), second=_bars("second"))
    assert price_history.chart("X", "1d", "1mo").source == "yahoo"
    assert [c[0] for c in calls] == ["yahoo"]
    assert calls[0][1] == ("X", "1d", "1mo")


def test_a_failing_first_source_falls_back_with_time_left(two_sources):
    calls, answers = two_sources
    answers.update(yahoo=UpstreamUnavailable("yahoo", "down"), second=_bars("second"))
    with deadline.within(10):
        assert price_history.chart("X", "1d", "1mo").source == "second"
    (_, _, first), (_, _, second) = calls
    assert first["left"] <= 5.0 + 0.01  # the first source's share: half
    assert second["left"] > 9.0  # the last source: whatever is left


def test_not_found_is_an_answer_and_not_served_is_passed_over(two_sources):
    calls, answers = two_sources
    answers.update(yahoo=NotFound("No data found for symbol X"), second=_bars("second"))
    with pytest.raises(NotFound):
        price_history.chart("X", "1d", "1mo")
    assert [c[0] for c in calls] == ["yahoo"]
    calls.clear()
    answers.update(yahoo=NotServed("no"), second=_bars("second"))
    assert price_history.chart("X", "1d", "1mo").source == "second"


def test_every_source_failing_raises_the_first_failure(two_sources):
    _, answers = two_sources
    answers.update(yahoo=UpstreamUnavailable("yahoo", "down"),
                   second=UpstreamUnavailable("second", "also down"))
    with pytest.raises(UpstreamUnavailable) as info:
        price_history.chart("X", "1d", "1mo")
    assert info.value.provider == "yahoo"


def test_an_absolute_window_passes_now_to_the_sources(two_sources):
    calls, answers = two_sources
    answers.update(yahoo=_bars("yahoo"))
    before = int(time.time())
    price_history.chart("X", "1d", start=1_600_000_000)
    (_, args, kwargs), = calls
    assert args == ("X", "1d", None) and kwargs["start"] == 1_600_000_000
    assert kwargs["end"] is None and before <= kwargs["now"] <= int(time.time())
