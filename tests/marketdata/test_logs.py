"""marketdata.logs keeps secrets out of log lines: redact_query (every spelling of a secret
parameter, nothing else touched), structured fields, the RedactSecrets filter (records of any
shape) and, end to end, urllib3's own DEBUG lines for real requests at LOG_LEVEL=DEBUG."""

from __future__ import annotations

import io
import json
import logging
import logging.config
import socket
import string
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests
import structlog
from hypothesis import assume, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from marketdata.logs import (
    REDACTED,
    REDACTED_FIELD,
    RedactSecrets,
    build_logging_config,
    emit,
    redact_query,
    redact_record,
    redact_text,
)

JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
       ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")


# -- redact_query: examples ----------------------------------------------------------------------
@pytest.mark.parametrize("name", [
    # keys
    "apikey", "api_key", "api-key", "API_KEY", "ApiKey", "x-api-key", "X-API-KEY", "key", "KEY",
    "fred_api_key", "private_key", "secret_key", "accesskey", "subscription-key",
    # sessions
    "session", "Session", "sessionid", "session_id", "session-id", "sid", "SID", "PHPSESSID",
    "JSESSIONID", "ASP.NET_SessionId", "connect.sid", "user_sid",
    # passwords
    "pass", "PASS", "passwd", "password", "Password", "pwd", "passphrase", "db_pass",
    "user-password",
    # JWTs and tokens
    "jwt", "JWT", "id_token", "refresh_token", "access_token", "bearer", "token", "my-token",
    "X-Amz-Security-Token",
    # signatures
    "sig", "signature", "X-Amz-Signature", "X-Goog-Signature", "hmac", "request_hmac",
    # credentials
    "credential", "credentials", "X-Amz-Credential", "X-Goog-Credential", "client_secret",
    "secret", "auth", "oauth", "authorization",
    # Yahoo
    "crumb",
    # array forms
    "apikey[]", "api_key[0]", "token[x]", "auth[token]", "user[password]", "session[]",
    # percent-encoded (fully decoded before matching) and "+" for a blank
    "%61pikey", "%61%70%69%6B%65%79", "api%5Fkey", "api%5fkey", "API%2Dkey", "%2561pikey",
    "apikey%5B%5D", "api%5Fkey%5B0%5D", "%73ession", "p%61ss", "%6A%77%74", "api+key",
    "%54OKEN",
])
def test_every_spelling_of_a_secret_name_is_redacted(name):
    query = f"symbols=AAPL,MSFT&{name}=CANARY-7f3a&range=1mo"
    assert redact_query(query) == f"symbols=AAPL,MSFT&{name}={REDACTED}&range=1mo"


@pytest.mark.parametrize("query", [
    "symbols=AAPL,MSFT&range=1mo&interval=1d",
    "symbols=%5EGSPC%2C%5EDJI&range=1y&interval=1wk&includePrePost=false&events=div%2Csplit",
    "keys=1&hotkey=2&tokens=3&keyword=4&monkey=5&turkey=6",
    "recession=1&obsession=2&bypass=3&compass=4&side=buy&inside=1&sessions=3&author=x",
    "series_id=DGS10&file_type=json&observation_start=2020-01-01&sort_order=asc",
    "q=what%3F&lang=en-US&region=US&fields=a,b&limit=5&offset=10",
    "x=&=y&&flag&a==b",
    "",
])
def test_queries_without_secrets_pass_unchanged(query):
    assert redact_query(query) == query


