"""The capability table: keyed sources only with their key, the fallback order, a refused
key logged once, "not found" ending the search, and every capability servable keylessly."""

from __future__ import annotations

import logging

import pytest

from marketdata import capabilities as sources
from marketdata.errors import (
    BadRequest,
    CredentialsRejected,
    NotFound,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from tests.conftest import capture_logs


@pytest.fixture(autouse=True)
def _no_keys(settings):
    settings.FRED_API_KEY = ""
    settings.FMP_API_KEY = ""
    sources.reset_warnings()


def test_every_capability_has_a_keyless_source(settings):
    for cap in sources.CAPABILITIES.values():
        if cap.keyed_only:  # no keyless source exists: a 501 and a notice instead
            assert not cap.active_sources(), cap.name
            continue
        assert cap.active_sources(), cap.name
        assert any(s.key_setting is None for s in cap.sources), cap.name


def test_keyed_source_only_with_its_key(settings):
    assert sources.active_source("macro_series") == "fred_graph"
    assert sources.active_source("press_releases") == "sec"
    settings.FRED_API_KEY = "abc"
    settings.FMP_API_KEY = "def"
    assert sources.active_source("macro_series") == "fred_api"
    assert sources.active_source("press_releases") == "fmp"


def test_serve_without_key_never_calls_the_keyed_source():
    calls = []
    result = sources.serve("grading_actions", {
        "fmp": lambda: calls.append("fmp"), "yahoo": lambda: "from yahoo"})
    assert result == "from yahoo" and calls == []


def test_refused_key_falls_back_and_warns_once(settings):
    settings.FMP_API_KEY = "secret-key-value"

    def refused():
        raise CredentialsRejected("fmp", "Financial Modeling Prep refused the API key", 401)

    with capture_logs("marketdata.capabilities", logging.INFO) as logs:
        for _ in range(3):
            assert sources.serve("price_target_consensus",
                                 {"fmp": refused, "yahoo": lambda: "keyless"}) == "keyless"
    warnings = [r for r in logs.records() if r["level"] == "WARNING"]
    assert len(warnings) == 1 and warnings[0]["provider"] == "fmp"
    assert "secret-key-value" not in logs.text()


@pytest.mark.parametrize("error", [UpstreamUnavailable("fmp", "down", 503),
                                   UpstreamTimeout("fmp", "slow")])
def test_upstream_failure_falls_back(settings, error):
    settings.FMP_API_KEY = "k"

    def failing():
        raise error

    assert sources.serve("press_releases", {"fmp": failing, "sec": lambda: [1]}) == [1]


@pytest.mark.parametrize("error", [NotFound("no such symbol"), BadRequest("bad")])
def test_answers_end_the_search(settings, error):
    settings.FMP_API_KEY = "k"
    calls = []

    def answer():
        raise error

    with pytest.raises(type(error)):
        sources.serve("press_releases", {"fmp": answer, "sec": lambda: calls.append(1)})
    assert calls == []


def test_all_failing_raises_the_preferred_sources_failure(settings):
    settings.FMP_API_KEY = "k"
    first = UpstreamUnavailable("fmp", "fmp down", 503)

    def fmp():
        raise first

    def sec():
        raise UpstreamTimeout("sec", "sec slow")

    with pytest.raises(UpstreamUnavailable) as caught:
        sources.serve("press_releases", {"fmp": fmp, "sec": sec})
    assert caught.value is first


def test_notices_name_the_serving_source(settings):
    text = "\n".join(sources.notices())
    assert "Forex (/v2/forex/{from}/{to}): Yahoo Finance (live bid/ask); when it fails, " \
           "the ECB reference rates (Frankfurter)." in text
    assert "set FMP_API_KEY to use Financial Modeling Prep first" in text


def test_notices_say_when_a_fallback_answered_lately():
    def down():
        raise UpstreamUnavailable("yahoo", "Yahoo Finance is unavailable")

    forex = next(n for n in sources.notices() if n.startswith("Forex"))
    assert "last answer" not in forex
    assert sources.serve("forex", {"yahoo": down, "frankfurter": lambda: "ecb"}) == "ecb"
    forex = next(n for n in sources.notices() if n.startswith("Forex"))
    assert forex.endswith("; the last answer came from the ECB reference rates (Frankfurter) "
                          "(0 s ago).")
    assert sources.serve("forex", {"yahoo": lambda: "live", "frankfurter": lambda: "ecb"})
    forex = next(n for n in sources.notices() if n.startswith("Forex"))
    assert "last answer" not in forex


def test_keyed_only_capability_without_its_key_is_not_configured(settings):
    from marketdata.errors import NotConfigured

    with pytest.raises(NotConfigured) as caught:
        sources.serve("congressional_trades", {"fmp": lambda: ["never"]})
    assert caught.value.status_code == 501 and "FMP_API_KEY" in caught.value.detail
    notice = sources.capability("congressional_trades").notice()
    assert "FMP_API_KEY" in notice and "not served" in notice
    settings.FMP_API_KEY = "k"
    assert sources.serve("congressional_trades", {"fmp": lambda: ["trade"]}) == ["trade"]
