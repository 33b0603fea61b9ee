"""Yahoo cookie + crumb handshake (auth.py) and crumb handling of get_json (client.py)."""

from __future__ import annotations

import json
import logging
import re
import threading
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses

from marketdata.errors import NotFound, UpstreamBadResponse, UpstreamError, UpstreamUnavailable
from marketdata.http import get_client
from marketdata.providers.yahoo.auth import Credentials, YahooAuth, valid_crumb
from marketdata.providers.yahoo.client import _client, get_auth, get_json
from tests.conftest import CRUMB, QUERY1, QUERY2, calls_to, capture_logs
from tests.marketdata.threads import run_threads

QUOTE_URL = f"{QUERY1}/v7/finance/quote"
GETCRUMB1 = f"{QUERY1}/v1/test/getcrumb"
GETCRUMB2 = f"{QUERY2}/v1/test/getcrumb"
CONSENT = "https://guce.yahoo.com/consent"
COLLECT = "https://consent.yahoo.com/v2/collectConsent"
COPY = "https://guce.yahoo.com/copyConsent"
NEW_CRUMB = "n3wCrumbX.y"
QUOTE_BODY = {"quoteResponse": {"result": [{"symbol": "AAPL", "regularMarketPrice": 1.0}],
                                "error": None}}


def query_of(request) -> dict[str, list[str]]:
    return parse_qs(urlsplit(request.url).query)


def url_re(url: str) -> re.Pattern:
    return re.compile(re.escape(url) + r"(\?.*)?$")


def query(call) -> dict[str, list[str]]:
    return parse_qs(urlsplit(call.request.url).query)


def crumbs_sent(mock, fragment="/v7/finance/quote") -> list[str]:
    return [query(c).get("crumb", [None])[0] for c in calls_to(mock, fragment)]


def quote() -> dict:
    return get_json("quote", QUOTE_URL, {"symbols": "AAPL"})


def set_crumb_answers(mock, *bodies: str, url: str = GETCRUMB1, status: int = 200) -> None:
    """Replace the fixture's getcrumb answer by ``bodies`` in turn (the last one repeats)."""
    mock.remove(responses.GET, url)
    for body in bodies:
        mock.get(url, body=body, status=status, content_type="text/plain")


def register_consent(mock, html: str, crumb_after: str = CRUMB) -> None:
    mock.get(CONSENT, body=html, content_type="text/html")
    mock.add(responses.POST, url_re(COLLECT), body="", status=200)
    mock.add(responses.GET, url_re(COPY), body="", status=200)
    mock.get(GETCRUMB2, body=crumb_after, content_type="text/plain")


# -- crumb validation ------------------------------------------------------------------------------
class TestValidCrumb:
    def test_recorded_crumb_is_valid(self, recording):
        assert valid_crumb(recording("yahoo/auth-crumb/getcrumb.txt"))

    @pytest.mark.parametrize("text", [CRUMB, "Xb1rJ8o.Yd/", "a_b-c.d/e", "abcde", "x" * 64,
                                      CRUMB + "\n"])
    def test_valid(self, text):
        assert valid_crumb(text)

    @pytest.mark.parametrize("text", [
        "", "   ", "\n", "\t \n",
        "<html><body>Error</body></html>",
        "<!DOCTYPE html><html>",
        "Too Many Requests",
        "too many requests",
        "abc def",
        "ab\tcd ef",
        "abcd",                      # too short
        "x" * 65,                    # too long
        '{"error": "x"}',
    ])
    def test_invalid(self, text):
        assert not valid_crumb(text)


