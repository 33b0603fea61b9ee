"""apps.core.bridge: the body read on the event loop within its limits, requests parked on
a full lane without a thread and run again, answers handed to the loop whole."""

from __future__ import annotations

import asyncio
import threading
import time

import orjson
import pytest

from apps.core import bridge
from apps.core.middleware import RUNS_KEY
from marketdata import deadline, lanes
from marketdata.errors import UpstreamBusy

LIMITS = bridge.BodyLimits(max_bytes=100, timeout=0.2)


def _scope(path="/v2/backtest/AAPL", method="POST", headers=()):
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": b"", "root_path": "", "client": ("127.0.0.1", 1234),
            "server": ("testserver", 80),
            "headers": [(b"host", b"testserver"), *headers],
            deadline.ARRIVAL_KEY: time.monotonic()}


class Client:
    """An ASGI peer: the body in pieces (or never), the answer collected."""

    def __init__(self, pieces=(), stall=False):
        self.pieces = list(pieces)
        self.stall = stall
        self.received = 0
        self.messages = []

    async def receive(self):
        self.received += 1
        if not self.pieces:
            if self.stall:
                await asyncio.sleep(3600)
            return {"type": "http.disconnect"}
        body, more = self.pieces.pop(0), bool(self.pieces) or self.stall
        return {"type": "http.request", "body": body, "more_body": more}

    async def send(self, message):
        self.messages.append(message)

    @property
    def status(self):
        return self.messages[0]["status"]

    @property
    def headers(self):
        return dict(self.messages[0]["headers"])

    @property
    def body(self):
        return b"".join(m.get("body", b"") for m in self.messages[1:])


def _run(coro):
    return asyncio.run(coro)


@pytest.mark.django_db
class TestReadBody:
    def test_a_declared_length_over_the_limit_is_refused_before_reading(self):
        client = Client([b"x" * 10])
        scope = _scope(headers=[(b"content-length", b"5000")])
        assert _run(bridge.read_body(scope, client.receive, client.send, LIMITS)) is None
        assert client.received == 0
        assert client.status == 413
        assert client.headers[b"connection"] == b"close"
        assert orjson.loads(client.body) == {
            "error": "Request body too large: 5000 bytes, at most 100 are accepted",
            "status": 413}

    def test_a_chunked_body_over_the_limit_is_refused_when_it_passes_it(self):
        client = Client([b"x" * 60, b"x" * 60, b"x"])
        scope = _scope(headers=[(b"transfer-encoding", b"chunked")])
        assert _run(bridge.read_body(scope, client.receive, client.send, LIMITS)) is None
        assert client.received == 2 and client.status == 413

    def test_a_stalled_body_is_answered_408_and_closed_at_its_deadline(self):
        client = Client([b"{"], stall=True)
        scope = _scope(headers=[(b"content-length", b"50")])
        started = time.monotonic()
        assert _run(bridge.read_body(scope, client.receive, client.send, LIMITS)) is None
        assert 0.15 < time.monotonic() - started < 2.0
        assert client.status == 408 and client.headers[b"connection"] == b"close"
        assert orjson.loads(client.body)["error"] == "Request body not received within 0.2 s"

    def test_the_v1_shape_outside_v2(self):
        client = Client()
        scope = _scope(path="/v1/quotes", headers=[(b"content-length", b"5000")])
        _run(bridge.read_body(scope, client.receive, client.send, LIMITS))
        assert orjson.loads(client.body) == {
            "detail": "Request body too large: 5000 bytes, at most 100 are accepted"}

    def test_an_invalid_content_length_is_a_400(self):
        for value in (b"12abc", b"-1"):
            client = Client()
            scope = _scope(headers=[(b"content-length", value)])
            assert _run(bridge.read_body(scope, client.receive, client.send, LIMITS)) is None
            assert client.status == 400

    def test_a_whole_body_and_no_body(self):
        client = Client([b'{"a":', b" 1}"])
        scope = _scope(headers=[(b"transfer-encoding", b"chunked")])
        assert _run(bridge.read_body(scope, client.receive, client.send, LIMITS)) == b'{"a": 1}'
        client = Client()
        assert _run(bridge.read_body(_scope(method="GET"), client.receive, client.send,
                                     LIMITS)) == b""
        assert client.received == 0

    def test_a_client_that_leaves_gets_nothing(self):
        client = Client()
        scope = _scope(headers=[(b"content-length", b"10")])
        assert _run(bridge.read_body(scope, client.receive, client.send, LIMITS)) is None
        assert client.messages == []


