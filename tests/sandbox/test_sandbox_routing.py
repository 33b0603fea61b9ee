"""Routing by host and path: each simulated provider answers on its own hosts with its own
route table; ``X-Upstream-Host`` names the meant host when a host map rewrote the URL; an
unknown host falls back to path routing in registry order (Yahoo first)."""

from __future__ import annotations

import http.client
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from marketdata.sandbox import SandboxResponse, UpstreamSandbox
from marketdata.sandbox.algolia import router as algolia_router
from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.providers import (
    Route,
    SandboxOptions,
    SimulatedProvider,
    host_matches,
    normalise_host,
)
from marketdata.sandbox.registry import PROVIDERS
from marketdata.sandbox.yahoo import router as yahoo_router
from tests.sandbox.servers import serving

CLOCK = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)
Q1 = "query1.finance.yahoo.com"
ALGOLIA_HOST = "ztzoeclxbc-dsn.algolia.net"
AUTH = {"X-Algolia-Application-Id": "ZTZOECLXBC", "X-Algolia-API-Key": "search-key"}
CHART = "/v8/finance/chart/AAPL"
INDEX = "/1/indexes/stocks"
YAHOO_404 = {"finance": {"result": None, "error": {"code": "Not Found",
                                                   "description": "HTTP 404 Not Found"}}}
ALGOLIA_404 = {"message": "Not Found", "status": 404}


def toy_provider(options: SandboxOptions) -> SimulatedProvider:
    """A third provider whose paths collide with Yahoo's (as FRED's or FMP's could)."""

    def chart(req: Request) -> SandboxResponse:
        if req.params["symbol"] == "BOOM":
            raise RuntimeError("toy bug")
        return json_response({"toy": req.params["symbol"], "host": req.host,
                              "upstream_host": req.upstream_host})

    def error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
        return json_response({"toy_error": code}, status)

    return SimulatedProvider(
        name="toy", hosts=("api.toy.test",),
        routes=(Route(("GET",), re.compile(r"/v8/finance/chart/(?P<symbol>[^/]+)"), chart),),
        error=error, not_found=lambda: json_response({"toy_error": "Not Found"}, 404))


def make(**kwargs: Any) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: CLOCK, **kwargs)


def with_toy(**kwargs: Any) -> UpstreamSandbox:
    return make(providers=(yahoo_router.build_provider, toy_provider,
                           algolia_router.build_provider), **kwargs)


def call(sb: UpstreamSandbox, host: str, path: str, headers: dict[str, str] | None = None,
         method: str = "GET", **query: str) -> SandboxResponse:
    return sb.handle(method, host, path, {k: [v] for k, v in query.items()}, headers or {})


def data(response: SandboxResponse) -> Any:
    return json.loads(response.body)


def test_registry_and_the_old_name():
    sb = make()
    assert sb.provider_names[:2] == ["yahoo", "algolia"]  # unknown hosts try Yahoo first
    assert len(sb.provider_names) == len(PROVIDERS) == len(set(sb.provider_names))
    for name in sb.provider_names:  # every provider owns the hosts it declares
        provider = next(p for p in sb.providers if p.name == name)
        for pattern in provider.hosts:
            host = pattern.removeprefix("*.")
            assert sb.provider_for_host(host).name == name, (name, host)
    assert UpstreamSandbox is UpstreamSandbox
    for host in (Q1, "query2.finance.yahoo.com", "finance.yahoo.com", "fc.yahoo.com",
                 "guce.yahoo.com", "consent.yahoo.com", "yahoo.com"):
        assert sb.provider_for_host(host).name == "yahoo", host
    for host in (ALGOLIA_HOST, "ztzoeclxbc.algolia.net", "ztzoeclxbc-1.algolianet.com"):
        assert sb.provider_for_host(host).name == "algolia", host
    for host in ("127.0.0.1", "localhost", "notyahoo.com", "yahoo.com.evil.test", ""):
        assert sb.provider_for_host(host) is None, host
    with pytest.raises(ValueError, match="duplicate"):
        make(providers=(yahoo_router.build_provider, yahoo_router.build_provider))


