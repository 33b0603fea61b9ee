"""Hostile stream clients against the production server command (bin/serve: gunicorn +
uvicorn, one worker) on the sandbox: a decompression bomb and an oversized frame (closed
1009 while /v1/ping keeps answering), a client that never reads (closed, its memory freed),
a subscribe storm (refused frames, upstream calls bounded), foreign Host and Origin on both
WebSockets and /mcp, and the per-address cap across WebSockets and SSE."""

from __future__ import annotations

import json
import socket
import statistics
import threading
import time
import urllib.request
import zlib
from urllib.parse import urlsplit

import pytest

from bench.stream_load import sample_processes
from marketdata.sandbox.instruments import sample_symbols
from tests.integration.servers import Process, configure_sandbox, http, time_pings
from tests.ws import RawWebSocket

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("a server process of its own, clients that misbehave for seconds")]

QUOTE_PATH = "/v7/finance/quote"


def _address(service: Process) -> tuple[str, int]:
    where = urlsplit(service.base_url)
    return where.hostname or "127.0.0.1", where.port or 80


def _usage(service: Process) -> dict[str, float]:
    """RSS (MiB) and CPU seconds of the service's processes (gunicorn's master and worker):
    CPU time is what work costs the server, whatever else the test machine is doing (a wall
    clock is not)."""
    return sample_processes(service.proc.pid)


@pytest.fixture
def service(server_pool) -> Process:
    service = server_pool.service({"USE_SECURITY": "false", "STREAM_INTERVAL_SECONDS": "1",
                                   "V2_RATE_LIMIT_CAPACITY": "0",
                                   "STREAM_MAX_CONNECTIONS_PER_ADDRESS": "100"})
    return service


def test_a_decompression_bomb_and_an_oversized_frame_are_closed_1009(service):
    host, port = _address(service)
    # 16 MiB of one member name, deflated to ~16 KiB: what it costs to refuse is the
    # inflating of WS_MAX_MESSAGE_BYTES (16 KiB), not of 16 MiB.
    deflater = zlib.compressobj(wbits=-15)
    bomb = deflater.compress(b'{"' + b"x" * (16 << 20) + b'":1}') \
        + deflater.flush(zlib.Z_SYNC_FLUSH)
    bomb = bomb[:-4]  # permessage-deflate drops the sync flush's empty block

    def attack() -> list[int | None]:
        codes = []
        for _ in range(10):
            ws = RawWebSocket(host, port, deflate=True)
            assert ws.status == 101 and "permessage-deflate" in ws.head
            ws.send(bomb, compressed=True)
            codes.append(ws.close_code())
            ws.close()
        oversized = RawWebSocket(host, port)
        oversized.send(json.dumps({"subscribe": ["A" * 20_000]}).encode())
        codes.append(oversized.close_code())
        oversized.close()
        return codes

    # What refusing costs the server: CPU time, not a wall clock a loaded CI machine
    # stretches. Inflating and parsing the 10 bombs took ~6 s of the loop before the limit.
    before = _usage(service)["cpu_s"]
    assert attack() == [1009] * 11
    assert _usage(service)["cpu_s"] - before < 1.0
    # And a client of the service meanwhile keeps being answered.
    pings: list[float] = []
    stop = threading.Event()
    pinger = threading.Thread(target=time_pings, args=(service.base_url, stop, pings))
    pinger.start()
    try:
        time.sleep(0.3)
        codes = attack()
        time.sleep(0.3)
    finally:
        stop.set()
        pinger.join()
    assert codes == [1009] * 11
    assert len(pings) >= 10
    assert statistics.median(pings) < 50, pings


def test_error_frames_never_echo_what_the_client_sent(service):
    host, port = _address(service)
    ws = RawWebSocket(host, port)
    ws.send(json.dumps({"y" * 15_000: 1, **{f"m{i}": 1 for i in range(50)}}).encode())
    opcode, payload = ws.recv()
    ws.close()
    assert opcode == 0x1 and len(payload) < 600, payload[:200]
    error = json.loads(payload)
    assert error["status"] == 400 and "and 46 more" in error["error"]


def test_a_dashboard_that_stops_reading_is_dropped_by_its_unanswered_ping(server_pool):
    """Ticks the kernel still takes (it buffers ~1 MB on loopback before the transport's
    own buffer fills): the unanswered keepalive ping ends it, with a reset."""
    sandbox = server_pool.sandbox()
    configure_sandbox(sandbox, clock={"start": "2026-11-24T14:31:00Z", "speed": 60})
    service = server_pool.own_service({"USE_SECURITY": "false", "STREAM_INTERVAL_SECONDS": "1",
                                       "V2_RATE_LIMIT_CAPACITY": "0",
                                       "WS_PING_INTERVAL_SECONDS": "2",
                                       "WS_PING_TIMEOUT_SECONDS": "2"})
    host, port = _address(service)
    ws = RawWebSocket(host, port, receive_buffer=4096)
    ws.send(json.dumps({"subscribe": ["AAPL", "MSFT", "NVDA", "BTC-USD"]}).encode())
    started = time.monotonic()
    while time.monotonic() - started < 20 and _tcp_state(ws) == ESTABLISHED:
        time.sleep(0.2)
    dropped = time.monotonic() - started
    state = _tcp_state(ws)
    ws.close()
    assert state != ESTABLISHED and dropped < 10, (state, dropped)