@pytest.mark.parametrize(("query", "logged"), [
    # unchanged byte for byte around the redacted value, names kept as sent
    ("a=1&&apikey=s&b=%20x+y&c", f"a=1&&apikey={REDACTED}&b=%20x+y&c"),
    ("apikey=&b=2", f"apikey={REDACTED}&b=2"),
    ("apikey=s1&apikey=s2", f"apikey={REDACTED}&apikey={REDACTED}"),
    # a JWT hides whatever its name
    (f"id={JWT}&b=2", f"id={REDACTED}&b=2"),
    (f"state=Bearer%20{JWT}", f"state=Bearer%20{REDACTED}"),
    # pairs inside a value: ';' (old separator) and a nested URL's '?'
    ("a=1;apikey=s;c=2&d=4", f"a=1;apikey={REDACTED}&d=4"),
    ("apikey=s;t&d=4", f"apikey={REDACTED}&d=4"),
    ("next=/cb?token=s&d=4", f"next=/cb?token={REDACTED}&d=4"),
    # a percent-encoded nested query that carries a secret
    ("next=https%3A%2F%2Fx.test%2Fcb%3Fapikey%3Ds&d=4", f"next={REDACTED}&d=4"),
    ("next=https%3A%2F%2Fx.test%2Fcb%3Fpage%3D2&d=4",
     "next=https%3A%2F%2Fx.test%2Fcb%3Fpage%3D2&d=4"),
])
def test_redact_query_edge_cases(query, logged):
    assert redact_query(query) == logged


# -- redact_query: property ----------------------------------------------------------------------
SAFE_NAMES = ["symbols", "symbol", "range", "interval", "region", "lang", "fields", "limit",
              "offset", "period1", "period2", "events", "includePrePost", "q", "quotesCount",
              "series_id", "file_type", "observation_start", "sort", "side", "recession",
              "bypass", "keyword", "keys", "tokens", "monkey", "hotkey", "sessions", "author",
              "page", "cursor", "format", "crumbs_count"]
SECRET_NAMES = ["apikey", "api_key", "api-key", "x-api-key", "key", "fred_api_key", "token",
                "access_token", "id_token", "refresh_token", "bearer", "jwt", "session",
                "sessionid", "session_id", "sid", "PHPSESSID", "JSESSIONID", "pass", "passwd",
                "password", "pwd", "passphrase", "sig", "signature", "X-Amz-Signature",
                "X-Goog-Signature", "hmac", "credential", "X-Amz-Credential", "private_key",
                "client_secret", "crumb", "auth", "secret"]
SAFE_VALUE = st.text(alphabet=string.ascii_letters + string.digits + ",.-_~:/+!*()'$",
                     max_size=16)
SUBSCRIPT = st.sampled_from(["", "[]", "[0]", "[1]", "[x]", "[key]"])


@st.composite
def secret_name(draw: st.DrawFn) -> str:
    """A secret's name in any spelling: case variants, array form, some (or all) of its
    characters percent-encoded with either hex case."""
    base = draw(st.sampled_from(SECRET_NAMES)) + draw(SUBSCRIPT)
    out = []
    for char in base:
        if draw(st.booleans()):
            char = char.swapcase()
        if draw(st.integers(0, 3)) == 0:
            code = f"{ord(char):02X}"
            char = "%" + (code if draw(st.booleans()) else code.lower())
        out.append(char)
    return "".join(out)


@given(pairs=st.lists(st.tuples(st.sampled_from(SAFE_NAMES), SAFE_VALUE), max_size=6),
       name=secret_name(), value=st.text(alphabet=string.ascii_letters + string.digits,
                                         min_size=6, max_size=24),
       where=st.integers(min_value=0))
@hsettings(max_examples=400, deadline=None)
def test_a_secret_pair_never_survives_and_the_rest_is_untouched(pairs, name, value, where):
    secret = f"zQ{value}"
    assume(all(secret not in f"{n}={v}" for n, v in pairs))
    assume(all("eyJ" not in v for _, v in pairs))
    segments = [f"{n}={v}" for n, v in pairs]
    at = where % (len(segments) + 1)
    segments.insert(at, f"{name}={secret}")
    logged = redact_query("&".join(segments))
    assert secret not in logged
    expected = list(segments)
    expected[at] = f"{name}={REDACTED}"
    assert logged.split("&") == expected