# -- handshake -------------------------------------------------------------------------------------
class TestHandshake:
    def test_cookie_then_crumb(self, yahoo):
        auth = YahooAuth(_client())
        credentials = auth.current()
        assert credentials == Credentials(CRUMB, 1)
        urls = [c.request.url for c in yahoo.mock.calls]
        assert urls == ["https://fc.yahoo.com/", GETCRUMB1]
        assert "A3=" in yahoo.mock.calls[1].request.headers.get("Cookie", "")

    def test_crumb_is_kept(self, yahoo):
        auth = YahooAuth(_client())
        assert auth.current() is auth.current()
        assert len(calls_to(yahoo.mock, "getcrumb")) == 1

    def test_first_crumb_protected_call(self, yahoo):
        yahoo.quote(QUOTE_BODY)
        assert quote() == QUOTE_BODY
        urls = [c.request.url for c in yahoo.mock.calls]
        assert urls[:2] == ["https://fc.yahoo.com/", GETCRUMB1]
        assert crumbs_sent(yahoo.mock) == [CRUMB]
        assert query(yahoo.mock.calls[2])["symbols"] == ["AAPL"]
        assert "A3=" in yahoo.mock.calls[2].request.headers.get("Cookie", "")

    def test_no_refresh_on_a_timer(self, yahoo):
        yahoo.quote(QUOTE_BODY)
        for _ in range(3):
            quote()
        assert len(calls_to(yahoo.mock, "getcrumb")) == 1
        assert len(calls_to(yahoo.mock, "fc.yahoo.com")) == 1
        assert crumbs_sent(yahoo.mock) == [CRUMB] * 3

    def test_crumbless_calls_skip_the_handshake(self, yahoo):
        yahoo.chart("AAPL", {"chart": {"result": None, "error": None}})
        get_json("chart", f"{QUERY2}/v8/finance/chart/AAPL", {"range": "1d"}, crumb=False)
        assert calls_to(yahoo.mock, "getcrumb") == []
        assert "crumb" not in query(yahoo.mock.calls[0])

    def test_auth_belongs_to_the_client(self, yahoo):
        client = _client()
        assert get_auth(client) is get_auth(client)
        assert get_auth(client) is get_auth(get_client())


class TestConsentFlow:
    @pytest.mark.parametrize("bad", [
        "", "   \n", "<html><head></head><body>consent</body></html>", "Too Many Requests",
    ])
    def test_unusable_crumb_walks_the_consent_form(self, yahoo, recording, bad):
        html = recording("yahoo/auth-crumb/collectConsent.html")
        csrf = re.search(r'name="csrfToken"\s+value="([^"]*)"', html).group(1)
        session_id = re.search(r'name="sessionId"\s+value="([^"]*)"', html).group(1)
        set_crumb_answers(yahoo.mock, bad)
        register_consent(yahoo.mock, html, crumb_after=NEW_CRUMB)

        assert YahooAuth(_client()).current().crumb == NEW_CRUMB

        posts = [c for c in yahoo.mock.calls if c.request.method == "POST"]
        assert len(posts) == 1
        post = posts[0]
        assert post.request.url.startswith(COLLECT)
        assert query(post) == {"sessionId": [session_id]}
        form = parse_qs(post.request.body)
        assert form["csrfToken"] == [csrf]
        assert form["sessionId"] == [session_id]
        assert form["agree"] == ["agree", "agree"]
        assert form["consentUUID"] == ["default"]
        assert form["namespace"] == ["yahoo"]
        assert form["originalDoneUrl"] == ["https://finance.yahoo.com/"]
        order = [urlsplit(c.request.url)._replace(query="").geturl() for c in yahoo.mock.calls]
        assert order == ["https://fc.yahoo.com/", GETCRUMB1, CONSENT, COLLECT, COPY, GETCRUMB2]
        copy_call = calls_to(yahoo.mock, "copyConsent")[0]
        assert query(copy_call) == {"sessionId": [session_id]}

    def test_consent_crumb_is_used_on_the_call(self, yahoo, recording):
        set_crumb_answers(yahoo.mock, "<html></html>")
        register_consent(yahoo.mock, recording("yahoo/auth-crumb/collectConsent.html"),
                         crumb_after=NEW_CRUMB)
        yahoo.quote(QUOTE_BODY)
        quote()
        assert crumbs_sent(yahoo.mock) == [NEW_CRUMB]

    def test_still_no_crumb_after_consent(self, yahoo, recording):
        set_crumb_answers(yahoo.mock, "<html></html>")
        register_consent(yahoo.mock, recording("yahoo/auth-crumb/collectConsent.html"),
                         crumb_after="Too Many Requests")
        with pytest.raises(UpstreamUnavailable) as info:
            YahooAuth(_client()).current()
        assert info.value.status_code == 503
        assert info.value.provider == "yahoo"
        assert "Yahoo" in info.value.detail

    def test_consent_form_without_fields(self, yahoo):
        set_crumb_answers(yahoo.mock, "")
        yahoo.mock.get(CONSENT, body="<html><form></form></html>", content_type="text/html")
        with pytest.raises(UpstreamUnavailable) as info:
            YahooAuth(_client()).current()
        assert info.value.provider == "yahoo"
        assert "Yahoo" in info.value.detail
        assert [c for c in yahoo.mock.calls if c.request.method == "POST"] == []

    def test_failed_handshake_fails_the_call_with_503(self, yahoo):
        set_crumb_answers(yahoo.mock, "")
        yahoo.mock.get(CONSENT, body="<html></html>", content_type="text/html")
        yahoo.quote(QUOTE_BODY)
        with pytest.raises(UpstreamUnavailable) as info:
            quote()
        assert info.value.status_code == 503
        assert info.value.provider == "yahoo"
        assert calls_to(yahoo.mock, "/v7/finance/quote") == []

    def test_unreachable_cookie_host(self, yahoo):
        yahoo.mock.remove(responses.GET, "https://fc.yahoo.com/")
        yahoo.mock.get("https://fc.yahoo.com/", body=requests.exceptions.ConnectionError("x"))
        with pytest.raises(UpstreamUnavailable) as info:
            YahooAuth(_client()).current()
        assert info.value.status_code == 503
        assert info.value.provider == "yahoo"
        assert "Yahoo Finance" in info.value.detail

    def test_getcrumb_rate_limited(self, yahoo):
        set_crumb_answers(yahoo.mock, "Too Many Requests", status=429)
        with pytest.raises(UpstreamError) as info:
            YahooAuth(_client()).current()
        assert info.value.provider == "yahoo"
        assert info.value.upstream_status == 429
        assert len(calls_to(yahoo.mock, "getcrumb")) == 1  # rate limits are not retried

    def test_getcrumb_server_error(self, yahoo):
        set_crumb_answers(yahoo.mock, "oops", status=500)
        with pytest.raises(UpstreamUnavailable) as info:
            YahooAuth(_client()).current()
        assert info.value.provider == "yahoo"
        assert info.value.upstream_status == 500


