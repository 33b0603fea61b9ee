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
"""

from __future__ import annotations

import logging
import logging.config
import re
import time
from typing import Any

import orjson
import structlog

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
SYSTEM_CORRELATION_ID = "system"

# Keys that must never reach a log line, whatever a caller passes.
_SECRET_KEYS = frozenset({"crumb", "x-api-key", "api_key", "apikey", "token", "password",
                          "secret", "authorization", "cookie", "cookies"})


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
    for key in list(event):
        if key.lower() in _SECRET_KEYS:
            event[key] = "[redacted]"
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


# Query parameters whose values are credentials (a client's own key for a proxy in front of
# us, a key pasted into a URL): their values never reach a log line. Matched by name,
# case-insensitively: exact names, or a name ending in _key/-key/_token/... (fred_api_key).
_SECRET_NAME = re.compile(
    r"(?:apikey|api[_-]?key|x-api-key|key|token|access[_-]?token|auth|authorization|secret"
    r"|client[_-]?secret|password|passwd|pwd|crumb|sig|signature"
    r"|[a-z0-9_-]*[_-](?:key|token|secret|password))", re.IGNORECASE | re.ASCII)
_QUERY_PAIR = re.compile(r"([^&=]*)=([^&]*)")
_MAYBE_SECRET = re.compile(r"(?:key|token|auth|secret|pass|pwd|crumb|sig)[^&]*=",
                           re.IGNORECASE | re.ASCII)
REDACTED = "REDACTED"


def redact_query(query: str) -> str:
    """``query`` with the values of secret-looking parameters replaced by ``REDACTED``.

    A cheap scan first: almost no query names a secret, and those pass unchanged. Names
    are compared percent-decoded only as far as ``+``/``%5F`` spellings of ``_`` go.
    """
    if not query or not _MAYBE_SECRET.search(query):
        return query

    def pair(match: re.Match[str]) -> str:
        name = match.group(1)
        plain = name.replace("%5F", "_").replace("%5f", "_").replace("%2D", "-") \
            .replace("%2d", "-")
        return f"{name}={REDACTED}" if _SECRET_NAME.fullmatch(plain) else match.group(0)

    return _QUERY_PAIR.sub(pair, query)


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
        line = {"asctime": _asctime(record.created), "level": record.levelname,
                "logger": record.name, "module": record.module,
                "correlation_id": event.get("correlation_id") or SYSTEM_CORRELATION_ID,
                "message": record.msg}
        for key, value in event.items():
            if key != "correlation_id":
                line[key] = "[redacted]" if key.lower() in _SECRET_KEYS else value
        if self.text:
            return _render_text(None, "", line)
        return orjson.dumps(line, default=str).decode()


def emit(logger: logging.Logger, level: int, message: str, event: dict[str, Any],
         source: str) -> None:
    """Log ``message`` with ``event`` (``correlation_id`` and extra keys) at ``level``.

    The caller has checked the level. ``source`` is the emitting module's file (it names the
    ``module`` key). Handlers with another formatter still get ``message`` as the record's
    message.
    """
    record = logger.makeRecord(logger.name, level, source, 0, message, (), None)
    record.__dict__[EVENT_ATTR] = event
    logger.handle(record)


ACCESS_LOGGER = "apps.core.access"


class AccessLog:
    """One line per request with status and duration; slow requests also at WARNING.

    Both request paths write through this (the Django middleware and the fast path), so
    their lines have the same keys and levels: INFO for 2xx/3xx, WARNING for 4xx, ERROR for
    5xx. Nothing is built when nothing would be written.
    """

    def __init__(self, source: str, threshold_ms: float) -> None:
        self.logger = logging.getLogger(ACCESS_LOGGER)
        self.source = source
        self.threshold_ms = float(threshold_ms)

    def __call__(self, method: str, path: str, status: int, duration_ms: float,
                 correlation_id: str | None, query: str = "", route: str | None = None) -> None:
        logger = self.logger
        slow = duration_ms > self.threshold_ms
        level = (logging.ERROR if status >= 500 else logging.WARNING if status >= 400
                 else logging.INFO)
        if not (slow or logger.isEnabledFor(level)):
            return
        operation = f"{method} {path}"
        if slow:
            if logger.isEnabledFor(logging.WARNING):
                emit(logger, logging.WARNING,
                     f"Slow operation detected - {operation} ({duration_ms}ms)",
                     {"correlation_id": correlation_id, "operation": operation,
                      "duration_ms": duration_ms, "threshold_ms": self.threshold_ms,
                      "performance": True}, self.source)
        elif logger.isEnabledFor(logging.DEBUG):
            emit(logger, logging.DEBUG, f"Operation completed - {operation} ({duration_ms}ms)",
                 {"correlation_id": correlation_id, "operation": operation,
                  "duration_ms": duration_ms, "performance": True}, self.source)
        if not logger.isEnabledFor(level):
            return
        fields: dict[str, Any] = {"correlation_id": correlation_id, "api_response": True,
                                  "method": method, "path": path, "status_code": status,
                                  "duration_ms": duration_ms}
        if route:
            fields["route"] = route
        if query:
            # Raw (parsing it only to log it costs more than a hit), credentials redacted.
            fields["params"] = redact_query(query)
        emit(logger, level, f"API response sent - {operation} ({status}) [{duration_ms}ms]",
             fields, self.source)


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
                    renderer,
                ],
                "foreign_pre_chain": pre_chain,
            }
        },
        "handlers": {
            "stdout": {"class": "logging.StreamHandler", "formatter": "structured",
                       "stream": "ext://sys.stdout"},
        },
        "root": {"handlers": ["stdout"], "level": level},
        "loggers": {
            # Our access log replaces these; they would log every request twice.
            "django.server": {"level": "WARNING"},
            "django.request": {"level": "ERROR"},
            "gunicorn.access": {"level": "WARNING"},
            "urllib3": {"level": quiet},
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