def test_the_cheap_scan_lets_a_typical_query_through_untouched():
    query = "symbols=AAPL,MSFT&range=1mo&interval=1d"
    assert redact_query(query) is query


# -- redact_text -----------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "logged"), [
    ('http://h:80 "GET /fred/series/observations?series_id=DGS10&api_key=S1&file_type=json '
     'HTTP/1.1" 200 None',
     f'http://h:80 "GET /fred/series/observations?series_id=DGS10&api_key={REDACTED}'
     '&file_type=json HTTP/1.1" 200 None'),
    ("Incremented Retry for (url='/v7/finance/quote?symbols=AAPL&crumb=S2'): Retry(total=2)",
     f"Incremented Retry for (url='/v7/finance/quote?symbols=AAPL&crumb={REDACTED}'): "
     "Retry(total=2)"),
    ("Max retries exceeded with url: /stable/x?symbol=AAPL&apikey=S3 (Caused by X)",
     f"Max retries exceeded with url: /stable/x?symbol=AAPL&apikey={REDACTED} (Caused by X)"),
    ("Redirecting https://a.test/x?token=S4 -> https://b.test/y?sig=S5",
     f"Redirecting https://a.test/x?token={REDACTED} -> https://b.test/y?sig={REDACTED}"),
    ("redis://:S6@localhost:6379/0", f"redis://:{REDACTED}@localhost:6379/0"),
    (f"Authorization: Bearer {JWT}", f"Authorization: Bearer {REDACTED}"),
    ("is it? yes. mail me@example.com", "is it? yes. mail me@example.com"),
    # outside a URL's query: pairs, a fragment, a dict's repr
    ("calling with series_id=X&api_key=S7&file_type=json",
     f"calling with series_id=X&api_key={REDACTED}&file_type=json"),
    ("Retry(total=2, connect=None, token=S8)", f"Retry(total=2, connect=None, token={REDACTED})"),
    ("https://x.test/cb#access_token=S9&state=2",
     f"https://x.test/cb#access_token={REDACTED}&state=2"),
    ("headers {'x-api-key': 'S10', 'Accept': '*/*', 'Authorization': 'Bearer S11'}",
     f"headers {{'x-api-key': '{REDACTED}', 'Accept': '*/*', 'Authorization': '{REDACTED}'}}"),
    ('{"Cookie": "A3=S12", "a": "b"}', f'{{"Cookie": "{REDACTED}", "a": "b"}}'),
    ("x == y, a=b c=d", "x == y, a=b c=d"),
])
def test_redact_text(text, logged):
    assert redact_text(text) == logged


# -- structured fields and records ----------------------------------------------------------
def _formatter(fmt: str = "json") -> logging.Formatter:
    config = dict(build_logging_config("DEBUG", fmt)["formatters"]["structured"])
    return config.pop("()")(**config)


