"""Structured logging: one configuration for our loggers and for Django's and gunicorn's.

JSON records carry the v1 spec's keys (asctime, level, logger, module, correlation_id,
message) with every extra key flattened to the top level; the text format is the
reference's ``time - logger - LEVEL - [correlation_id] - message``. The correlation id
lives in structlog's context variables, so every line logged while serving a request
carries it, including lines from worker threads that copied the context.

The access log (one line per request, :class:`AccessLog`) is the one line every request
pays for, so it skips structlog's processor chain: it hands the formatter a record that
carries its finished event (:func:`emit`), and :class:`StructuredFormatter` renders that
straight to JSON with orjson (same keys, same order), without copying the record.

No line carries a secret, at any level and from any logger (urllib3's request lines
included): see "secrets" below.
"""

from __future__ import annotations

import contextlib
import logging
import logging.config
import os
import re
import stat
import threading
import time
import weakref
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote_plus

import orjson
import structlog

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
SYSTEM_CORRELATION_ID = "system"


def _add_standard_keys(_logger: Any, method_name: str, event: dict[str, Any]) -> dict[str, Any]:
    record: logging.LogRecord | None = event.pop("_record", None)
    event.pop("_from_structlog", None)
    event.setdefault("correlation_id", SYSTEM_CORRELATION_ID)
    if record is not None:
        created = record.created
        event["level"] = record.levelname
        event["logger"] = record.name
        event["module"] = record.module
    else:
        created = time.time()
        event["level"] = method_name.upper()
    event["asctime"] = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(created))
    event["message"] = event.pop("event", "")
    return event


_HEAD = ("asctime", "level", "logger", "module", "correlation_id", "message")


def _render_json(_logger: Any, _name: str, event: dict[str, Any]) -> str:
    ordered = {k: event.pop(k) for k in _HEAD if k in event}
    ordered.update(event)
    return orjson.dumps(ordered, default=str).decode()


_asctime_cache: tuple[int, str] = (-1, "")


def _asctime(created: float) -> str:
    """``created`` as the ``asctime`` key (local time, whole seconds; one strftime a second)."""
    global _asctime_cache
    second = int(created)
    cached = _asctime_cache
    if cached[0] != second:
        cached = (second, time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(created)))
        _asctime_cache = cached
    return cached[1]


def _render_text(_logger: Any, _name: str, event: dict[str, Any]) -> str:
    head = (f"{event.pop('asctime')} - {event.pop('logger', '-')} - {event.pop('level')} - "
            f"[{event.pop('correlation_id')}] - {event.pop('message')}")
    event.pop("module", None)
    exc = event.pop("exception", None)
    extras = " ".join(f"{k}={v}" for k, v in event.items())
    line = f"{head} {extras}" if extras else head
    return f"{line}\n{exc}" if exc else line


# -- secrets ------------------------------------------------------------------------------------
# No log line carries a secret: not a provider key or Yahoo crumb in an upstream URL (urllib3
# logs every request target at DEBUG, retries and broken connections at WARNING), not a
# client's key, session, password or JWT in its own query string, not a password in a URL's
# userinfo. One function decides what a query hides (redact_query); every path to a line
# goes through it:
# - the access log's ``params`` (AccessLog);
# - the text of every record, library records included (RedactSecrets: a filter on the
#   handler and on the loggers of the HTTP libraries, so other handlers get clean records
#   too): every URL or request target in the message, the traceback and the stack, and
#   any other secret-named name=value pair or 'name': 'value' item in them (redact_text);
# - every value of every event our formatter renders (_redact_fields, after the traceback is
#   rendered): fields named like a secret are dropped whole, fields named like a query
#   (``params``, ``query``...) are redacted as one, any other text as above.

REDACTED = "REDACTED"  # a query parameter's value
REDACTED_FIELD = "[redacted]"  # a structured field's value

# Structured fields (``log.info(..., api_key=...)``) never logged, by exact name or by one of
# the suffixes of _SECRET_FIELD. Narrower than query names: ``cache_key`` is a field we log.
_SECRET_KEYS = frozenset({
    "crumb", "x-api-key", "api_key", "api-key", "apikey", "token", "password", "passwd",
    "pwd", "pass", "passphrase", "secret", "client_secret", "authorization",
    "proxy-authorization", "cookie", "cookies", "set-cookie", "session", "sessionid",
    "session_id", "sid", "jwt", "id_token", "access_token", "refresh_token", "bearer",
    "signature", "sig", "hmac", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
    "x-goog-signature", "x-goog-credential", "credential", "credentials", "private_key",
    "auth", "x-auth-token", "secret_key"})
_SECRET_FIELD = re.compile(
    r"(?:api[_-]?key|token|secret|password|passwd|passphrase|signature|credentials?"
    r"|session[_-]?id|sessid|private[_-]?key|secret[_-]?key|jwt|cookies?)$", re.ASCII)

