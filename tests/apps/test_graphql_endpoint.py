"""/graphql driven in process (apps.graphql.endpoint): what a query becomes as REST requests
(batched, de-duplicated, prepaid), how their failures become field errors, and what is
refused before anything runs. The REST side is a fake that notes each request; the schema is
the real one, from this process's /openapi.json. Through the real server: tests/integration/
test_graphql.py."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import parse_qs

import orjson
import pytest

from apps.core.inprocess import PREPAID_KEY
from apps.graphql.endpoint import GraphQLEndpoint
from apps.graphql.sdl import openapi_document


@pytest.fixture(scope="module")
def document_bytes() -> bytes:
    return orjson.dumps(openapi_document())


class FakeApi:
    """REST as the fields see it: quotes for any symbol but ``BAD``, a chart, a 502 from
    the news; each request noted (path, query, prepaid)."""

    def __init__(self, document: bytes) -> None:
        self.document = document
        self.requests: list[tuple[str, dict[str, list[str]], bool]] = []

    async def __call__(self, scope, receive, send) -> None:
        path = scope["path"]
        query = parse_qs(scope["query_string"].decode())
        if path != "/openapi.json":
            self.requests.append((path, query, bool(scope.get(PREPAID_KEY))))
        await asyncio.sleep(0)
        status, body = 200, {}
        if path == "/openapi.json":
            await self._send(send, 200, self.document)
            return
        if path == "/v2/quotes":
            symbols = query["symbols"][0].split(",")
            body = {"quotes": [{"symbol": s, "regularMarketPrice": 10.5}
                               for s in symbols if s != "BAD"],
                    "errors": [{"symbol": "BAD", "error": "Unknown symbol", "status": 404}]
                    if "BAD" in symbols else []}
        elif path.startswith("/v2/chart/") and query.get("interval") != ["7x"]:
            body = {"meta": {"symbol": path.rsplit("/", 1)[1]}, "candles": [
                {"timestamp": 1, "open": 1, "high": 2, "low": 0.5, "close": 1.5,
                 "adjClose": 1.5, "volume": 5_000_000_000}], "events": None, "patterns": []}
        elif path.startswith("/v2/chart/") and query.get("interval") == ["7x"]:
            status, body = 400, {"error": "interval: Input should be '1d'", "status": 400}
        elif path.startswith("/v2/news/"):
            status, body = 502, {"error": "Yahoo answered 500", "status": 502,
                                 "provider": "yahoo"}
        else:
            status, body = 404, {"error": "Not Found", "status": 404}
        await self._send(send, status, orjson.dumps(body))

    @staticmethod
    async def _send(send, status: int, body: bytes) -> None:
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": body})


class Answer:
    def __init__(self, events: list[dict[str, Any]]) -> None:
        start = next(e for e in events if e["type"] == "http.response.start")
        self.status = start["status"]
        self.headers = {k.decode(): v.decode() for k, v in start["headers"]}
        self.body = b"".join(e.get("body", b"") for e in events
                             if e["type"] == "http.response.body")

    def json(self) -> Any:
        return json.loads(self.body)


@pytest.fixture
def graphql(document_bytes, settings):
    settings.V2_RATE_LIMIT_CAPACITY = 600
    api = FakeApi(document_bytes)
    endpoint = GraphQLEndpoint(api, api)
    loop = asyncio.new_event_loop()

    def post(query: str, variables: dict | None = None, *, method: str = "POST",
             headers: list | None = None, raw: bytes | None = None) -> Answer:
        body = raw if raw is not None else orjson.dumps(
            {"query": query, "variables": variables})
        events: list[dict[str, Any]] = []
        sent = False

        async def receive():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body if method == "POST" else b"",
                        "more_body": False}
            await asyncio.sleep(3600)

        async def send(message):
            events.append(message)

        query_string = b""
        if method == "GET":
            from urllib.parse import urlencode
            query_string = urlencode({"query": query}).encode()
        scope = {"type": "http", "method": method, "path": "/graphql", "raw_path": b"/graphql",
                 "query_string": query_string, "headers": [
                     (b"host", b"testserver"), (b"content-type", b"application/json"),
                     (b"content-length", str(len(body)).encode()), *(headers or [])],
                 "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
                 "scheme": "http", "http_version": "1.1"}
        loop.run_until_complete(endpoint(scope, receive, send))
        return Answer(events)

    post.api = api  # type: ignore[attr-defined]
    yield post
    loop.close()


def test_twelve_tickers_quotes_are_one_prepaid_request(graphql):
    symbols = [f"S{i}" for i in range(12)]
    answer = graphql("query($s: [String!]!) { tickers(symbols: $s) { symbol "
                     "quote { symbol regularMarketPrice } } }", {"s": symbols})
    assert answer.status == 200, answer.body
    data = answer.json()["data"]["tickers"]
    assert [t["quote"]["symbol"] for t in data] == symbols
    quotes = [r for r in graphql.api.requests if r[0] == "/v2/quotes"]
    assert len(quotes) == 1
    assert quotes[0][1]["symbols"] == [",".join(symbols)]
    assert all(prepaid for _, _, prepaid in graphql.api.requests)


def test_the_same_request_in_one_query_is_made_once(graphql):
    answer = graphql('{ a: ticker(symbol: "X") { chart(range: "1y") { meta { symbol } } } '
                     'b: ticker(symbol: "X") { chart(range: "1y") { candles { nodes { volume '
                     '} } } } }')
    assert answer.status == 200, answer.body
    assert answer.json()["data"]["b"]["chart"]["candles"]["nodes"] == [
        {"volume": 5_000_000_000}]  # a Long: over GraphQL's 32-bit Int
    charts = [r for r in graphql.api.requests if r[0].startswith("/v2/chart/")]
    assert len(charts) == 1 and charts[0][1] == {"range": ["1y"]}


def test_a_failed_field_is_null_with_its_status_and_provider_the_others_keep_data(graphql):
    answer = graphql('{ ticker(symbol: "X") { news { nodes { title } } quote { symbol } } '
                     'tickers(symbols: ["A", "BAD"]) { quote { symbol } } }')
    body = answer.json()
    assert answer.status == 200
    assert body["data"]["ticker"] == {"news": None, "quote": {"symbol": "X"}}
    errors = {tuple(e["path"]): e for e in body["errors"]}
    news = errors[("ticker", "news")]
    assert news["extensions"] == {"code": "UPSTREAM_ERROR", "status": 502,
                                  "provider": "yahoo"}
    assert news["message"] == "Yahoo answered 500"
    bad = errors[("tickers", 1, "quote")]
    assert bad["extensions"]["code"] == "NOT_FOUND" and bad["extensions"]["status"] == 404


@pytest.mark.parametrize(("query", "status", "code"), [
    ("{ ticker(symbol: \"A\") " + "{ chart { meta " * 20 + "{ symbol }" + " } }" * 20 + " }",
     400, "QUERY_TOO_DEEP"),
    ("{ " + " ".join(f"a{i}: cryptoGlobal {{ marketCap }}" for i in range(61)) + " }",
     400, "TOO_MANY_ALIASES"),
    ("{ cryptoGlobal(" + "a:1 " * 1100 + ") { marketCap } }", 400, "QUERY_TOO_COMPLEX"),
    ("{ ticker(symbol: \"" + "A" * 20_000 + "\") { symbol } }", 413, "QUERY_TOO_LARGE"),
    ("query($s: [String!]!) { tickers(symbols: $s) { chart { meta { symbol } } "
     "news { nodes { title } } options { expirationDates } risk { symbol } "
     "dividends { symbol } splits { symbol } } }",
     400, "QUERY_TOO_COSTLY"),
    ("{ ticker(symbol: \"A\") { nope } }", 400, "GRAPHQL_VALIDATION_FAILED"),
    ("{ ticker(symbol: ", 400, "GRAPHQL_PARSE_FAILED"),
    ("mutation { x }", 400, "BAD_REQUEST"),
])
def test_hostile_or_invalid_queries_are_refused_before_any_request(graphql, query, status, code):
    variables = {"s": [f"S{i}" for i in range(50)]} if "$s" in query else None
    answer = graphql(query, variables)
    assert answer.status == status, answer.body
    assert answer.json()["errors"][0]["extensions"]["code"] == code
    assert graphql.api.requests == []


def test_the_query_is_charged_its_cost_and_refused_429_when_short(graphql, settings):
    settings.V2_RATE_LIMIT_CAPACITY = 5
    settings.V2_RATE_LIMIT_REFILL_PER_SECOND = 0.01
    query = 'query($s: [String!]!) { tickers(symbols: $s) { chart { meta { symbol } } } }'
    first = graphql(query, {"s": ["A", "B", "C"]})
    assert first.status == 200
    assert '"bucket";r=2;' in first.headers["ratelimit"]
    refused = graphql(query, {"s": ["A", "B", "C"]})
    assert refused.status == 429
    error = refused.json()["errors"][0]
    assert error["extensions"]["code"] == "RATE_LIMITED" and error["extensions"]["cost"] == 3
    assert int(refused.headers["retry-after"]) >= 100
    assert len([r for r in graphql.api.requests if r[0].startswith("/v2/chart/")]) == 3


def test_get_answers_an_etag_and_a_304(graphql):
    first = graphql('{ ticker(symbol: "X") { quote { symbol } } }', method="GET")
    assert first.status == 200 and first.headers["etag"].startswith('"')
    again = graphql('{ ticker(symbol: "X") { quote { symbol } } }', method="GET",
                    headers=[(b"if-none-match", first.headers["etag"].encode())])
    assert again.status == 304 and again.body == b""


def test_a_body_that_is_not_one_query_is_a_400(graphql):
    assert graphql("", raw=b"[1, 2]").status == 400
    assert graphql("", raw=b"not json").status == 400
    assert graphql("", raw=b'{"query": "{ __typename }", "variables": [1]}').status == 400


def test_a_refused_argument_value_is_named(graphql):
    answer = graphql('{ ticker(symbol: "X") { chart(interval: "7x") { meta { symbol } } } }')
    error = answer.json()["errors"][0]
    assert error["extensions"] == {"code": "BAD_REQUEST", "status": 400, "argument": "interval"}
    assert error["path"] == ["ticker", "chart"]


def test_the_list_shortcut_answers_what_the_general_path_does(graphql, monkeypatch):
    """apps.graphql.executor: aliases, __typename, fragments, @skip, a Long over 32 bits,
    and a value the scalar refuses (the general path then reports it where it is)."""
    from graphql.execution.incremental.incremental_executor import IncrementalExecutor

    from apps.graphql import endpoint

    query = ('query($no: Boolean!) { ticker(symbol: "X") { chart { candles { nodes { '
             '__typename t: timestamp ...F volume close @skip(if: $no) } } } } } '
             'fragment F on ChartCandle { open high }')
    fast = graphql(query, {"no": True}).json()
    monkeypatch.setattr(endpoint, "Executor", IncrementalExecutor)
    general = graphql(query, {"no": True}).json()
    assert fast == general
    assert fast["data"]["ticker"]["chart"]["candles"]["nodes"] == [
        {"__typename": "ChartCandle", "t": 1, "open": 1.0, "high": 2.0,
         "volume": 5_000_000_000}]


def test_a_value_a_scalar_refuses_is_an_error_at_its_item(graphql, monkeypatch):
    original = FakeApi.__call__

    async def bad_volume(self, scope, receive, send):
        if scope["path"].startswith("/v2/chart/"):
            self.requests.append((scope["path"], {}, True))
            body = {"meta": {"symbol": "X"}, "candles": [
                {"timestamp": 1, "volume": 1}, {"timestamp": 2, "volume": 1.5}]}
            await FakeApi._send(send, 200, orjson.dumps(body))
            return
        await original(self, scope, receive, send)

    monkeypatch.setattr(FakeApi, "__call__", bad_volume)
    body = graphql('{ ticker(symbol: "X") { chart { candles { nodes { volume } } } } }').json()
    assert body["data"]["ticker"]["chart"]["candles"]["nodes"] == [{"volume": 1}, {"volume": None}]
    assert body["errors"][0]["path"] == ["ticker", "chart", "candles", "nodes", 1, "volume"]


def test_relay_first_and_after_are_limit_and_cursor(graphql):
    answer = graphql('{ ticker(symbol: "X") { chart(first: 1, after: "MA") { meta { symbol } '
                     '} } }')
    assert answer.status == 200, answer.body
    charts = [r for r in graphql.api.requests if r[0].startswith("/v2/chart/")]
    assert charts[0][1] == {"limit": ["1"], "cursor": ["MA"]}
    both = graphql('{ ticker(symbol: "X") { chart(first: 1, limit: 2) { meta { symbol } } } }')
    assert both.json()["errors"][0]["extensions"]["argument"] == "first"
