"""The MCP server over stdio (``manage.py mcp``, ``bin/mcp``): the server ``/mcp`` serves
(:func:`apps.mcp.server.build_server`), for desktop clients that start it as a process.

- **Tool calls** are HTTP requests to the same in-process application as ``/mcp``'s
  (``config.asgi.http_router``): the same fast path, caches, rate limits, request deadline,
  access log and error bodies. Their scope stands for a local client, as a request from
  ``curl localhost`` would: client ``127.0.0.1``, server ``localhost:80``, ``Host:
  localhost`` (:func:`local_api`).
- **stdout is the protocol**: one JSON-RPC message a line, nothing else. ``manage.py``
  moves file descriptor 1 to stderr before Django starts (:func:`claim_stdout`), keeping
  a copy of the real stdout for the messages, so nothing Django's start-up, a warning, a
  stray ``print`` or a C library writes can break a message; and every log handler
  writing to stdout writes to stderr instead (:func:`logs_to_stderr`). Run otherwise
  (``call_command``), the SDK's ``stdio_server`` does the same while the server runs.
  The application is loaded on a thread while the client's ``initialize`` is answered
  (the URL configuration and the fast path's probes take a second or two).
- **Per-process start-up**: importing ``config.asgi`` is what a worker's first request
  needs (the settings, the URL configuration, the fast path's probes, the WSGI bridge and
  its thread pool); the fan-out pool starts on first use, and there is no stream hub to
  stop (no stream is served here). What gunicorn's ``post_worker_init`` adds
  (``config/gunicorn.conf.py``) runs in a background thread (:func:`warm_up`), so the first
  calls do not pay it: the market calendar, the indicator and backtest kernels (~2 s with
  the ones ``make run``'s ``manage.py prepare`` compiled into ``var/numba``; ~10-25 s when
  never compiled), the exchange calendars.
- **No database**: no tool call reads one (no authentication classes, the rate-limit
  counters and cache statistics live in the cache), so the command migrates nothing.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from apps.core.inprocess import ASGIApp, Message, Scope
from apps.mcp.server import build_server
from marketdata.logs import get_logger

log = get_logger("apps.mcp")

# Who a tool call over stdio comes from: the user's own machine.
LOCAL_CLIENT = ("127.0.0.1", 0)
# The process's real stdout once :func:`claim_stdout` has moved file descriptor 1 to stderr.
_protocol_fd: int | None = None


def claim_stdout() -> None:
    """Keep the real stdout for the protocol and point file descriptor 1 (``sys.stdout``,
    every log handler writing there, C libraries) at stderr. ``manage.py mcp`` calls it
    before Django starts, so nothing its start-up writes reaches the client."""
    global _protocol_fd
    if _protocol_fd is None:
        sys.stdout.flush()
        _protocol_fd = os.dup(1)
        os.dup2(2, 1)


def local_api(api: ASGIApp) -> ASGIApp:
    """``api`` with every request from :data:`LOCAL_CLIENT` (a tool call's scope has no
    client when its MCP request came over stdio)."""

    async def local(scope: Scope, receive: Callable[[], Any],
                    send: Callable[[Message], Any]) -> Any:
        if scope.get("client") is None:
            scope = {**scope, "client": LOCAL_CLIENT}
        return await api(scope, receive, send)

    return local


def logs_to_stderr() -> int:
    """Point every logging handler that writes to stdout at stderr instead; how many did."""
    moved = 0
    loggers = [logging.getLogger(), *(item for item in logging.Logger.manager.loggerDict.values()
                                      if isinstance(item, logging.Logger))]
    for logger in loggers:
        for handler in logger.handlers:
            if isinstance(handler, logging.StreamHandler) and \
                    handler.stream in (sys.stdout, sys.__stdout__):
                handler.setStream(sys.stderr)
                moved += 1
    return moved


def warm_up() -> None:
    """What a gunicorn worker loads before its first request (``post_worker_init``)."""
    from marketdata.warmup import warm_up_process

    started = time.monotonic()
    try:
        warm_up_process()
    except Exception:  # a request would meet the same failure, and say it
        log.exception("mcp stdio warm-up failed")
        return
    log.info("mcp stdio warmed up", seconds=round(time.monotonic() - started, 2))


def load_application() -> ASGIApp:
    """The service's HTTP application (``config.asgi.http_router``), as a local client
    reaches it."""
    from config.asgi import http_router

    return local_api(http_router)


async def serve(load: Callable[[], ASGIApp] = load_application) -> None:
    """Serve MCP on stdin and stdout until the client closes stdin."""
    import anyio
    from mcp.server.stdio import stdio_server

    stdout: anyio.AsyncFile[str] | None = None
    if _protocol_fd is not None:  # claimed already: the SDK writes there, not to fd 1
        stdout = anyio.wrap_file(io.TextIOWrapper(
            os.fdopen(_protocol_fd, "wb", closefd=False), encoding="utf-8"))
    async with stdio_server(stdout=stdout) as (read_stream, write_stream):
        # Loaded on a thread while the handshake is answered; the first request that needs
        # the application waits for it.
        async def loaded() -> ASGIApp:
            try:
                app = await asyncio.to_thread(load)
            except Exception:
                log.exception("mcp stdio: the application did not load")
                raise
            threading.Thread(target=warm_up, name="mcp-warm-up", daemon=True).start()
            log.info("mcp stdio server ready")
            return app

        loading = asyncio.ensure_future(loaded())

        async def api(scope: Scope, receive: Callable[[], Any],
                      send: Callable[[Message], Any]) -> Any:
            return await (await loading)(scope, receive, send)

        server = build_server(api)
        try:
            await server.run(read_stream, write_stream, server.create_initialization_options())
        finally:
            loading.cancel()