# Query parameters whose values are credentials, matched on the name fully percent-decoded,
# lower-cased, without array subscripts (``apikey[]``, ``api_key[0]``, ``auth[token]``: the
# base or any subscript): a name ending in key (apikey, x-api-key, private_key, key),
# token, secret, password, signature (sig, X-Amz-Signature), credential, auth, jwt, crumb,
# session id (sessid, JSESSIONID), ...; or session, sid, pass alone or after a separator
# (db_pass, connect.sid; not "recession" or "bypass").
_SECRET_NAME = re.compile(
    r"(?:.*(?:key|token|secret|password|passwd|passphrase|passcode|pwd|sessid|session[_. -]?id"
    r"|signature|sig|credentials?|auth|authorization|jwt|bearer|hmac|crumb|cookies?)"
    r"|(?:.*[_. -])?(?:session|sid|pass))", re.ASCII | re.DOTALL)
# English words ending in "key" that name no key (the rule above would hide their values).
_NOT_SECRET_NAMES = frozenset({"monkey", "donkey", "turkey", "hockey", "jockey", "whiskey",
                               "lackey", "hotkey", "turnkey"})
_SUBPAIR_START = re.compile(r"[;?]")
_SUBSCRIPT = re.compile(r"\[([^\]]*)\]")
# A JSON Web Token: three base64url segments, the first a JSON object ({" -> eyJ).
_JWT = re.compile(r"eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")
# A query in free text (a URL, a request target): from "?" to the next blank or quote.
_TEXT_QUERY = re.compile(r"\?([^\s\"'<>`]+)")
# The password of a URL's userinfo (redis://:pw@host, https://user:pw@proxy).
_USERINFO = re.compile(r"(?<=://)([^/\s:@?#]*):[^/\s@?#]*@")
# A name=value pair in free text outside a URL's query (an encoded query, "token=..." in an
# error, a fragment's #access_token=...); the value stops at a blank, a separator, a quote or
# a closing bracket.
_TEXT_PAIR = re.compile(r"([A-Za-z0-9_.%+\[\]-]+)=([^\s&;\"'<>,)\]}]*)")
# A 'name': 'value' item of a dict's repr ({'x-api-key': '...'} in a message).
_REPR_ITEM = re.compile(r"""(['"])([^'"\s]{1,64})\1:\s*(['"])(.*?)\3""")


def _is_secret_name(raw: str) -> bool:
    """Whether a query parameter named ``raw`` (as sent) carries a credential."""
    name = raw
    for _ in range(4):  # percent-decoded fully: %2561pikey -> %61pikey -> apikey
        if "%" not in name and "+" not in name:
            break
        decoded = unquote_plus(name)
        if decoded == name:
            break
        name = decoded
    name = name.strip(" \t\r\n\x00\x0b\x0c").lower()
    parts = [name]
    if "[" in name:
        parts = [name.partition("[")[0].rstrip(), *_SUBSCRIPT.findall(name)]
    return any(part not in _NOT_SECRET_NAMES and _SECRET_NAME.fullmatch(part) is not None
               for part in parts)


# The verdicts on the names seen so far (a dict lookup is the whole cost of a known name).
_name_verdicts: dict[str, bool] = {}


def _secret_name(name: str) -> bool:
    verdict = _name_verdicts.get(name)
    if verdict is None:
        verdict = _is_secret_name(name)
        if len(_name_verdicts) < 4096:
            _name_verdicts[name] = verdict
    return verdict


def _maybe_secret(query: str) -> bool:
    """The cheap scan every access line pays: False when ``query`` has nothing to hide.

    It asks the very question the redaction asks (is a name secret, a cached dict lookup
    per name), so it cannot miss what the redaction would hide; only a JWT, a ``;`` or
    ``?`` (pairs inside a value) or an encoded ``=`` (a nested query) sends a query down
    the slow path without a secret name.
    """
    if "?" in query or ";" in query or "eyJ" in query or "%3D" in query or "%3d" in query:
        return True
    verdicts = _name_verdicts
    for segment in query.split("&"):
        name = segment.partition("=")[0]
        verdict = verdicts.get(name)
        if verdict is None:
            verdict = _secret_name(name)
        if verdict:
            return True
    return False


def _hides_secret(value: str, depth: int) -> bool:
    """Whether a percent-encoded value holds a query naming a secret (a nested URL)."""
    decoded = unquote_plus(value)
    return decoded != value and _redact_query(decoded, depth + 1) != decoded