def test_host_helpers():
    assert normalise_host("Query1.Finance.Yahoo.com:443") == Q1
    assert normalise_host("fc.yahoo.com.") == "fc.yahoo.com"
    assert normalise_host("[::1]:9000") == "::1"
    assert normalise_host(None) == ""
    assert host_matches("yahoo.com", "*.yahoo.com") and host_matches(Q1, "*.yahoo.com")
    assert not host_matches("evilyahoo.com", "*.yahoo.com")
    assert host_matches("api.toy.test", "api.toy.test")
    assert not host_matches("x.api.toy.test", "api.toy.test")


def test_same_path_on_two_providers_hosts_goes_to_each_provider():
    sb = with_toy()
    yahoo = call(sb, Q1, CHART, range="5d", interval="1d")
    assert yahoo.status == 200 and data(yahoo)["chart"]["result"][0]["meta"]["symbol"] == "AAPL"
    toy = call(sb, "api.toy.test", CHART)
    assert toy.status == 200 and data(toy)["toy"] == "AAPL"
    # A Yahoo path the toy provider does not have is the toy provider's 404, not Yahoo's.
    assert data(call(sb, "api.toy.test", "/v1/test/getcrumb")) == {"toy_error": "Not Found"}
    assert [e["provider"] for e in sb.request_log] == ["yahoo", "toy", "toy"]


def test_algolia_path_on_a_yahoo_host_is_a_yahoo_404():
    sb = make()
    answer = call(sb, Q1, INDEX, headers=AUTH, query="apple")
    assert answer.status == 404 and data(answer) == YAHOO_404
    answer = call(sb, ALGOLIA_HOST, CHART, headers=AUTH, range="1d", interval="1d")
    assert answer.status == 404 and data(answer) == ALGOLIA_404
    answer = call(sb, ALGOLIA_HOST, "/", headers=AUTH)
    assert answer.status == 404 and "Set-Cookie" not in answer.headers
    assert [(e["provider"], e["status"]) for e in sb.request_log] == [
        ("yahoo", 404), ("algolia", 404), ("algolia", 404)]


def test_x_upstream_host_is_honoured():
    sb = with_toy()
    # A host map sent every host to 127.0.0.1:9000; the header names the meant host.
    toy = call(sb, "127.0.0.1", CHART, headers={"X-Upstream-Host": "api.toy.test"})
    assert data(toy) == {"toy": "AAPL", "host": "127.0.0.1", "upstream_host": "api.toy.test"}
    found = call(sb, "127.0.0.1", INDEX, headers={**AUTH, "x-upstream-host": ALGOLIA_HOST},
                 query="apple")
    assert found.status == 200 and data(found)["hits"][0]["symbol"] == "AAPL"
    refused = call(sb, "127.0.0.1", INDEX,
                   headers={**AUTH, "X-Upstream-Host": "query2.finance.yahoo.com:443"})
    assert refused.status == 404 and data(refused) == YAHOO_404
    # The header wins over the connected host too.
    assert data(call(sb, Q1, CHART, headers={"X-Upstream-Host": "api.toy.test"}))["toy"] == \
        "AAPL"
    entries = sb.request_log
    assert [(e["host"], e["upstream_host"], e["provider"]) for e in entries] == [
        ("127.0.0.1", "api.toy.test", "toy"),
        ("127.0.0.1", ALGOLIA_HOST, "algolia"),
        ("127.0.0.1", "query2.finance.yahoo.com", "yahoo"),
        (Q1, "api.toy.test", "toy")]


def test_unknown_host_falls_back_to_path_routing_in_registry_order():
    sb = with_toy()
    chart = call(sb, "127.0.0.1", CHART, range="5d", interval="1d")
    assert chart.status == 200 and "chart" in data(chart)  # Yahoo is first in the registry
    found = call(sb, "127.0.0.1", INDEX, headers=AUTH, query="apple")
    assert found.status == 200 and data(found)["hits"][0]["symbol"] == "AAPL"
    # An unknown X-Upstream-Host falls back the same way.
    found = call(sb, "127.0.0.1", INDEX, headers={**AUTH, "X-Upstream-Host": "unknown.test"},
                 query="apple")
    assert found.status == 200
    nothing = call(sb, "localhost", "/nowhere")
    assert nothing.status == 404 and data(nothing) == YAHOO_404
    assert [e["provider"] for e in sb.request_log] == ["yahoo", "algolia", "algolia", None]