def _json_app(status="200 OK", body=b"{}"):
    def app(environ, start_response):
        start_response(status, [("Content-Type", "application/json")])
        return [body]
    return app


@pytest.mark.django_db
class TestBridge:
    def test_the_body_and_its_length_reach_the_application(self):
        seen = {}

        def app(environ, start_response):
            seen["body"] = environ["wsgi.input"].read()
            seen["length"] = environ["CONTENT_LENGTH"]
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"a", b"", b"b", b"c"]

        front = bridge.Bridge(app, threads=2, limits=LIMITS)
        client = Client([b"ab", b"c"])
        _run(front(_scope(headers=[(b"transfer-encoding", b"chunked")]), client.receive,
                   client.send))
        assert seen == {"body": b"abc", "length": "3"}
        # The answer is handed over whole: one start, one body.
        assert [m["type"] for m in client.messages] == ["http.response.start",
                                                         "http.response.body"]
        assert client.status == 200 and client.body == b"abc"

    def test_a_request_on_a_full_lane_is_parked_and_runs_again_when_there_is_room(self):
        lane = lanes.Lane("chart", "Example (chart)", "ex", capacity=1, share=1)
        assert lane.admit()  # a slow call occupies the lane
        runs = []

        def app(environ, start_response):
            runs.append(lanes.parking_allowed())
            scope = environ["asgi.scope"]
            if len(runs) == 1:
                with lanes.enter(lane):  # full: unwinds the request
                    pass
            start_response("200 OK", [("Content-Type", "application/json")])
            return [orjson.dumps({"runs": scope[RUNS_KEY]})]

        front = bridge.Bridge(app, threads=1, limits=LIMITS)
        client = Client()

        async def scenario():
            task = asyncio.create_task(front(_scope(method="GET"), client.receive,
                                             client.send))
            for _ in range(200):
                if lane.snapshot().parked:
                    break
                await asyncio.sleep(0.01)
            assert lane.snapshot().parked == 1 and client.messages == []
            threading.Thread(target=lane.leave).start()  # the slow call ends
            await asyncio.wait_for(task, 5)

        _run(scenario())
        assert runs == [True, True]
        assert client.status == 200 and orjson.loads(client.body) == {"runs": 2}
        assert lane.snapshot().parked == 0

    def test_a_parked_request_runs_a_last_time_at_its_deadline_without_parking(self, settings):
        settings.REQUEST_DEADLINE_SECONDS = 0.5
        lane = lanes.Lane("chart", "Example (chart)", "ex", capacity=1, share=1)
        lane.admit()  # and never leaves
        runs = []

        def app(environ, start_response):
            runs.append(lanes.parking_allowed())
            try:
                with lanes.enter(lane):
                    pass
            except UpstreamBusy as busy:
                start_response("503 Service Unavailable",
                               [("Content-Type", "application/json")])
                return [orjson.dumps({"error": busy.detail})]
            raise AssertionError("the lane is full")

        front = bridge.Bridge(app, threads=1, limits=LIMITS)
        client = Client()
        started = time.monotonic()
        _run(front(_scope(method="GET"), client.receive, client.send))
        took = time.monotonic() - started
        assert runs == [True, False]
        assert client.status == 503
        assert 0.3 < took < 0.5 + 1.0  # at the deadline, not after it
        assert lane.snapshot().parked == 0

    def test_a_client_that_does_not_read_holds_no_thread(self):
        front = bridge.Bridge(_json_app(), threads=1, limits=LIMITS)
        stuck, quick = Client(), Client()

        async def never(message):
            await asyncio.sleep(3600)

        async def scenario():
            blocked = asyncio.create_task(front(_scope(method="GET"), stuck.receive, never))
            await asyncio.sleep(0.1)
            # The only thread is free again: the next request is answered.
            await asyncio.wait_for(front(_scope(method="GET"), quick.receive, quick.send), 5)
            blocked.cancel()

        _run(scenario())
        assert quick.status == 200