@contextmanager
def _captured(logger_name: str, fmt: str = "json") -> Iterator[io.StringIO]:
    """``logger_name`` at DEBUG into a stream, through the configured formatter and filter."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(_formatter(fmt))
    handler.addFilter(RedactSecrets())
    logger = logging.getLogger(logger_name)
    old_level, old_propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        yield stream
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate


def test_structured_fields_are_redacted_by_name_and_by_content():
    log = structlog.stdlib.get_logger("tests.logs.fields")
    with _captured("tests.logs.fields") as stream:
        log.info("upstream call", api_key="S01", fred_api_key="S02", session_id="S03",
                 passphrase="S04", jwt="S05", signature="S06", crumb="S07", token="S08",
                 cache_key="quote:AAPL", provider="fred",
                 url="https://api.stlouisfed.org/fred/series?series_id=X&api_key=S09",
                 path="/v7/finance/quote?symbols=AAPL&crumb=S10",
                 params="series_id=X&api_key=S11&file_type=json",
                 query={"series_id": "X", "api_key": "S12", "nested": {"token": "S13"}},
                 pairs=[("symbols", "AAPL"), ("apikey", "S14")],
                 error="HTTPSConnectionPool: Max retries exceeded with url: /x?apikey=S15 (x)",
                 bearer_header=f"Bearer {JWT}", count=3, ratio=0.5, flag=True, nothing=None)
    line = json.loads(stream.getvalue())
    for n in range(1, 16):
        assert f"S{n:02d}" not in stream.getvalue(), n
    assert JWT not in stream.getvalue()
    assert line["api_key"] == line["session_id"] == line["crumb"] == REDACTED_FIELD
    assert line["cache_key"] == "quote:AAPL" and line["provider"] == "fred"
    assert line["params"] == f"series_id=X&api_key={REDACTED}&file_type=json"
    assert line["path"] == f"/v7/finance/quote?symbols=AAPL&crumb={REDACTED}"
    assert line["query"] == {"series_id": "X", "api_key": REDACTED_FIELD,
                             "nested": {"token": REDACTED_FIELD}}
    assert line["pairs"] == [["symbols", "AAPL"], ["apikey", REDACTED]]
    assert (line["count"], line["ratio"], line["flag"], line["nothing"]) == (3, 0.5, True, None)


def test_emitted_access_lines_redact_their_text_and_secret_fields():
    logger = logging.getLogger("tests.logs.emit")
    with _captured("tests.logs.emit", "text") as stream:
        emit(logger, logging.INFO, "API response sent - GET /v1/x?apikey=S1 (404)",
             {"correlation_id": "c1", "path": "/v1/x?token=S2", "x-api-key": "S3",
              "status_code": 404}, __file__)
    text = stream.getvalue()
    assert "S1" not in text and "S2" not in text and "S3" not in text
    assert f"/v1/x?apikey={REDACTED}" in text and "status_code=404" in text


def _record(msg: Any, args: Any = (), exc_info: Any = None,
            name: str = "urllib3.connectionpool") -> logging.LogRecord:
    return logging.LogRecord(name, logging.DEBUG, __file__, 1, msg, args, exc_info)


def test_records_with_arguments_of_any_type_still_format():
    record = _record('%s://%s:%s "%s %s %s" %s %s',
                     ("https", "query1.finance.yahoo.com", 443, "GET",
                      "/v7/finance/quote?symbols=AAPL&crumb=S1", "HTTP/1.1", 200, None))
    redact_record(record)
    assert record.getMessage() == (
        'https://query1.finance.yahoo.com:443 "GET /v7/finance/quote?symbols=AAPL'
        f'&crumb={REDACTED} HTTP/1.1" 200 None')
    clean = _record("%d items, %.1f%%, %r", (3, 12.5, {"a": 1}))
    redact_record(clean)
    assert clean.args == (3, 12.5, {"a": 1})  # nothing to hide: left as it was
    assert clean.getMessage() == "3 items, 12.5%, {'a': 1}"
    mapping = _record("%(url)s took %(ms)d ms", ({"url": "/x?token=S2", "ms": 7},))
    redact_record(mapping)
    assert mapping.getMessage() == f"/x?token={REDACTED} took 7 ms"
    percent = _record("100%% of /x?apikey=%s", ("S3",))
    redact_record(percent)
    assert percent.getMessage() == f"100% of /x?apikey={REDACTED}"
    bad = _record("%s and %s", ("only one",))
    redact_record(bad)  # a broken format string is logging's to report, not ours
    with pytest.raises(TypeError):
        bad.getMessage()
    not_a_string = _record(ValueError("bad url /x?apikey=S4"))
    redact_record(not_a_string)
    assert not_a_string.getMessage() == f"bad url /x?apikey={REDACTED}"


def test_tracebacks_are_redacted_for_any_formatter():
    try:
        raise requests.ConnectionError("Max retries exceeded with url: /x?api_key=S1")
    except requests.ConnectionError:
        import sys

        record = _record("fetch failed", exc_info=sys.exc_info(), name="tests.logs.exc")
    redact_record(record)
    plain = logging.Formatter().format(record)
    assert "S1" not in plain and f"/x?api_key={REDACTED}" in plain
    ours = _formatter().format(_record("fetch failed", exc_info=record.exc_info,
                                       name="tests.logs.exc"))
    assert "S1" not in ours and f"/x?api_key={REDACTED}" in json.loads(ours)["exception"]


def test_configuring_twice_attaches_one_filter():
    config_a = build_logging_config("DEBUG", "json")
    config_b = build_logging_config("DEBUG", "json")
    factory_a = config_a["filters"]["redact_secrets"]["()"]
    factory_b = config_b["filters"]["redact_secrets"]["()"]
    assert factory_a() is factory_b()
    assert config_a["handlers"]["stdout"]["filters"] == ["redact_secrets"]
    for name in ("urllib3", "urllib3.connectionpool", "urllib3.util.retry", "requests"):
        assert "redact_secrets" in config_a["loggers"][name]["filters"]


# -- end to end: real requests at LOG_LEVEL=DEBUG ----------------------------------------------
CANARIES = {"apikey": "cnryApikey81f2", "api_key": "cnryApiKey3c9d", "crumb": "cnryCrumb77ab",
            "token": "cnryToken0e4f", "session": "cnrySession5b1c", "jwt": JWT}


class _Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        status = 503 if self.path.startswith("/flaky") else 200
        body = b'{"ok": true}'
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:  # the server's own stderr line is not ours
        pass


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Upstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@contextmanager
def _logging_configured(config: dict[str, Any]) -> Iterator[None]:
    """Apply ``config`` with dictConfig, then put every logger back as it was."""
    manager = logging.root.manager
    loggers = [logging.root, *(obj for obj in list(manager.loggerDict.values())
                               if isinstance(obj, logging.Logger))]
    saved = [(lg, lg.level, list(lg.handlers), list(lg.filters), lg.propagate, lg.disabled)
             for lg in loggers]
    logging.config.dictConfig(config)
    try:
        yield
    finally:
        for lg, level, handlers, filters, propagate, disabled in saved:
            lg.setLevel(level)
            lg.handlers[:] = handlers
            lg.filters[:] = filters
            lg.propagate, lg.disabled = propagate, disabled


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_debug_logging_of_real_requests_keeps_every_canary_out(upstream, fmt):
    config = build_logging_config("DEBUG", fmt)
    stream = io.StringIO()
    config["handlers"]["stdout"]["stream"] = stream
    query = "&".join(f"{name}={value}" for name, value in CANARIES.items())
    with _logging_configured(config):
        # Another handler, without the filter (as pytest's or a mail handler would be).
        other: list[logging.LogRecord] = []
        bare = logging.Handler()
        bare.emit = other.append  # type: ignore[method-assign]
        logging.getLogger().addHandler(bare)
        # A plain call: urllib3.connectionpool's DEBUG line with the request target.
        answer = requests.get(f"{upstream}/data?symbols=AAPL&{query}", timeout=5)
        assert answer.status_code == 200
        # Retries: urllib3.util.retry's and connectionpool's lines, then a RetryError.
        with requests.Session() as session:
            session.mount("http://", HTTPAdapter(max_retries=Retry(
                total=2, status_forcelist=[503], backoff_factor=0, allowed_methods=None)))
            with pytest.raises(requests.exceptions.RetryError) as retry_error:
                session.get(f"{upstream}/flaky?{query}", timeout=5)
        # An unreachable host: the exception text carries the URL.
        with pytest.raises(requests.ConnectionError) as refused:
            requests.get(f"http://127.0.0.1:{_closed_port()}/gone?{query}", timeout=5)
        ours = logging.getLogger("tests.logs.e2e")
        ours.error("call failed: %s", retry_error.value)
        ours.exception("call failed", exc_info=refused.value)
        structlog.stdlib.get_logger("tests.logs.e2e").warning(
            "upstream failed", error=str(refused.value),
            url=f"{upstream}/data?{query}", params=query)
    text = stream.getvalue()
    lines = text.splitlines()
    assert lines
    for line in lines:
        for canary in CANARIES.values():
            assert canary not in line, (canary, line)
    target = f"/data?symbols=AAPL&apikey={REDACTED}&api_key={REDACTED}&crumb={REDACTED}"
    if fmt == "json":
        records = [json.loads(line) for line in lines if line.startswith("{")]
        pool = [r for r in records if r["logger"] == "urllib3.connectionpool"
                and r["level"] == "DEBUG" and '"GET /data?' in r["message"]]
        assert pool and target in pool[0]["message"]
        assert any(r["logger"] == "urllib3.util.retry" and "Incremented Retry" in r["message"]
                   for r in records)
    else:
        assert any(" - urllib3.connectionpool - DEBUG - " in line and target in line
                   for line in lines)
        assert any(" - urllib3.util.retry - DEBUG - " in line for line in lines)
    assert "Max retries exceeded" in text and "Traceback" in text
    # The filter sits on urllib3's loggers too: other handlers get clean records as well.
    captured = [r.getMessage() for r in other if r.name.startswith("urllib3")]
    assert any('"GET /data?' in message for message in captured)
    for message in captured:
        for canary in CANARIES.values():
            assert canary not in message


# -- stdout: the buffered handler and the access line without a record ---------------------------
def _stdout_handler(stream, fmt: str = "json"):
    from marketdata.logs import BufferedStreamHandler, redacting_filter

    handler = BufferedStreamHandler(stream)
    handler.setFormatter(_formatter(fmt))
    handler.addFilter(redacting_filter())
    return handler


@pytest.mark.parametrize("fmt", ["json", "text"])
@pytest.mark.parametrize(("status", "threshold_ms"), [(200, 2000), (429, 2000), (200, 0),
                                                      (503, 2000)])
def test_the_access_line_is_the_same_bytes_without_a_record(fmt, status, threshold_ms):
    """With the production handler alone, AccessLog renders its lines without a LogRecord;
    the bytes are those of the record's path (which any other handler brings back)."""
    import re

    from marketdata.logs import ACCESS_LOGGER, AccessLog, direct_handler

    direct, recorded = io.StringIO(), io.StringIO()
    handler = _stdout_handler(direct, fmt)
    logger = logging.Logger(ACCESS_LOGGER, logging.INFO)  # outside the hierarchy: no
    logger.addHandler(handler)  # pytest handler
    access = AccessLog("/srv/apps/core/fastpath.py", threshold_ms)
    access.logger = logger
    arguments = ("GET", "/v1/simple-quotes", status, 1.234, "cid-direct",
                 "symbols=AAPL&apikey=s3cr3t", "simple-quotes", {"graphql_cost": 3})
    assert direct_handler(logger) is handler
    access(*arguments)
    other = logging.StreamHandler(recorded)
    other.setFormatter(_formatter(fmt))
    logger.addHandler(other)
    assert direct_handler(logger) is None, "another handler: the record's path"
    access(*arguments)
    handler.flush()
    first, second = direct.getvalue(), recorded.getvalue()
    assert second and direct.getvalue().endswith(second), "both handlers had the record"
    first = first[:len(first) - len(second)]
    assert "s3cr3t" not in first and "cid-direct" in first
    assert fmt == "text" or '"module":"fastpath"' in first

    def timeless(text):
        return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "T", text)

    assert timeless(first) == timeless(second)
    assert len(first.splitlines()) == (2 if threshold_ms == 0 else 1)