# -- crumb rejected by Yahoo -----------------------------------------------------------------------
INVALID_CRUMB = ('{"finance":{"result":null,"error":{"code":"Unauthorized",'
                 '"description":"Invalid Crumb"}}}')


class TestCrumbRejected:
    @pytest.mark.parametrize(("status", "body"), [
        (401, '{"finance":{"error":{"code":"Unauthorized","description":"User is unable to '
              'access this feature"}}}'),
        (401, ""),
        (400, INVALID_CRUMB),
        (403, INVALID_CRUMB),
    ])
    def test_one_refresh_and_one_retry(self, yahoo, status, body):
        yahoo.mock.get(GETCRUMB1, body=NEW_CRUMB, content_type="text/plain")  # 2nd handshake
        yahoo.quote(body, status=status)
        yahoo.quote(QUOTE_BODY)
        assert quote() == QUOTE_BODY
        assert crumbs_sent(yahoo.mock) == [CRUMB, NEW_CRUMB]
        assert len(calls_to(yahoo.mock, "getcrumb")) == 2
        assert len(calls_to(yahoo.mock, "fc.yahoo.com")) == 2
        assert get_auth(_client()).current() == Credentials(NEW_CRUMB, 2)

    def test_rejected_twice_gives_up_after_one_retry(self, yahoo):
        yahoo.mock.get(GETCRUMB1, body=NEW_CRUMB, content_type="text/plain")
        yahoo.quote("", status=401)
        with pytest.raises(UpstreamBadResponse) as info:
            quote()
        assert info.value.upstream_status == 401
        assert info.value.provider == "yahoo"
        assert len(calls_to(yahoo.mock, "/v7/finance/quote")) == 2
        assert len(calls_to(yahoo.mock, "getcrumb")) == 2

    def test_plain_400_is_not_a_crumb_problem(self, yahoo):
        yahoo.quote('{"finance":{"error":{"code":"Bad Request","description":"Missing'
                    ' value for the \\"symbols\\" argument"}}}', status=400)
        with pytest.raises(UpstreamBadResponse) as info:
            quote()
        assert info.value.upstream_status == 400
        assert len(calls_to(yahoo.mock, "getcrumb")) == 1
        assert len(calls_to(yahoo.mock, "/v7/finance/quote")) == 1

    def test_404_is_not_found(self, yahoo):
        yahoo.summary("ZZZZ", {"quoteSummary": {"result": None, "error": {
            "code": "Not Found", "description": "Quote not found for symbol: ZZZZ"}}},
            status=404)
        with pytest.raises(NotFound) as info:
            get_json("quoteSummary", f"{QUERY2}/v10/finance/quoteSummary/ZZZZ",
                     {"modules": "price"}, not_found="Symbol ZZZZ not found")
        assert info.value.detail == "Symbol ZZZZ not found"
        assert len(calls_to(yahoo.mock, "getcrumb")) == 1

    def test_refresh_is_single_flight(self, yahoo):
        """20 threads see a 401 at once: one handshake, every call retried with the new crumb."""
        get_auth(_client()).current()  # the crumb all 20 calls start with
        set_crumb_answers(yahoo.mock, NEW_CRUMB)
        all_in_flight = threading.Barrier(20)

        def answer(request):
            if query_of(request).get("crumb") == [CRUMB]:
                all_in_flight.wait(10)  # every thread holds the old crumb at the same time
                return 401, {}, '{"finance":{"error":{"code":"Unauthorized"}}}'
            return 200, {}, json.dumps(QUOTE_BODY)

        yahoo.mock.add_callback(responses.GET, url_re(QUOTE_URL), callback=answer)
        results = run_threads(20, quote)
        assert results == [("ok", QUOTE_BODY)] * 20
        assert len(calls_to(yahoo.mock, "getcrumb")) == 2  # the first one + ONE refresh
        assert len(calls_to(yahoo.mock, "fc.yahoo.com")) == 2
        assert sorted(crumbs_sent(yahoo.mock)) == sorted([CRUMB] * 20 + [NEW_CRUMB] * 20)

    def test_refresh_does_not_block_calls_holding_the_current_crumb(self, yahoo):
        get_auth(_client()).current()
        entered, release = threading.Event(), threading.Event()

        def slow_crumb(request):
            entered.set()
            release.wait(10)
            return 200, {}, NEW_CRUMB

        yahoo.mock.remove(responses.GET, GETCRUMB1)
        yahoo.mock.add_callback(responses.GET, GETCRUMB1, callback=slow_crumb)

        def answer(request):
            if query_of(request).get("symbols") == ["REJECTED"]:
                if query_of(request).get("crumb") == [CRUMB]:
                    return 401, {}, ""
            return 200, {}, json.dumps(QUOTE_BODY)

        yahoo.mock.add_callback(responses.GET, url_re(QUOTE_URL), callback=answer)
        refresher = threading.Thread(target=lambda: get_json(
            "quote", QUOTE_URL, {"symbols": "REJECTED"}))
        refresher.start()
        try:
            assert entered.wait(5)  # the handshake is under way
            other = run_threads(1, quote)  # another request with the crumb it already holds
            assert other == [("ok", QUOTE_BODY)]
            assert refresher.is_alive()
        finally:
            release.set()
            refresher.join(10)
        assert len(calls_to(yahoo.mock, "getcrumb")) == 2

    def test_cookies_sent_again_after_refresh(self, yahoo):
        yahoo.mock.get(GETCRUMB1, body=NEW_CRUMB, content_type="text/plain")
        yahoo.quote("", status=401)
        yahoo.quote(QUOTE_BODY)
        quote()
        retried = calls_to(yahoo.mock, "/v7/finance/quote")[1]
        assert "A3=" in retried.request.headers.get("Cookie", "")


def test_crumb_never_reaches_a_log_line(yahoo):
    with capture_logs("marketdata", logging.DEBUG) as logs:
        yahoo.mock.get(GETCRUMB1, body=NEW_CRUMB, content_type="text/plain")
        yahoo.quote("", status=401)
        yahoo.quote(QUOTE_BODY)
        quote()
    assert crumbs_sent(yahoo.mock) == [CRUMB, NEW_CRUMB]  # both travelled in the query
    lines = logs.records()
    assert len([x for x in lines if x["message"] == "upstream call"]) == 6
    assert any(x["message"] == "yahoo crumb refreshed" for x in lines)
    assert CRUMB not in logs.text()
    assert NEW_CRUMB not in logs.text()