def _redact_segment(segment: str, depth: int) -> str:
    """One ``&``-separated pair, its value REDACTED when its name is a secret's.

    A pair may hold more pairs: after ``;`` (the old separator some servers still split on)
    and after a nested URL's ``?``; the first secret one hides the rest of the segment. A
    percent-encoded value holding a query with a secret (``next=https%3A...%3Fapikey%3D``)
    is hidden whole.
    """
    if ";" not in segment and "?" not in segment and "%3" not in segment:
        name, sep, _ = segment.partition("=")
        return f"{name}={REDACTED}" if sep and _secret_name(name) else segment
    start = 0
    while True:
        eq = segment.find("=", start)
        if eq < 0:
            return segment
        cut = max(segment.rfind(";", start, eq), segment.rfind("?", start, eq))
        if cut >= 0:
            start = cut + 1
        if _secret_name(segment[start:eq]):
            return f"{segment[:eq + 1]}{REDACTED}"
        following = _SUBPAIR_START.search(segment, eq + 1)
        end = following.start() if following else len(segment)
        value = segment[eq + 1:end]
        if depth < 4 and ("%3d" in value or "%3D" in value) and _hides_secret(value, depth):
            return f"{segment[:eq + 1]}{REDACTED}{segment[end:]}"
        if following is None:
            return segment
        start = end + 1


def _redact_query(query: str, depth: int) -> str:
    if not query or not _maybe_secret(query):
        return query
    redacted = "&".join([_redact_segment(segment, depth) for segment in query.split("&")])
    if "eyJ" in redacted:
        redacted = _JWT.sub(REDACTED, redacted)
    return redacted


def redact_query(query: str) -> str:
    """``query`` (a URL's query string, without ``?``) with the value of every parameter
    that carries a credential replaced by ``REDACTED``, names and everything else kept byte
    for byte.

    Secret names are matched on the name as a server reads it: percent-decoded fully,
    ``+`` as a blank, any case, array subscripts aside (``%61pikey``, ``API%2Dkey``,
    ``apikey[]``, ``token[x]``); see _SECRET_NAME. A value that is a JWT is hidden whatever
    its name, and so is a percent-encoded value holding a nested query with a secret. A
    cheap scan comes first (_maybe_secret): most queries name no secret and are returned
    as they are.
    """
    return _redact_query(query, 0)


def _redact_text_query(match: re.Match[str]) -> str:
    return f"?{redact_query(match.group(1))}"


def _redact_text_pair(match: re.Match[str]) -> str:
    name = match.group(1)
    return f"{name}={REDACTED}" if match.group(2) and _secret_name(name) else match.group(0)


def _redact_repr_item(match: re.Match[str]) -> str:
    name = match.group(2)
    if not (_is_secret_field(name) or _secret_name(name)):
        return match.group(0)
    quote = match.group(3)
    return f"{match.group(1)}{name}{match.group(1)}: {quote}{REDACTED}{quote}"


def redact_text(text: str) -> str:
    """``text`` (a message, a traceback, a URL) with every query in it redacted by
    :func:`redact_query`, every other secret-named ``name=value`` pair and ``'name': 'value'``
    item (a dict's repr), every JWT and every URL's password replaced by ``REDACTED``."""
    if "?" not in text and "=" not in text and "eyJ" not in text and "@" not in text \
            and "': " not in text and '": ' not in text:
        return text
    if "?" in text:
        text = _TEXT_QUERY.sub(_redact_text_query, text)
    if "=" in text:
        text = _TEXT_PAIR.sub(_redact_text_pair, text)
    if "': " in text or '": ' in text:
        text = _REPR_ITEM.sub(_redact_repr_item, text)
    if "eyJ" in text:
        text = _JWT.sub(REDACTED, text)
    if "@" in text and "://" in text:
        text = _USERINFO.sub(rf"\1:{REDACTED}@", text)
    return text


_secret_fields: dict[str, bool] = {}


def _is_secret_field(key: str) -> bool:
    """Whether a structured field named ``key`` holds a secret (cached per name)."""
    secret = _secret_fields.get(key)
    if secret is None:
        lowered = key.lower()
        secret = lowered in _SECRET_KEYS or _SECRET_FIELD.search(lowered) is not None
        if len(_secret_fields) < 4096:
            _secret_fields[key] = secret
    return secret


# Fields whose value is a query string without its "?" (``params=series_id=X&api_key=...``).
_QUERY_FIELDS = frozenset({"params", "query", "query_string", "querystring", "qs", "data",
                           "body", "form"})
_PLAIN = (int, float, bool, type(None))
_PLAIN_TYPES = frozenset(_PLAIN)
# Fields left to the processors that read them (the traceback is redacted once rendered).
_OPAQUE_FIELDS = frozenset({"exc_info", "_record", "_from_structlog", "positional_args"})


