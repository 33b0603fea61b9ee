"""GraphiQL's page in a real browser: Playwright driving Debian's Chromium
(``/usr/bin/chromium``; no browser download) against a small ASGI server in this process
that plays the GraphQL endpoint at ``/graphql`` (the page from
:func:`apps.graphql.graphiql.page` for a GET, graphql-core over a hand-made schema for a
POST, graphql-transport-ws for a WebSocket) and hands every other path (GraphiQL's assets)
to the service's Django application, its real routes and middleware.

- the page renders GraphiQL (its query editor with the default query), introspects the
  schema, and runs a query and a subscription (over a same-origin WebSocket);
- no request leaves the origin, no console error, no CSP violation (and a foreign request
  is refused and reported, so the recorders are known to work);
- a screenshot is saved (``GRAPHIQL_SCREENSHOT``, default in the test's tmp_path).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
from collections.abc import AsyncIterator, Iterator
from inspect import isawaitable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from graphql import (
    GraphQLArgument,
    GraphQLField,
    GraphQLFloat,
    GraphQLInt,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    GraphQLString,
    graphql,
    parse,
    subscribe,
)

from tests.integration.servers import free_port

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
TIMEOUT_MS = 30_000

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow("Chromium loading GraphiQL (1 MB of script)"),
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="needs Debian's chromium (.ci/run installs it)"),
]
sync_api = pytest.importorskip("playwright.sync_api")
uvicorn = pytest.importorskip("uvicorn")

PRICES = {"AAPL": 189.5, "MSFT": 411.25}

QUOTE = GraphQLObjectType("Quote", {
    "symbol": GraphQLField(GraphQLNonNull(GraphQLString)),
    "regularMarketPrice": GraphQLField(GraphQLFloat),
})
TICKER = GraphQLObjectType("Ticker", {
    "symbol": GraphQLField(GraphQLNonNull(GraphQLString)),
    "quote": GraphQLField(QUOTE, resolve=lambda ticker, _info: ticker),
})


async def _ticks(_root: Any, _info: Any, symbol: str, count: int = 3) -> AsyncIterator[dict]:
    for step in range(count):
        await asyncio.sleep(0.05)
        yield {"symbol": symbol, "regularMarketPrice": PRICES.get(symbol, 1.0) + step}


SCHEMA = GraphQLSchema(
    query=GraphQLObjectType("Query", {
        "ticker": GraphQLField(
            TICKER, args={"symbol": GraphQLArgument(GraphQLNonNull(GraphQLString))},
            resolve=lambda _root, _info, symbol: {"symbol": symbol,
                                                  "regularMarketPrice": PRICES.get(symbol)}),
    }),
    subscription=GraphQLObjectType("Subscription", {
        "ticks": GraphQLField(
            QUOTE, args={"symbol": GraphQLArgument(GraphQLNonNull(GraphQLString)),
                         "count": GraphQLArgument(GraphQLInt, default_value=3)},
            subscribe=_ticks, resolve=lambda tick, _info, **_args: tick),
    }),
)


class Endpoint:
    """The stand-in GraphQL endpoint (an ASGI application) and what it was asked."""

    def __init__(self) -> None:
        from django.test import Client

        self.django = Client()
        self.posts: list[dict] = []
        self.post_paths: list[str] = []
        self.sockets: list[list[str]] = []  # each WebSocket's offered subprotocols

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            await self.socket(scope, receive, send)
        elif scope["path"] in ("/graphql", "/graphql/"):  # as apps.graphql.endpoint
            await self.http(scope, receive, send)
        else:
            await self.assets(scope, send)

    async def http(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["method"] == "GET":
            from apps.graphql.graphiql import page

            body, headers = page()
            await _send(send, 200, headers, body)
            return
        raw = b""
        while True:
            message = await receive()
            raw += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = json.loads(raw)
        self.posts.append(request)
        self.post_paths.append(scope["path"])
        result = await graphql(SCHEMA, request["query"],
                               variable_values=request.get("variables"),
                               operation_name=request.get("operationName"))
        await _send(send, 200, [(b"content-type", b"application/json")],
                    json.dumps(result.formatted).encode())

    async def assets(self, scope: dict, send: Any) -> None:
        """Through the service's Django application: its URL routes, views, middleware."""
        headers = {name.decode().lower(): value.decode() for name, value in scope["headers"]}
        extra = {f"HTTP_{name.upper().replace('-', '_')}": value
                 for name, value in headers.items()
                 if name in ("accept", "accept-encoding", "if-none-match")}
        response = await asyncio.to_thread(self.django.get, scope["path"], **extra)
        await _send(send, response.status_code,
                    [(k.lower().encode(), v.encode()) for k, v in response.items()],
                    response.content)

    async def socket(self, scope: dict, receive: Any, send: Any) -> None:
        """graphql-transport-ws, enough of it for GraphiQL: init/ack, ping/pong, subscribe
        then next... complete."""
        offered = list(scope.get("subprotocols", []))
        self.sockets.append(offered)
        if scope["path"] not in ("/graphql", "/graphql/") or \
                "graphql-transport-ws" not in offered:
            await send({"type": "websocket.close", "code": 4406})
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept", "subprotocol": "graphql-transport-ws"})
        running: dict[str, asyncio.Task] = {}

        async def emit(message: dict) -> None:
            await send({"type": "websocket.send", "text": json.dumps(message)})

        async def run(ident: str, payload: dict) -> None:
            stream = subscribe(SCHEMA, parse(payload["query"]),
                               variable_values=payload.get("variables"),
                               operation_name=payload.get("operationName"))
            if isawaitable(stream):
                stream = await stream
            if isinstance(stream, AsyncIterator):
                async for result in stream:
                    await emit({"type": "next", "id": ident, "payload": result.formatted})
            else:
                await emit({"type": "next", "id": ident, "payload": stream.formatted})
            await emit({"type": "complete", "id": ident})

        while True:
            event = await receive()
            if event["type"] == "websocket.disconnect":
                break
            message = json.loads(event.get("text") or event.get("bytes") or "{}")
            kind = message.get("type")
            if kind == "connection_init":
                await emit({"type": "connection_ack"})
            elif kind == "ping":
                await emit({"type": "pong"})
            elif kind == "subscribe":
                running[message["id"]] = asyncio.create_task(
                    run(message["id"], message["payload"]))
            elif kind == "complete" and message.get("id") in running:
                running.pop(message["id"]).cancel()
        for task in running.values():
            task.cancel()