def test_cookie_attributes_follow_the_connected_host_not_x_upstream_host():
    sb = make()
    real = call(sb, "fc.yahoo.com", "/").headers["Set-Cookie"]
    assert "Domain=.yahoo.com" in real and "Secure" in real
    mapped = call(sb, "127.0.0.1", "/", headers={"X-Upstream-Host": "fc.yahoo.com"})
    assert mapped.status == 404
    cookie = mapped.headers["Set-Cookie"]
    assert cookie.startswith("A3=") and "Domain" not in cookie and "Secure" not in cookie
    crumb = call(sb, "127.0.0.1", "/v1/test/getcrumb",
                 headers={"X-Upstream-Host": Q1, "Cookie": cookie.split(";")[0]})
    assert crumb.status == 200 and len(crumb.body) == 11
    moved = call(sb, "127.0.0.1", "/v2/collectConsent", method="POST",
                 headers={"X-Upstream-Host": "consent.yahoo.com"}, sessionId="s1")
    assert moved.status == 302 and moved.headers["Location"] == "/copyConsent?sessionId=s1"
    moved = call(sb, "consent.yahoo.com", "/v2/collectConsent", method="POST", sessionId="s1")
    assert moved.headers["Location"] == "https://guce.yahoo.com/copyConsent?sessionId=s1"


def test_faults_and_handler_bugs_answer_in_the_providers_own_shape():
    sb = with_toy(fail_rate=1.0)
    assert data(call(sb, ALGOLIA_HOST, INDEX, headers=AUTH)) == {
        "message": "Service is temporarily unavailable, please try again later", "status": 503}
    assert data(call(sb, Q1, CHART))["chart"]["error"]["code"] == "Service Unavailable"
    assert call(sb, "api.toy.test", CHART).status == 503
    sb.configure(fail_rate=0.0)
    boom = call(sb, "api.toy.test", "/v8/finance/chart/BOOM")
    assert boom.status == 500 and data(boom) == {"toy_error": "Internal Server Error"}


def test_yahoo_crumb_guard_still_applies():
    sb = make()
    refused = call(sb, Q1, "/v7/finance/quote", symbols="AAPL", crumb="nope")
    assert refused.status == 401
    assert data(refused)["finance"]["error"]["description"] == "Invalid Crumb"


def test_request_log_filters_by_provider():
    sb = make()
    call(sb, Q1, CHART, range="1d", interval="1d")
    call(sb, ALGOLIA_HOST, INDEX, headers=AUTH, query="apple")
    call(sb, "127.0.0.1", INDEX, headers=AUTH, query="msft")
    assert [e["path"] for e in sb.requests_matching(provider="yahoo")] == [CHART]
    assert [e["host"] for e in sb.requests_matching("/1/", provider="algolia")] == [
        ALGOLIA_HOST, "127.0.0.1"]
    assert sb.requests_matching("/v8/", provider="algolia") == []
    assert len(sb.requests_matching()) == 3


# --- over HTTP ---------------------------------------------------------------------------

@pytest.fixture
def server() -> Iterator[tuple[int, UpstreamSandbox]]:
    sb = make()
    with serving(sb) as port:
        yield port, sb


def _http(port: int, path: str, headers: dict[str, str] | None = None,
          method: str = "GET") -> tuple[int, dict[str, str], Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, headers=headers or {})
        resp = conn.getresponse()
        raw = resp.read()
        return resp.status, dict(resp.getheaders()), json.loads(raw) if raw else None
    finally:
        conn.close()


def test_http_server_routes_by_host_header_and_x_upstream_host(server):
    port, _ = server
    status, _, payload = _http(port, INDEX + "?query=apple", {**AUTH, "Host": ALGOLIA_HOST})
    assert status == 200 and payload["hits"][0]["symbol"] == "AAPL"
    status, _, payload = _http(port, INDEX + "?query=apple", {**AUTH, "Host": Q1})
    assert status == 404 and payload == YAHOO_404
    status, _, payload = _http(port, INDEX + "?query=apple",
                               {**AUTH, "X-Upstream-Host": ALGOLIA_HOST})
    assert status == 200 and payload["nbHits"] >= 1
    status, _, payload = _http(port, INDEX + "?query=apple",
                               {**AUTH, "X-Upstream-Host": "query1.finance.yahoo.com"})
    assert status == 404 and payload == YAHOO_404
    status, _, _ = _http(port, CHART + "?range=1d&interval=1d")  # Host 127.0.0.1:port
    assert status == 200

    status, _, log = _http(port, "/__sandbox__/requests?provider=algolia")
    assert status == 200 and log["count"] == 2
    assert {e["provider"] for e in log["requests"]} == {"algolia"}
    assert [e["host"] for e in log["requests"]] == [ALGOLIA_HOST, "127.0.0.1"]
    _, _, log = _http(port, "/__sandbox__/requests?provider=yahoo&path_prefix=/1/")
    assert log["count"] == 2
    _, _, log = _http(port, "/__sandbox__/requests?path_prefix=/v8/")
    assert [e["provider"] for e in log["requests"]] == ["yahoo"]