def _redact_value(key: str, value: Any, depth: int = 0) -> Any:
    """``value`` of field ``key`` without secrets: the same object when it has none."""
    if type(value) is str:
        if key in _QUERY_FIELDS and "?" not in value:
            return redact_text(redact_query(value))
        return redact_text(value)
    if isinstance(value, _PLAIN) or depth > 4 or key in _OPAQUE_FIELDS:
        return value
    if isinstance(value, Mapping):
        items = {k: (REDACTED_FIELD if isinstance(k, str)
                     and (_is_secret_field(k) or _secret_name(k))
                     else _redact_value(k if isinstance(k, str) else "", v, depth + 1))
                 for k, v in value.items()}
        same = all(items[k] is v for k, v in value.items())
        return value if same else items
    if isinstance(value, list | tuple):
        if (len(value) == 2 and isinstance(value[0], str) and depth > 0
                and _secret_name(value[0])):  # a (name, value) pair of a params list
            return (value[0], REDACTED) if isinstance(value, tuple) else [value[0], REDACTED]
        elements = [_redact_value(key, v, depth + 1) for v in value]
        if all(a is b for a, b in zip(elements, value, strict=True)):
            return value
        return tuple(elements) if isinstance(value, tuple) else elements
    if isinstance(value, bytes | bytearray):
        text = bytes(value).decode("latin-1")
    else:
        try:
            text = str(value)
        except Exception:  # noqa: BLE001 - a broken __str__: the renderer will say so
            return value
    redacted = redact_text(text)
    return value if redacted == text else redacted