async def _send(send: Any, status: int, headers: list[tuple[bytes, bytes]],
                body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def endpoint() -> Iterator[tuple[str, Endpoint]]:
    app = Endpoint()
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", ws="websockets-sansio",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, name="graphiql-endpoint", daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        threading.Event().wait(0.05)
    assert server.started, "the test endpoint did not start"
    yield f"http://127.0.0.1:{port}", app
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's own sandbox cannot start.
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield launched
        launched.close()


# Recorded in the page before any of its scripts runs (init scripts are not subject to the
# page's CSP): every violation the browser reports, blocked or not.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


class Recorder:
    """A browser page that records console errors, uncaught exceptions, CSP violations,
    WebSockets, and every request to another origin (which it aborts)."""

    def __init__(self, browser: Any, base_url: str) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 800})
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.base_url = base_url
        self.errors: list[str] = []
        self.foreign: list[str] = []
        self.requests: list[str] = []
        self.sockets: list[str] = []
        origin = urlsplit(base_url)
        self.page.add_init_script(RECORD_VIOLATIONS)
        self.page.on("console", lambda message: message.type == "error"
                     and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        self.page.on("websocket", lambda socket: self.sockets.append(socket.url))

        def check(route: Any) -> None:
            url = urlsplit(route.request.url)
            self.requests.append(route.request.url)
            if url.scheme in ("data", "blob") or (url.scheme, url.netloc) == \
                    (origin.scheme, origin.netloc):
                route.continue_()
            else:
                self.foreign.append(route.request.url)
                route.abort()

        self.page.route("**/*", check)

    def violations(self) -> list[str]:
        return self.page.evaluate("window.__violations")

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def recorder(browser, endpoint) -> Iterator[Recorder]:
    opened = Recorder(browser, endpoint[0])
    yield opened
    opened.close()


def _editor(recorder: Recorder, which: str) -> str:
    return recorder.page.evaluate(
        f"document.querySelector('.graphiql-{which} .CodeMirror').CodeMirror.getValue()")


def _set_query(recorder: Recorder, query: str, operation: str) -> None:
    """Replace the query editor's text, then wait for GraphiQL to have parsed it (it picks
    HTTP or the WebSocket from the parsed operation)."""
    recorder.page.evaluate(
        "(query) => document.querySelector('.graphiql-query-editor .CodeMirror')"
        ".CodeMirror.setValue(query)", query)
    recorder.page.wait_for_function(
        "(operation) => document.querySelector('.graphiql-query-editor .CodeMirror')"
        ".CodeMirror.documentAST?.definitions[0]?.operation === operation", arg=operation)


def _run_and_wait_for(recorder: Recorder, text: str) -> str:
    recorder.page.click("button.graphiql-execute-button")
    recorder.page.wait_for_function(
        "(text) => document.querySelector('.graphiql-response .CodeMirror')"
        ".CodeMirror.getValue().includes(text)", arg=text)
    return _editor(recorder, "response")


def test_graphiql_renders_runs_a_query_and_a_subscription_on_its_origin(recorder, endpoint,
                                                                         tmp_path):
    base_url, app = endpoint
    page = recorder.page
    page.goto(base_url + "/graphql", wait_until="load")
    page.wait_for_selector(".graphiql-container .graphiql-query-editor .CodeMirror")
    assert page.title().endswith("GraphiQL")
    assert 'ticker(symbol: "AAPL")' in _editor(recorder, "query-editor")
    answer = json.loads(_run_and_wait_for(recorder, "regularMarketPrice"))
    assert answer == {"data": {"ticker": {"quote": {"symbol": "AAPL",
                                                    "regularMarketPrice": 189.5}}}}
    # It introspected the schema first (a POST to /graphql, as the query was).
    assert "__schema" in app.posts[0]["query"]
    assert app.posts[-1]["query"].lstrip().startswith("# Market data over GraphQL")

    # A subscription: over a WebSocket to the same path, graphql-transport-ws.
    _set_query(recorder, 'subscription { ticks(symbol: "MSFT", count: 3) '
                         '{ symbol regularMarketPrice } }', "subscription")
    last = _run_and_wait_for(recorder, "413.25")
    assert json.loads(last) == {"data": {"ticks": {"symbol": "MSFT",
                                                   "regularMarketPrice": 413.25}}}
    host = urlsplit(base_url).netloc
    assert recorder.sockets == [f"ws://{host}/graphql"]
    assert app.sockets and all("graphql-transport-ws" in offered for offered in app.sockets)

    # Everything came from this origin, and came back: the assets through Django.
    assert recorder.foreign == []
    paths = [urlsplit(url).path for url in recorder.requests]
    assert paths[0] == "/graphql"
    assets = [path for path in paths if path.startswith("/graphql/assets/")]
    assert sorted(path.rsplit("/", 1)[1] for path in assets) == sorted(
        ["graphiql.min.css", "graphiql-page.css", "react.production.min.js",
         "react-dom.production.min.js", "graphiql.min.js", "graphiql-init.js"])
    assert recorder.violations() == []
    assert recorder.errors == []

    shot = Path(os.environ.get("GRAPHIQL_SCREENSHOT") or tmp_path / "graphiql.png")
    _set_query(recorder, page.get_attribute("#graphiql", "data-default-query") or "",
               "query")
    _run_and_wait_for(recorder, "189.5")
    page.screenshot(path=str(shot))


def test_the_page_works_at_the_endpoint_path_with_a_slash_too(recorder, endpoint):
    base_url, app = endpoint
    recorder.page.goto(base_url + "/graphql/", wait_until="load")
    recorder.page.wait_for_selector(".graphiql-container .graphiql-query-editor .CodeMirror")
    answer = json.loads(_run_and_wait_for(recorder, "regularMarketPrice"))
    assert answer["data"]["ticker"]["quote"]["regularMarketPrice"] == 189.5
    assert set(app.post_paths) == {"/graphql"}  # the page's data-endpoint
    assert recorder.foreign == [] and recorder.errors == [] and recorder.violations() == []


def test_the_policy_refuses_another_origin_and_the_recorders_see_it(recorder, endpoint):
    """The negative control: a request to another host from the page is blocked by its CSP
    (a violation, a console error) before the network; an inline script does not run."""
    page = recorder.page
    page.goto(endpoint[0] + "/graphql", wait_until="load")
    page.wait_for_selector(".graphiql-container")
    page.evaluate("""() => {
        const image = new Image(); image.src = 'https://cdn.example.com/x.png';
        const script = document.createElement('script');
        script.textContent = 'window.__inline = 1'; document.head.append(script);
        fetch('https://cdn.example.com/y').catch(() => {});
    }""")
    page.wait_for_function("window.__violations.length >= 3")
    found = " ".join(recorder.violations())
    assert "img-src https://cdn.example.com/x.png" in found
    assert "connect-src https://cdn.example.com/y" in found
    assert "script-src-elem inline" in found
    assert page.evaluate("window.__inline") is None
    assert recorder.foreign == []  # refused by the policy: never on the network