@pytest.mark.parametrize("fmt", ["json", "text"])
@pytest.mark.parametrize("status", [200, 304, 429, 503])
def test_a_templated_access_line_is_the_same_bytes_as_the_record(fmt, status):
    """The lines of one (method, path, status, query, route) come from a template after the
    first: each is the record path's line for the same arguments, byte for byte (time
    aside), secrets redacted; an id that would need escaping, a duration whose digits str()
    and JSON could write apart, or a slow request is rendered in full, the same."""
    import re

    from marketdata.logs import ACCESS_LOGGER, AccessLog

    def lines(calls, record: bool) -> list[str]:
        out = io.StringIO()
        logger = logging.Logger(ACCESS_LOGGER, logging.INFO)
        logger.addHandler(_stdout_handler(out, fmt) if not record else
                          logging.StreamHandler(out))
        if record:
            logger.handlers[0].setFormatter(_formatter(fmt))
            logger.addHandler(logging.StreamHandler(io.StringIO()))  # the record's path
        access = AccessLog("/srv/apps/core/fastpath.py", 2000)
        access.logger = logger
        for call in calls:
            access(*call)
        for handler in logger.handlers:
            handler.flush()
        made.append(list(access._templates.values()))
        return [re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "T", line)
                for line in out.getvalue().splitlines()]

    made: list[list] = []
    query = "symbols=AAPL&apikey=s3cr3t"
    calls = [("GET", "/v1/simple-quotes", status, ms, cid, query, "simple-quotes")
             for ms, cid in ((1.234, "cid-one"), (0.012, "0123456789abcdef"),
                             (987.5, "a.b_c-d"), (1e-05, "cid-tiny"), (3.0, "has space"),
                             (1.5, None), (2500.25, "cid-slow"))]
    templated, recorded = lines(calls, False), lines(calls, True)
    assert templated == recorded
    assert len(templated) == len(calls) + 1  # the slow one: a WARNING line too
    assert all("s3cr3t" not in line for line in templated)
    assert len(made[0]) == 1 and made[0][0] is not None, "the template served"
    assert made[1] == [], "the record's path made none"