ESTABLISHED = 1  # Linux's TCP_ESTABLISHED


def _tcp_state(ws: RawWebSocket) -> int:
    """The client socket's TCP state, from the kernel: a reset from the server ends it
    without the client reading anything."""
    return ws.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def test_a_client_that_never_reads_is_closed_and_its_memory_freed(server_pool):
    service = server_pool.own_service({"USE_SECURITY": "false", "STREAM_INTERVAL_SECONDS": "1",
                                       "V2_RATE_LIMIT_CAPACITY": "0",
                                       "WS_SEND_TIMEOUT_SECONDS": "2",
                                       "WS_PING_INTERVAL_SECONDS": "2",
                                       "WS_PING_TIMEOUT_SECONDS": "2",
                                       "WS_FRAMES_PER_SECOND": "1000",
                                       "WS_FRAME_BURST": "1000"})
    host, port = _address(service)
    # Every frame answered with an error frame of ~170 bytes, sent as fast as the socket
    # takes them, to a client that reads nothing through a 4 KiB window.
    before = _usage(service)["rss_mib"]
    ws = RawWebSocket(host, port, receive_buffer=4096)
    frame = json.dumps({"subscribe": ["AA PL?"] * 90}).encode()
    ws.sock.settimeout(0.5)
    started, sent = time.monotonic(), 0
    try:
        while time.monotonic() - started < 30:
            ws.send(frame)
            sent += 1
            if sent % 20 == 0:
                time.sleep(0.05)  # ~400 frames a second: output enough, not a CPU's worth
    except OSError:
        pass  # the server stopped reading it, or dropped it
    ws.sock.settimeout(30)
    code = ws.close_code()  # drains what was buffered: the connection must have ended
    ended = time.monotonic() - started
    ws.close()
    time.sleep(1.5)  # jemalloc returns freed pages within a second
    after = _usage(service)["rss_mib"]
    assert sent > 100
    assert ended < 30, "the server kept a client that read nothing"
    assert code in (None, 1008), code
    assert after <= before * 1.10, (before, after)


def test_a_subscribe_storm_is_refused_and_costs_no_more_than_the_pollers(service, server_pool):
    sandbox = server_pool.sandbox()
    configure_sandbox(sandbox)
    host, port = _address(service)
    http("POST", f"{sandbox.base_url}/__sandbox__/reset")
    ws = RawWebSocket(host, port)
    statuses: list[int] = []
    started = time.monotonic()
    try:
        for n in range(400):
            names = [f"ZS{n:03d}{i:02d}" for i in range(100)]
            ws.send(json.dumps({"subscribe": names}).encode())
            ws.send(json.dumps({"unsubscribe": names}).encode())
    except OSError:
        pass  # closed (1008) for sending on while refused
    # The frames went into the socket's buffers at once; the server reads them at its own
    # pace (seconds on a loaded CI machine): its answers until it closes the connection.
    ws.sock.settimeout(30)
    try:
        while True:
            opcode, payload = ws.recv()
            if opcode == 0x1:
                frame = json.loads(payload)
                if "status" in frame:
                    statuses.append(frame["status"])
            elif opcode in (0x8, -1):
                break
    except OSError:
        pass
    elapsed = time.monotonic() - started  # the pollers ran as long as the connection did
    ws.close()
    _, _, body = http("GET", f"{sandbox.base_url}/__sandbox__/requests?path_prefix={QUOTE_PATH}")
    calls = json.loads(body)["count"]
    assert 429 in statuses
    # One connection adds at most WS_MAX_SYMBOLS (100) symbols per 1 s interval: one batch
    # call of two upstream requests (50 symbols each) per interval, plus the first burst.
    assert calls <= 2 * (elapsed + 4), (calls, elapsed)