def test_http_server_handshake_through_a_host_map_with_x_upstream_host(server):
    """What the service does with UPSTREAM_HOST_MAP: plain HTTP to 127.0.0.1 plus the
    header; the cookie must come back to 127.0.0.1, so no Domain/Secure."""
    requests = pytest.importorskip("requests")
    port, sb = server
    base = f"http://127.0.0.1:{port}"
    with requests.Session() as session:
        first = session.get(f"{base}/", headers={"X-Upstream-Host": "fc.yahoo.com"})
        assert first.status_code == 404 and "A3" in session.cookies
        crumb = session.get(f"{base}/v1/test/getcrumb", headers={"X-Upstream-Host": Q1})
        assert crumb.status_code == 200
        quote = session.get(f"{base}/v7/finance/quote", headers={"X-Upstream-Host": Q1},
                            params={"symbols": "AAPL", "crumb": crumb.text})
        assert quote.status_code == 200
        assert quote.json()["quoteResponse"]["result"][0]["symbol"] == "AAPL"
    assert [e["provider"] for e in sb.request_log] == ["yahoo"] * 3


def test_in_process_transport_routes_by_url_host_and_header():
    requests = pytest.importorskip("requests")
    from marketdata.sandbox.transport import SandboxTransport

    sb = make()
    with requests.Session() as session:
        session.mount("https://", SandboxTransport(sb))
        session.mount("http://", SandboxTransport(sb))
        direct = session.get(f"https://{ALGOLIA_HOST}{INDEX}", params={"query": "apple"},
                             headers=AUTH)
        assert direct.status_code == 200 and direct.json()["hits"][0]["symbol"] == "AAPL"
        wrong = session.get(f"https://{Q1}{INDEX}", params={"query": "apple"}, headers=AUTH)
        assert wrong.status_code == 404 and wrong.json() == YAHOO_404
        mapped = session.get(f"http://127.0.0.1:9000{INDEX}", params={"query": "apple"},
                             headers={**AUTH, "X-Upstream-Host": ALGOLIA_HOST})
        assert mapped.status_code == 200
    assert [(e["host"], e["provider"]) for e in sb.request_log] == [
        (ALGOLIA_HOST, "algolia"), (Q1, "yahoo"), ("127.0.0.1", "algolia")]


def test_a_path_fault_fails_one_endpoint_and_leaves_the_others():
    from marketdata.sandbox.core import PathFault, UpstreamSandbox

    sandbox = UpstreamSandbox()
    sandbox.configure(faults=[PathFault("/v1/finance/sectors/", fail_rate=1.0)])
    failed = sandbox.handle("GET", "query1.finance.yahoo.com", "/v1/finance/sectors/technology",
                            {}, {})
    assert failed.status == 503
    chart = sandbox.handle("GET", "query2.finance.yahoo.com", "/v8/finance/chart/AAPL",
                           {"range": ["5d"], "interval": ["1d"]}, {})
    assert chart.status == 200
    sandbox.configure(faults=[])
    assert sandbox.handle("GET", "query1.finance.yahoo.com", "/v1/finance/sectors/technology",
                          {}, {}).status == 200


def test_a_path_fault_from_the_control_endpoint():
    from marketdata.sandbox.core import UpstreamSandbox
    from marketdata.sandbox.server import handle_control

    sandbox = UpstreamSandbox()
    answer = handle_control(sandbox, "POST", "/__sandbox__/config", {},
                            b'{"faults": [{"path_prefix": "/v8/finance/chart/", '
                            b'"latency_ms": 5, "fail_rate": 0}]}')
    assert answer.status == 200
    assert sandbox.faults[0].latency_ms == 5 and sandbox.faults[0].fail_rate == 0
    bad = handle_control(sandbox, "POST", "/__sandbox__/config", {},
                         b'{"faults": [{"path_prefix": "nope"}]}')
    assert bad.status == 400