def test_the_direct_path_needs_the_production_handler_alone():
    from marketdata.logs import direct_handler

    handler = _stdout_handler(io.StringIO())
    logger = logging.Logger("tests.direct")
    logger.addHandler(handler)
    assert direct_handler(logger) is handler
    logger.addFilter(lambda record: True)
    assert direct_handler(logger) is None, "a filter on the logger sees every record"
    logger.filters.clear()
    handler.addFilter(lambda record: True)
    assert direct_handler(logger) is None, "a filter of the handler's own"
    plain = logging.Logger("tests.plain")
    plain.addHandler(logging.StreamHandler(io.StringIO()))
    assert direct_handler(plain) is None


class _SlowStream(io.StringIO):
    """A stream whose writes wait until ``opened`` is set (a pipe nobody reads)."""

    def __init__(self) -> None:
        super().__init__()
        self.opened = threading.Event()

    def write(self, text: str) -> int:
        self.opened.wait(10)
        return super().write(text)


def test_lines_of_the_loop_never_wait_for_a_slow_stream():
    """On the deferred thread (a worker's event loop) a line is queued, never written
    there: a stream that takes nothing does not stop it. Lines of other threads are
    written after the ones queued before them, and flush() (at exit) writes every line."""
    import time

    stream = _SlowStream()
    handler = _stdout_handler(stream)
    logger = logging.Logger("tests.deferred")
    logger.addHandler(handler)
    handler.defer_from_current_thread()
    started = time.monotonic()
    for number in range(200):
        logger.info("loop line %d", number)
    assert time.monotonic() - started < 1.0, "the loop's thread never waited"
    other = threading.Thread(target=logger.info, args=("thread line",))
    other.start()
    time.sleep(0.1)
    assert other.is_alive(), "another thread writes itself, and waits for the stream"
    stream.opened.set()
    other.join(5)
    logger.info("last loop line")
    handler.flush()
    messages = [json.loads(line)["message"] for line in stream.getvalue().splitlines()]
    assert messages == [f"loop line {n}" for n in range(200)] + ["thread line",
                                                                 "last loop line"]
    handler.close()