@pytest.mark.parametrize("path", ["/v2/stream", "/v2/feeds/stream"])
def test_a_foreign_origin_or_host_is_refused_by_the_websockets(service, path):
    host, port = _address(service)
    refused = RawWebSocket(host, port, path, headers={"Origin": "http://evil.example"})
    assert refused.status == 403
    assert refused.refusal() == {"error": "Origin not allowed: http://evil.example",
                                 "status": 403}
    refused.close()
    null = RawWebSocket(host, port, path, headers={"Origin": "null"})
    assert null.status == 403
    null.close()
    own = RawWebSocket(host, port, path, headers={"Origin": f"http://{host}:{port}"})
    assert own.status == 101
    own.close()
    # DNS rebinding: the attacker's name points at this machine; the Host gives it away.
    rebound = RawWebSocket(host, port, path, headers={"Host": "evil.example:80",
                                                      "Origin": "http://evil.example"})
    assert rebound.status == 400
    rebound.close()


def test_a_foreign_origin_or_host_is_refused_by_mcp(service):
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "t", "version": "1"}}}
    accept = {"Accept": "application/json, text/event-stream"}
    url = f"{service.base_url}/mcp"
    status, _, body = http("POST", url, initialize, headers={**accept,
                                                             "Origin": "http://evil.example"})
    assert status == 403 and "Origin not allowed" in json.loads(body)["detail"]
    status, _, _ = http("POST", url, initialize, headers={**accept, "Origin": "null"})
    assert status == 403
    status, _, _ = http("POST", url, initialize, headers={**accept, "Host": "evil.example"})
    assert status == 400
    host, port = _address(service)
    status, _, _ = http("POST", url, initialize, headers={**accept,
                                                          "Origin": f"http://{host}:{port}"})
    assert status == 200


def test_the_per_address_cap_holds_across_websockets_and_sse(server_pool):
    service = server_pool.own_service({"USE_SECURITY": "false", "V2_RATE_LIMIT_CAPACITY": "0",
                                       "STREAM_MAX_CONNECTIONS_PER_ADDRESS": "3"})
    host, port = _address(service)
    opened = [RawWebSocket(host, port), RawWebSocket(host, port, "/v2/feeds/stream")]
    sse = urllib.request.urlopen(f"{service.base_url}/v1/stream/quotes?symbols=AAPL",
                                 timeout=10)
    try:
        assert [ws.status for ws in opened] == [101, 101] and sse.status == 200
        refused = RawWebSocket(host, port)
        assert refused.status == 429
        body = refused.refusal()
        assert body["status"] == 429 and "STREAM_MAX_CONNECTIONS_PER_ADDRESS" in body["error"]
        refused.close()
        status, _, raw = http("GET", f"{service.base_url}/v1/stream/quotes?symbols=MSFT")
        assert status == 429 and json.loads(raw)["code"] == "too_many_streams"
    finally:
        sse.close()
        for ws in opened:
            ws.close()
    # The places come back when the streams end.
    deadline = time.monotonic() + 10
    while True:
        again = RawWebSocket(host, port)
        if again.status == 101 or time.monotonic() > deadline:
            break
        again.close()
        time.sleep(0.2)
    assert again.status == 101
    again.close()


def test_ticks_reach_a_client_that_did_not_ask_for_compression(service):
    """The frames a writer puts in one socket write (config.protocol's send_many), plain."""
    host, port = _address(service)
    ws = RawWebSocket(host, port)
    assert "permessage-deflate" not in ws.head
    ws.send(json.dumps({"subscribe": ["AAPL", "MSFT", "BTC-USD"]}).encode())
    ticks = {}
    while len(ticks) < 3:
        opcode, payload = ws.recv()
        assert opcode == 0x1, (opcode, payload[:100])
        frame = json.loads(payload)
        ticks[frame["id"]] = frame
    ws.close()
    assert set(ticks) == {"AAPL", "MSFT", "BTC-USD"} and ticks["AAPL"]["price"] > 0


def test_an_sse_client_that_stops_reading_is_dropped_once_its_window_is_full(server_pool):
    """SSE has no acknowledgement from the client's application: its kernel takes events
    into its receive buffer whether it reads or not. Once that is full, the server sees the
    unsent bytes stay, and drops it within RESPONSE_WRITE_TIMEOUT_SECONDS."""
    service = server_pool.own_service({"USE_SECURITY": "false", "STREAM_INTERVAL_SECONDS": "1",
                                       "RESPONSE_WRITE_TIMEOUT_SECONDS": "2"})
    host, port = _address(service)
    symbols = ",".join(sample_symbols(50))  # ~5 KB an event: the window fills at once
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, port))
    sock.sendall(f"GET /v1/stream/quotes?symbols={symbols} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                 "Accept: text/event-stream\r\n\r\n".encode())
    started = time.monotonic()
    while time.monotonic() - started < 30 \
            and sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0] == ESTABLISHED:
        time.sleep(0.2)
    dropped = time.monotonic() - started
    state = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]
    sock.close()
    assert state != ESTABLISHED and dropped < 20, (state, dropped)
    stats = json.loads(http("GET", f"{service.base_url}/v1/health", timeout=60)[2])["stream"]
    assert stats["connections"] == 0