def _redact_fields(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` without secrets: the same dict when it had none, else a copy.

    Inlined checks: every line pays this for each of its fields.
    """
    copy: dict[str, Any] | None = None
    verdicts = _secret_fields
    for key, value in event.items():
        secret = verdicts.get(key)
        if secret is None:
            secret = isinstance(key, str) and _is_secret_field(key)
        if secret:
            new: Any = REDACTED_FIELD
        elif type(value) is str:
            if "?" not in value and "=" not in value and "eyJ" not in value \
                    and "@" not in value and "': " not in value and '": ' not in value:
                continue
            new = _redact_value(key, value)
        elif type(value) in _PLAIN_TYPES:
            continue
        else:
            new = _redact_value(key, value)
        if new is not value:
            if copy is None:
                copy = dict(event)
            copy[key] = new
    return event if copy is None else copy


def _redact_event(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
    """Processor: every field of the event (message and traceback included) redacted."""
    return _redact_fields(event)


_tracebacks = logging.Formatter()


def redact_record(record: logging.LogRecord) -> None:
    """Rewrite ``record`` in place so no handler can write a secret it carries.

    A message with arguments is formatted here (as any formatter would) and replaced by its
    redacted text when that differs, with no arguments left; arguments of any type format as
    before. A structlog event (a dict) is redacted field by field. A traceback is rendered
    (``exc_text``, which stdlib formatters reuse) only when it holds something to hide.
    """
    msg = record.msg
    if isinstance(msg, dict):
        record.msg = _redact_fields(msg)
    elif record.args:
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a bad format string: logging reports it as usual
            text = None
        if text is not None:
            redacted = redact_text(text)
            if redacted != text:
                record.msg, record.args = redacted, ()
    elif isinstance(msg, str):
        record.msg = redact_text(msg)
    elif msg is not None:
        text = str(msg)
        redacted = redact_text(text)
        if redacted != text:
            record.msg = redacted
    if record.exc_info and record.exc_info[0] is not None and not record.exc_text:
        text = _tracebacks.formatException(record.exc_info)
        redacted = redact_text(text)
        if redacted != text:
            record.exc_text = redacted
    if record.stack_info:
        record.stack_info = redact_text(record.stack_info)


class RedactSecrets(logging.Filter):
    """A filter that never drops a record, only its secrets (see :func:`redact_record`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


_redact_secrets = RedactSecrets()


def redacting_filter() -> RedactSecrets:
    """The one RedactSecrets instance (dictConfig's factory): configuring logging again
    never stacks a second copy on a logger."""
    return _redact_secrets


# Library loggers that print URLs: each gets the filter too, so records they log are clean
# for any handler (pytest's, a mail handler), not only ours.
URL_LOGGERS = ("urllib3", "urllib3.connectionpool", "urllib3.connection",
               "urllib3.poolmanager", "urllib3.response", "urllib3.util.retry", "requests",
               "django.server", "django.request")


# The record attribute that carries a finished event (see emit()).
EVENT_ATTR = "md_event"


class StructuredFormatter(structlog.stdlib.ProcessorFormatter):
    """structlog's ProcessorFormatter, plus a direct path for records made by :func:`emit`.

    Such a record carries its event (correlation id and fields); it is rendered here with
    the standard keys first, exactly as the processor chain would, without the chain and
    without ProcessorFormatter's copy of the record.
    """

    def __init__(self, *args: Any, text: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.text = text

    def format(self, record: logging.LogRecord) -> str:
        event = record.__dict__.get(EVENT_ATTR)
        if event is None:
            return super().format(record)
        return self.format_event(record.created, record.levelname, record.name,
                                 record.module, record.msg, event)

    def format_event(self, created: float, level: str, logger: str, module: str,
                     message: str, event: Mapping[str, Any]) -> str:
        """The line of an event: what :meth:`format` renders for a record made by
        :func:`emit` with these attributes (the access log renders its lines with this
        directly, without a record, when nothing else would see the record:
        :func:`direct_handler`)."""
        line = {"asctime": _asctime(created), "level": level, "logger": logger,
                "module": module,
                "correlation_id": event.get("correlation_id") or SYSTEM_CORRELATION_ID,
                "message": redact_text(message)}
        # The caller's fields: query-shaped ones come redacted by redact_query (AccessLog's
        # params), a field named like a secret is dropped, any other text redacted (cheap
        # when clean).
        secret_fields = _secret_fields
        for key, value in event.items():
            if key != "correlation_id":
                secret = secret_fields.get(key)
                if secret is None:
                    secret = _is_secret_field(key)
                if secret:
                    value = REDACTED_FIELD
                elif type(value) is str and key not in _QUERY_FIELDS:
                    value = redact_text(value)
                line[key] = value
        if self.text:
            return _render_text(None, "", line)
        return orjson.dumps(line, default=str).decode()


def emit(logger: logging.Logger, level: int, message: str, event: dict[str, Any],
         source: str) -> None:
    """Log ``message`` with ``event`` (``correlation_id`` and extra keys) at ``level``.

    The caller has checked the level. ``source`` is the emitting module's file (it names the
    ``module`` key). Handlers with another formatter still get ``message`` as the record's
    message. A query-shaped field (``params``) is passed already redacted by
    :func:`redact_query`; the formatter redacts the rest.
    """
    record = logger.makeRecord(logger.name, level, source, 0, message, (), None)
    record.__dict__[EVENT_ATTR] = event
    logger.handle(record)


# -- stdout -------------------------------------------------------------------------------------
class BufferedStreamHandler(logging.StreamHandler):
    """The handler of stdout: a ``StreamHandler`` that never makes the serving event loop
    wait for the stream, nor write once per line.

    A worker's event loop answers cache hits, and each writes an access line: written
    there, one ``write()`` and flush per line, a slow reader of stdout (a pipe to a log
    collector that falls behind, a terminal being scrolled) stopped every request of the
    process, and even a fast one cost a system call per hit. Once the worker calls
    :meth:`defer_from_current_thread` on the loop's thread, the lines logged on that
    thread are formatted there as before (same bytes, same order) and queued, and written
    ``FLUSH_SECONDS`` after the first of them, all in one write: by the loop itself when
    the stream is a regular file (a write to a file never waits for a reader), else by a
    writer thread, so that a pipe or a terminal that takes nothing never stops the loop.
    (The loop decides when: a thread waking on its own every few ms to write took the GIL
    from the loop each time, a forced switch that costs the loop a wait for that thread to
    be scheduled, tens of ms on a busy machine.) Lines from other threads (Django's, which
    answer misses) are written at once, after the ones queued before them, so the stream
    keeps the order lines were logged in and a line logged before an answer left a thread
    is in the stream before the answer is out.

    Nothing is lost at exit: ``logging.shutdown`` (atexit) calls :meth:`flush`, which
    writes what is queued. A stream that takes nothing for long would make the queue grow
    without end: past ``MAX_QUEUED_CHARS`` lines are dropped (and counted, and a WARNING
    says how many once the stream takes lines again) rather than stopping the loop.
    Until :meth:`defer_from_current_thread` (management commands, tests, ``runserver``)
    every line is written at once, as ``StreamHandler`` writes it.
    """

    FLUSH_SECONDS = 0.01
    MAX_QUEUED_CHARS = 16 * 1024 * 1024

    def __init__(self, stream: Any = None) -> None:
        super().__init__(stream)
        self._reset()
        _buffered_handlers.add(self)

    def _reset(self) -> None:
        self._queued: list[str] = []
        self._queued_chars = 0
        self._dropped = 0
        self._queue_lock = threading.Lock()  # held for an append or a swap, never a write
        self._write_lock = threading.Lock()  # held while writing, so writes keep order
        self._wake = threading.Event()
        self._deferred_thread: int | None = None
        self._loop: Any = None  # the deferred thread's event loop, when it has one
        self._flush_due = False
        self._writer: threading.Thread | None = None
        self._closed = False

    def defer_from_current_thread(self) -> None:
        """Queue the lines logged on this thread (the event loop's, when it runs one: then
        the loop schedules their writes) instead of writing each at once."""
        import asyncio

        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
        self._deferred_thread = threading.get_ident()
        self._ensure_writer()

    def _ensure_writer(self) -> None:
        """A writer thread, unless the loop writes itself (to a regular file)."""
        if (self._loop is None or not self._writes_to_file()) and \
                (self._writer is None or not self._writer.is_alive()):
            self._writer = threading.Thread(target=self._write_forever, name="log-writer",
                                            daemon=True)
            self._writer.start()

    def _writes_to_file(self) -> bool:
        """Whether the stream is a regular file (a write never waits for a reader)."""
        try:
            return stat.S_ISREG(os.fstat(self.stream.fileno()).st_mode)
        except (AttributeError, OSError, ValueError):  # no descriptor: a StringIO, closed
            return False

    def handle(self, record: logging.LogRecord) -> bool:
        # Without the handler's lock: a thread writing to a slow stream holds the write
        # lock only, and the loop never waits for it (emit_line).
        if self.filter(record):
            self.emit(record)
            return True
        return False

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record) + self.terminator
        except RecursionError:
            raise
        except Exception:  # noqa: BLE001 - as StreamHandler: report it, go on
            self.handleError(record)
            return
        self.emit_line(line)

    def emit_line(self, line: str) -> None:
        """Write ``line`` (formatted, with its terminator), or queue it on the deferred
        thread."""
        if threading.get_ident() == self._deferred_thread and not self._closed:
            with self._queue_lock:
                if self._queued_chars > self.MAX_QUEUED_CHARS:
                    self._dropped += 1
                    return
                self._queued.append(line)
                self._queued_chars += len(line)
                first = len(self._queued) == 1
            if first:
                self._schedule()
            return
        with self._write_lock:
            lines = self._take()
            lines.append(line)
            self._write(lines)
        self._report_dropped()

    def _schedule(self) -> None:
        """The first line queued since the last write: its write in ``FLUSH_SECONDS``."""
        loop = self._loop
        if loop is None:
            self._wake.set()  # the writer thread waits FLUSH_SECONDS itself
        elif loop.is_closed():  # the worker is past serving: at once
            self.flush()
        elif not self._flush_due:
            self._flush_due = True
            loop.call_later(self.FLUSH_SECONDS, self._flush_from_loop)

    def _flush_from_loop(self) -> None:
        self._flush_due = False
        if self._writer is None:  # a regular file: written here
            with self._write_lock:
                self._write(self._take())
            self._report_dropped()
        else:
            self._wake.set()

    def _take(self) -> list[str]:
        with self._queue_lock:
            lines, self._queued, self._queued_chars = self._queued, [], 0
        return lines

    def _write(self, lines: list[str]) -> None:
        """Write ``lines`` in one write and flush (the write lock held)."""
        if not lines:
            return
        try:
            self.stream.write("".join(lines))
            self.stream.flush()
        except Exception:  # noqa: BLE001 - a closed or broken stream: count, never raise
            with self._queue_lock:
                self._dropped += len(lines)

    def _report_dropped(self) -> None:
        if not self._dropped:
            return
        with self._queue_lock:
            dropped, self._dropped = self._dropped, 0
        if dropped:
            logging.getLogger("marketdata.logs").warning(
                "log lines dropped: the log stream took nothing for too long",
                extra={"dropped_lines": dropped})

    def _write_forever(self) -> None:
        while not self._closed:
            self._wake.wait()
            self._wake.clear()
            if self._loop is None:  # no loop batches the lines: gather them here
                time.sleep(self.FLUSH_SECONDS)
            with self._write_lock:
                self._write(self._take())
            self._report_dropped()

    def flush(self) -> None:
        """Write every queued line, then flush the stream (at exit: ``logging.shutdown``)."""
        with self._write_lock:
            self._write(self._take())
            if self.stream and hasattr(self.stream, "flush"):
                with contextlib.suppress(Exception):  # a closed stream: nothing to flush
                    self.stream.flush()

    def setStream(self, stream: Any) -> Any:  # noqa: N802 - logging's name
        """As ``StreamHandler.setStream``, the queued lines written to the old stream
        first."""
        if stream is self.stream:
            return None
        with self._write_lock:
            self._write(self._take())
            result = self.stream
            self.stream = stream
        if self._deferred_thread is not None:
            self._ensure_writer()  # a file may have become a pipe
        return result

    def close(self) -> None:
        self.flush()
        self._closed = True
        self._wake.set()
        super().close()


_buffered_handlers: weakref.WeakSet[BufferedStreamHandler] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    # The child has no writer thread, and the parent's queued lines are the parent's to
    # write: each handler starts afresh (writing at once until deferred again).
    for handler in list(_buffered_handlers):
        handler._reset()


os.register_at_fork(after_in_child=_after_fork_in_child)


def defer_loop_lines() -> int:
    """Have every :class:`BufferedStreamHandler` of the root logger queue the lines logged
    on this thread (a worker's event loop) for its writer thread; how many do."""
    handlers = [h for h in logging.getLogger().handlers if isinstance(h, BufferedStreamHandler)]
    for handler in handlers:
        handler.defer_from_current_thread()
    return len(handlers)


def direct_handler(logger: logging.Logger) -> BufferedStreamHandler | None:
    """The one handler a record of ``logger`` would reach, when it is a
    :class:`BufferedStreamHandler` with a :class:`StructuredFormatter` and no filter but
    the secrets' redaction (the production configuration); None when anything else would
    see the record (another handler: pytest's, a test's capture; a filter on the logger)."""
    if logger.disabled or logger.filters:
        return None
    found = None
    current: logging.Logger | None = logger
    while current is not None:
        handlers = current.handlers
        if handlers:
            if found is not None or len(handlers) != 1:
                return None
            found = handlers[0]
        if not current.propagate:
            break
        current = current.parent
    if type(found) is not BufferedStreamHandler or \
            not isinstance(found.formatter, StructuredFormatter) or \
            any(f is not _redact_secrets for f in found.filters):
        return None
    return found


ACCESS_LOGGER = "apps.core.access"
# A correlation id written into a line as it is (no JSON or text escaping needed).
_PLAIN_ID = re.compile(r"[A-Za-z0-9._-]+")


def _response_event(method: str, path: str, status: int, duration_ms: float,
                    correlation_id: str | None, query: str, route: str | None,
                    extra: Mapping[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """The message and fields of a response's access line."""
    fields: dict[str, Any] = {"correlation_id": correlation_id, "api_response": True,
                              "method": method, "path": path, "status_code": status,
                              "duration_ms": duration_ms}
    if route:
        fields["route"] = route
    if extra:
        fields.update(extra)
    if query:
        # Raw (parsing it only to log it costs more than a hit), credentials redacted.
        fields["params"] = redact_query(query)
    return f"API response sent - {method} {path} ({status}) [{duration_ms}ms]", fields


def _fill(parts: tuple[str, ...], created: float, correlation_id: str,
          duration_ms: float) -> str:
    """A response line from its template (:meth:`AccessLog._templated`)."""
    duration = str(duration_ms)
    return (f"{parts[0]}{_asctime(created)}{parts[1]}{correlation_id}{parts[2]}{duration}"
            f"{parts[3]}{duration}{parts[4]}")


class AccessLog:
    """One line per request with status and duration; slow requests also at WARNING.

    Both request paths write through this (the Django middleware and the fast path), so
    their lines have the same keys and levels: INFO for 2xx/3xx, WARNING for 4xx, ERROR for
    5xx. Nothing is built when nothing would be written.
    """

    # The lines of a few thousand (level, method, path, status, query, route) kept as
    # templates (:meth:`_templated`); past that, all are dropped and made again.
    TEMPLATES = 4096

    def __init__(self, source: str, threshold_ms: float) -> None:
        self.logger = logging.getLogger(ACCESS_LOGGER)
        self.source = source
        # As a LogRecord names it from the source file (its ``module`` key).
        self.module = os.path.splitext(os.path.basename(source))[0]
        self.threshold_ms = float(threshold_ms)
        self._templates: dict[tuple[Any, ...], tuple[str, ...] | None] = {}

    def _emit(self, level: int, message: str, event: dict[str, Any]) -> None:
        """:func:`emit`; without a LogRecord and the logging machinery when the line goes to
        the production handler alone (the same bytes: :meth:`StructuredFormatter.
        format_event`). A line per request: the record and its trip through the logger
        and handler were half of what a cache hit's line cost."""
        logger = self.logger
        handler = direct_handler(logger)
        if handler is None or level < handler.level:
            emit(logger, level, message, event, self.source)
            return
        formatter = handler.formatter
        assert isinstance(formatter, StructuredFormatter)  # direct_handler checked it
        try:
            line = formatter.format_event(time.time(), logging.getLevelName(level),
                                          logger.name, self.module, message, event)
        except Exception:  # noqa: BLE001 - the logging machinery reports it
            emit(logger, level, message, event, self.source)
            return
        handler.emit_line(line + handler.terminator)

    def _templated(self, level: int, method: str, path: str, status: int,
                   duration_ms: float, correlation_id: str | None, query: str,
                   route: str | None) -> bool:
        """Write the response line from its template; False (nothing written) where no
        template serves. A hit's line differs from the last of its (level, method, path,
        status, query, route) only in its time, correlation id and duration: the rest,
        redacted and escaped once, is kept, and a line is a join of nine strings (the
        rendering was ~15 % of a worker's time serving hits: bench/README.md, issue 47).
        A template is made by rendering the line with marker values and cutting it at
        them, and kept only when it renders two other lines exactly as
        :meth:`StructuredFormatter.format_event` does."""
        if type(duration_ms) is not float or not 0.001 <= duration_ms < 1e15:
            return False  # where str() and orjson may write a float differently
        correlation_id = correlation_id or SYSTEM_CORRELATION_ID
        if not _PLAIN_ID.fullmatch(correlation_id):
            return False  # would need escaping
        handler = direct_handler(self.logger)
        if handler is None or level < handler.level:
            return False
        key = (handler, level, method, path, status, query, route)
        try:
            parts = self._templates[key]
        except KeyError:
            parts = self._make_template(handler, level, method, path, status, query, route)
            if len(self._templates) >= self.TEMPLATES:
                self._templates.clear()
            self._templates[key] = parts
        if parts is None:
            return False
        handler.emit_line(_fill(parts, time.time(), correlation_id, duration_ms))
        return True

    def _line(self, handler: BufferedStreamHandler, created: float, level: int, method: str,
              path: str, status: int, duration_ms: float, correlation_id: str, query: str,
              route: str | None) -> str:
        """The response line as :meth:`__call__` renders it without a template."""
        formatter = handler.formatter
        assert isinstance(formatter, StructuredFormatter)  # direct_handler checked it
        message, fields = _response_event(method, path, status, duration_ms, correlation_id,
                                          query, route, None)
        return formatter.format_event(created, logging.getLevelName(level), self.logger.name,
                                      self.module, message, fields) + handler.terminator

    def _make_template(self, handler: BufferedStreamHandler, level: int, method: str,
                       path: str, status: int, query: str,
                       route: str | None) -> tuple[str, ...] | None:
        created, marker_id, marker_ms = 86_400.0 * 365, "Zq9marker9qZ", 987654.321
        try:
            line = self._line(handler, created, level, method, path, status, marker_ms,
                              marker_id, query, route)
            stamp, ms = _asctime(created), str(marker_ms)
            head, _, rest = line.partition(stamp)
            middle, _, rest = rest.partition(marker_id)
            pieces = rest.split(ms)
            if len(pieces) != 3 or stamp in head or marker_id in rest:
                return None
            parts = (head, middle, *pieces)
            for probe_ms, probe_id in ((3.141, "abcdef0123456789"), (12345.6, "x.y_z-9")):
                now = time.time()
                expected = self._line(handler, now, level, method, path, status, probe_ms,
                                      probe_id, query, route)
                if expected != _fill(parts, now, probe_id, probe_ms):
                    return None
            return parts
        except Exception:  # noqa: BLE001 - no template: the line is rendered in full
            return None

    def __call__(self, method: str, path: str, status: int, duration_ms: float,
                 correlation_id: str | None, query: str = "", route: str | None = None,
                 extra: Mapping[str, Any] | None = None) -> None:
        logger = self.logger
        slow = duration_ms > self.threshold_ms
        level = (logging.ERROR if status >= 500 else logging.WARNING if status >= 400
                 else logging.INFO)
        if not (slow or logger.isEnabledFor(level)):
            return
        operation = f"{method} {path}"
        if slow:
            if logger.isEnabledFor(logging.WARNING):
                self._emit(logging.WARNING,
                           f"Slow operation detected - {operation} ({duration_ms}ms)",
                           {"correlation_id": correlation_id, "operation": operation,
                            "duration_ms": duration_ms, "threshold_ms": self.threshold_ms,
                            "performance": True})
        elif logger.isEnabledFor(logging.DEBUG):
            self._emit(logging.DEBUG, f"Operation completed - {operation} ({duration_ms}ms)",
                       {"correlation_id": correlation_id, "operation": operation,
                        "duration_ms": duration_ms, "performance": True})
        if not logger.isEnabledFor(level):
            return
        if not slow and not extra and \
                self._templated(level, method, path, status, duration_ms, correlation_id,
                                query, route):
            return
        self._emit(level, *_response_event(method, path, status, duration_ms, correlation_id,
                                           query, route, extra))


def build_logging_config(level: str, fmt: str) -> dict[str, Any]:
    """A ``LOGGING`` dict for Django settings; invalid values fall back to INFO / json."""
    level = level.upper() if level and level.upper() in LOG_LEVELS else "INFO"
    renderer = _render_text if fmt == "text" else _render_json
    pre_chain = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.ExtraAdder(),
    ]
    quiet = "DEBUG" if level == "DEBUG" else "WARNING"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "structured": {
                "()": StructuredFormatter,
                "text": fmt == "text",
                "processors": [
                    _add_standard_keys,
                    structlog.processors.format_exc_info,
                    _redact_event,  # after the traceback is text: it is redacted too
                    renderer,
                ],
                "foreign_pre_chain": pre_chain,
            }
        },
        # Secrets out of every record, at every level (see redact_record).
        "filters": {"redact_secrets": {"()": redacting_filter}},
        "handlers": {
            "stdout": {"class": "marketdata.logs.BufferedStreamHandler",
                       "formatter": "structured",
                       "stream": "ext://sys.stdout", "filters": ["redact_secrets"]},
        },
        "root": {"handlers": ["stdout"], "level": level},
        "loggers": {
            **{name: {"filters": ["redact_secrets"]} for name in URL_LOGGERS},
            # Our access log replaces these; they would log every request twice.
            "django.server": {"level": "WARNING", "filters": ["redact_secrets"]},
            "django.request": {"level": "ERROR", "filters": ["redact_secrets"]},
            "gunicorn.access": {"level": "WARNING"},
            "urllib3": {"level": quiet, "filters": ["redact_secrets"]},
            "redis": {"level": quiet},
            "asyncio": {"level": "WARNING"},
        },
    }


def configure_structlog() -> None:
    """Route structlog through stdlib logging so one formatter renders everything."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.stdlib.filter_by_level,
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    return structlog.stdlib.get_logger(name)