def test_a_stream_that_takes_nothing_costs_lines_not_the_loop(monkeypatch):
    from marketdata.logs import BufferedStreamHandler

    monkeypatch.setattr(BufferedStreamHandler, "MAX_QUEUED_CHARS", 2000)
    stream = _SlowStream()
    handler = _stdout_handler(stream)
    logger = logging.Logger("tests.overflow")
    logger.addHandler(handler)
    handler.defer_from_current_thread()
    for number in range(100):
        logger.info("line %d", number)
    stream.opened.set()
    handler.flush()
    logger.propagate = False
    reported = io.StringIO()
    report = logging.StreamHandler(reported)
    logging.getLogger("marketdata.logs").addHandler(report)
    try:
        logger.info("after")  # from another thread's point of view: written, and reported
        threading.Thread(target=logger.info, args=("from a thread",)).start()
        deadline = threading.Event()
        deadline.wait(0.5)
    finally:
        logging.getLogger("marketdata.logs").removeHandler(report)
    written = [json.loads(line)["message"] for line in stream.getvalue().splitlines()]
    assert written[0] == "line 0" and 5 < written.index("from a thread") < 100
    assert "log lines dropped" in reported.getvalue()
    handler.close()


def test_the_loop_writes_its_lines_to_a_file_in_one_write(tmp_path):
    """On a worker's loop, with stdout a regular file: the lines of the next 10 ms are
    written by the loop in one write (no thread, no write per line)."""
    import asyncio

    path = tmp_path / "stdout.log"
    with open(path, "w") as stream:
        writes = []
        write = stream.write

        def counted(text):
            writes.append(len(text))
            return write(text)

        stream.write = counted
        handler = _stdout_handler(stream)
        logger = logging.Logger("tests.loop-file")
        logger.addHandler(handler)

        async def main():
            handler.defer_from_current_thread()
            for number in range(100):
                logger.info("line %d", number)
            assert writes == [], "queued"
            await asyncio.sleep(0.1)

        asyncio.run(main())
        assert handler._writer is None, "the loop wrote itself"
        assert len(writes) == 1
        handler.close()
    messages = [json.loads(line)["message"] for line in path.read_text().splitlines()]
    assert messages == [f"line {n}" for n in range(100)]


