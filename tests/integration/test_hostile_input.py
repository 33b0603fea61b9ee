"""The serving front through the real server (bin/serve, one worker, sandbox mode), over raw
sockets: over-long URLs (414, even in one write with the rest of the head), header sections
(431), malformed requests (400, after the answers to the requests pipelined before), heads and
bodies that do not arrive (408), bodies too large (413) and too deep (400), all in the
endpoint's JSON error shape with the connection closed; OPTIONS on the pages; a client that
stops reading is disconnected; the access log counts from arrival."""

from __future__ import annotations

import json
import socket
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.integration.servers import http, start_service

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("waits out the service's real header, body and write timeouts")]

LIMITS = {"REQUEST_HEADER_TIMEOUT_SECONDS": "1", "REQUEST_BODY_TIMEOUT_SECONDS": "1",
          "RESPONSE_WRITE_TIMEOUT_SECONDS": "1", "REQUEST_URL_MAX_BYTES": "4096",
          "REQUEST_HEADERS_MAX_BYTES": "8192", "REQUEST_BODY_MAX_BYTES": "65536"}


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    server = start_service(tmp, {"MARKETDATA_UPSTREAM": "sandbox", "WEB_CONCURRENCY": "1",
                                 **LIMITS})
    yield server
    server.stop()


def _port(service) -> int:
    return int(service.base_url.rsplit(":", 1)[1])


