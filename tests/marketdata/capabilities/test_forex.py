"""marketdata.capabilities.forex: the live source first, the reference rate after, also when
the live source does not list the pair; a 404 only when no source failed."""

from __future__ import annotations

import pytest

from marketdata.capabilities import forex, table
from marketdata.errors import NotFound, UpstreamUnavailable
from marketdata.records.quotes import ForexQuote

LIVE = ForexQuote("EUR", "USD", 1.05, 1.04, 1.06, 0.01, 0.5, 1739789683)
FIX = ForexQuote("EUR", "USD", 1.0478, None, None, 0.0065, 0.62422, 1739491200)


@pytest.fixture
def answers(monkeypatch):
    """The two sources' fetchers of the ``forex`` row answer what a test sets; every call is
    recorded."""
    calls: list[str] = []
    set_answers: dict[str, object] = {}

    def fetcher(name):
        def fetch(base, quote):
            calls.append(name)
            answer = set_answers[name]
            if isinstance(answer, Exception):
                raise answer
            return answer
        return fetch

    for source in table.CAPABILITIES["forex"].sources:
        monkeypatch.setitem(table._fetchers, source.fetcher, fetcher(source.name))
    return calls, set_answers


def test_the_live_quote_wins(answers):
    calls, set_answers = answers
    set_answers.update(yahoo=LIVE, frankfurter=FIX)
    assert forex.pair_quote("EUR", "USD") is LIVE
    assert calls == ["yahoo"]


@pytest.mark.parametrize("yahoo", [NotFound("No quote for EUR/USD"),
                                   UpstreamUnavailable("yahoo", "down", 503)])
def test_the_reference_rate_when_the_live_source_lacks_the_pair_or_fails(answers, yahoo):
    calls, set_answers = answers
    set_answers.update(yahoo=yahoo, frankfurter=FIX)
    assert forex.pair_quote("EUR", "USD") is FIX
    assert calls == ["yahoo", "frankfurter"]


def test_no_source_has_the_pair_is_404(answers):
    _, set_answers = answers
    set_answers.update(yahoo=NotFound("a"), frankfurter=NotFound("b"))
    with pytest.raises(NotFound, match=r"^No quote for EUR/AED$"):
        forex.pair_quote("EUR", "AED")


def test_a_failure_before_a_lacking_source_is_the_answer(answers):
    """Nobody said the pair does not exist: the live source's failure, not a 404."""
    _, set_answers = answers
    failure = UpstreamUnavailable("yahoo", "down", 503)
    set_answers.update(yahoo=failure, frankfurter=NotFound("no rate"))
    with pytest.raises(UpstreamUnavailable) as caught:
        forex.pair_quote("EUR", "AED")
    assert caught.value is failure


@pytest.mark.parametrize(("yahoo", "expected"), [
    (NotFound("no quote"), "frankfurter"),  # the only source that answered failed
    (UpstreamUnavailable("yahoo", "down", 503), "yahoo"),  # both failed: the first one
])
def test_failures_name_their_provider(answers, yahoo, expected):
    _, set_answers = answers
    set_answers.update(yahoo=yahoo, frankfurter=UpstreamUnavailable("frankfurter", "x", 503))
    with pytest.raises(UpstreamUnavailable) as caught:
        forex.pair_quote("EUR", "USD")
    assert caught.value.provider == expected