def test_a_pipe_nobody_reads_never_stops_the_loop():
    """On a worker's loop, with stdout a pipe: a writer thread writes, and a reader that
    takes nothing costs the loop nothing; every line arrives once it reads."""
    import asyncio
    import os
    import time

    read_end, write_end = os.pipe()
    stream = os.fdopen(write_end, "w")
    handler = _stdout_handler(stream)
    logger = logging.Logger("tests.loop-pipe")
    logger.addHandler(handler)
    padding = "x" * 200

    async def main() -> float:
        handler.defer_from_current_thread()
        started = time.monotonic()
        for number in range(2000):  # ~600 KB: ten times what the pipe holds
            logger.info("line %d %s", number, padding)
            if number % 100 == 0:
                await asyncio.sleep(0.001)
        spent = time.monotonic() - started
        await asyncio.sleep(0.1)
        return spent

    spent = asyncio.run(main())
    assert spent < 2.0, spent
    assert handler._writer is not None and handler._writer.is_alive()
    chunks = []

    def drain():
        with os.fdopen(read_end, "rb") as pipe:
            while chunk := pipe.read(1 << 16):
                chunks.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    handler.close()
    stream.close()
    reader.join(10)
    lines = b"".join(chunks).decode().splitlines()
    assert [json.loads(line)["message"].split()[1] for line in lines] == \
        [str(n) for n in range(2000)]