def exchange(service, payload: bytes, wait: float = 10.0) -> tuple[bytes, float, bool]:
    """Send ``payload`` on a fresh connection and read until the server closes it: (what
    came back, seconds, whether the server closed the connection)."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", _port(service)), timeout=wait) as sock:
        try:
            sock.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server refused before reading it all: its answer is still there
        received = b""
        closed = False
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    closed = True
                    break
                received += chunk
        except ConnectionResetError:
            closed = True
        except TimeoutError:
            pass
    return received, time.monotonic() - started, closed


def answer(raw: bytes) -> tuple[int, dict[str, str], dict]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, json.loads(body)


def assert_refused(raw: bytes, closed: bool, status: int, v2: bool) -> dict:
    code, headers, body = answer(raw)
    assert code == status, raw[:300]
    assert closed and headers["connection"] == "close"
    assert headers["content-type"] == "application/json"
    assert headers["x-correlation-id"] and headers["x-data-source"] == "sandbox"
    assert headers["x-content-type-options"] == "nosniff"
    if v2:
        assert set(body) == {"error", "status"} and body["status"] == status, body
    else:
        assert set(body) == {"detail"}, body
    return body


def test_an_over_long_url_is_a_414(service):
    raw, _, closed = exchange(service, b"GET /v2/quote/" + b"A" * 5000
                              + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    body = assert_refused(raw, closed, 414, v2=True)
    assert body["error"] == "URL too long: at most 4096 bytes"
    raw, _, closed = exchange(service, b"GET /v1/quotes?symbols=" + b"A," * 3000
                              + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    assert_refused(raw, closed, 414, v2=False)


def test_a_64_kb_url_in_one_write_is_a_414_not_a_431(service):
    # Over the URL limit and over the whole head's (URL + headers) in the same read: the
    # head's limit answered first (431) before the fix.
    raw, _, closed = exchange(service, b"GET /v2/quote/" + b"A" * 65536
                              + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    body = assert_refused(raw, closed, 414, v2=True)
    assert body["error"] == "URL too long: at most 4096 bytes"


def split_answers(raw: bytes) -> list[bytes]:
    """The responses in ``raw`` one after the other, each whole (bodies by Content-Length)."""
    out = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        out.append(raw[:len(head) + 4 + length])
        raw = rest[length:]
    return out


@pytest.mark.parametrize("path", ["/v1/ping", "/v2/health"])  # the loop's, a thread's
def test_a_pipelined_request_before_garbage_is_answered_then_a_400(service, path):
    raw, _, closed = exchange(service, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
                              + b"GARBAGE\x00\x01 nonsense\r\n\r\n")
    first, second = split_answers(raw)  # lost before the fix: the 400 alone
    status, headers, body = answer(first)
    assert status == 200 and body["status"] == "healthy", first[:300]
    assert "connection" not in headers
    body = assert_refused(second, closed, 400, v2=False)
    assert body == {"detail": "Malformed HTTP request"}


@pytest.mark.parametrize("headers", [
    b"X-Big: " + b"a" * 9000 + b"\r\n",  # one large header
    b"X-Big: " + b"a" * 8_000_000 + b"\r\n",  # the 8 MB header that used to be accepted
    b"".join(b"X-H%d: v\r\n" % n for n in range(150)),  # too many
])
def test_an_over_large_header_section_is_a_431(service, headers):
    raw, _, closed = exchange(service, b"GET /v2/health HTTP/1.1\r\nHost: x\r\n" + headers
                              + b"\r\n")
    assert_refused(raw, closed, 431, v2=True)


def test_a_malformed_request_is_a_json_400_without_the_parsers_words(service):
    raw, _, closed = exchange(service, b"GET /v1/ping HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n")
    body = assert_refused(raw, closed, 400, v2=False)
    assert body == {"detail": "Malformed HTTP request"}


def test_a_head_that_stalls_is_a_408_and_an_idle_connection_is_closed(service):
    raw, seconds, closed = exchange(service, b"GET /v2/health HTTP/1.1\r\nHost: x\r\n")
    body = assert_refused(raw, closed, 408, v2=True)
    assert body["error"] == "Request headers not received within 1 s"
    assert seconds < 5
    raw, seconds, closed = exchange(service, b"")
    assert raw == b"" and closed and seconds < 5


def test_a_body_that_stalls_is_a_408_and_its_connection_closed(service):
    raw, seconds, closed = exchange(
        service, b"POST /v2/backtest/AAPL HTTP/1.1\r\nHost: x\r\nContent-Type: "
        b"application/json\r\nContent-Length: 100000\r\n\r\n{\"strategy\"")
    # 100000 is over the 65536 limit: refused at once, before a byte of it is read.
    assert_refused(raw, closed, 413, v2=True)
    raw, seconds, closed = exchange(
        service, b"POST /v2/backtest/AAPL HTTP/1.1\r\nHost: x\r\nContent-Type: "
        b"application/json\r\nContent-Length: 1000\r\n\r\n{\"strategy\"")
    body = assert_refused(raw, closed, 408, v2=True)
    assert body["error"] == "Request body not received within 1 s"
    assert 0.8 < seconds < 5


def test_a_chunked_body_over_the_limit_is_a_413(service):
    chunk = b"%x\r\n%s\r\n" % (40000, b"x" * 40000)
    raw, _, closed = exchange(
        service, b"POST /v2/backtest/AAPL HTTP/1.1\r\nHost: x\r\nContent-Type: "
        b"application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk + chunk + chunk)
    assert_refused(raw, closed, 413, v2=True)


def test_nested_and_malformed_json_bodies_are_400s(service):
    for data in (b"[" * 1000 + b"]" * 1000, b'{"strategy": '):
        status, _, body = _post(service, data)
        assert status == 400, body
        assert json.loads(body)["error"].startswith("body: ")


def _post(service, data: bytes):
    import urllib.request

    request = urllib.request.Request(f"{service.base_url}/v2/backtest/AAPL", data=data,
                                     method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


@pytest.mark.parametrize("path", ["/", "/docs", "/redoc", "/openapi.json", "/readyz",
                                  "/metrics", "/admin/"])
def test_options_on_the_pages(service, path):
    status, headers, body = http("OPTIONS", service.base_url + path)
    assert status == 200 and body == b"" and "GET" in headers["Allow"]


def test_a_client_that_stops_reading_is_disconnected_and_holds_nothing(service):
    # Eight pipelined Swagger bundles (12 MB) to a client that never reads: more than the
    # kernel's buffers hold (4 MB of send buffer on loopback), so the server's own buffer
    # fills, and after the write timeout (1 s) the connection is aborted.
    path = "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js"
    bundle = http("GET", service.base_url + path)[2]
    with socket.socket() as sock:
        # A small receive window (set before connecting).
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", _port(service)))
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode() * 8)
        time.sleep(5)  # write timeout 1 s, plus slack for a loaded machine
        # Meanwhile the server answers others.
        status, _, _ = http("GET", f"{service.base_url}/v1/ping", timeout=5)
        assert status == 200
        sock.settimeout(5)
        received = 0
        try:
            while chunk := sock.recv(1 << 20):
                received += len(chunk)
        except ConnectionResetError:
            pass
    assert received < 8 * len(bundle)  # cut off, not delivered late
    assert "closing a connection whose client stopped reading" in service.log()


def test_the_access_log_counts_from_arrival(server_pool):
    """One thread, two requests: the second waited for the first's upstream (1.5 s) and is
    logged with that wait, as is the latency metric."""
    service, sandbox = server_pool.stack({"WEB_CONCURRENCY": "1", "WEB_THREADS": "1"})
    http("GET", f"{service.base_url}/v2/macro/treasury-yields?limit=1")  # warm
    http("POST", f"{sandbox.base_url}/__sandbox__/config",
         {"faults": [{"path_prefix": "/v8/finance/chart", "fail_rate": 0.0,
                      "latency_ms": 1500}]})
    slow = f"/v2/chart/S{uuid.uuid4().hex[:5].upper()}?range=5d"
    waiting = f"/v2/macro/series/W{uuid.uuid4().hex[:5].upper()}?limit=1"
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(http, "GET", service.base_url + slow)
        time.sleep(0.3)
        second = pool.submit(http, "GET", service.base_url + waiting)
        first.result(), second.result()
    line = next(json.loads(text) for text in service.log().splitlines()
                if '"path":"/v2/macro/series/' in text and "API response sent" in text)
    assert line["duration_ms"] >= 1000, line  # the wait for the thread is in it
