"""The gunicorn worker class of the production server: uvicorn running ``config.asgi``.

Why a subclass: a stream is an endless response, so uvicorn's graceful shutdown would wait
for every open stream until its timeout. Here the worker's exit signal also tells the stream
hubs, which end their responses at once; ``timeout_graceful_shutdown`` (2 s) stays as the
backstop that cancels whatever is still running.
"""

from __future__ import annotations

import asyncio
import sys
from types import FrameType

from gunicorn.arbiter import Arbiter
from uvicorn.server import Server
from uvicorn_worker import UvicornWorker


class StreamAwareServer(Server):
    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        from apps.stream.hub import begin_shutdown

        begin_shutdown()  # only schedules callbacks on the loop: safe in a signal handler
        super().handle_exit(sig, frame)


class MarketDataWorker(UvicornWorker):
    CONFIG_KWARGS = {
        "loop": "uvloop",
        # httptools with request-head limits, head and write timeouts, JSON refusals.
        "http": "config.protocol:FrontProtocol",
        "lifespan": "off",  # channels' router has no lifespan support; nothing needs it
        "proxy_headers": False,  # client addresses are resolved by TRUSTED_PROXIES, not here
        "access_log": False,  # the access-log middleware writes one line per request
        "server_header": False,
        "timeout_graceful_shutdown": 2,
        # The WebSockets' protocol: uvicorn's sans-I/O one, dropping clients that stop reading.
        "ws": "config.protocol:FrontWebSocketProtocol",
    }

    async def _serve(self) -> None:
        from django.conf import settings

        # Here, in the worker: imported in the master, the metrics would make its files.
        from marketdata import logs, loop_lag

        self.config.app = self.wsgi
        # Read here, in the worker, where the application (and so the settings) is loaded.
        # A client frame is inflated against the limit, never past it (close 1009).
        self.config.ws_max_size = int(settings.WS_MAX_MESSAGE_BYTES)
        self.config.ws_per_message_deflate = bool(settings.WS_COMPRESSION)
        self.config.ws_ping_interval = float(settings.WS_PING_INTERVAL_SECONDS)
        self.config.ws_ping_timeout = float(settings.WS_PING_TIMEOUT_SECONDS)
        server = StreamAwareServer(config=self.config)
        # How late this loop runs what is due, in /metrics (marketdata_event_loop_lag_seconds).
        loop_lag.start(asyncio.get_running_loop(), float(settings.LOOP_LAG_INTERVAL_SECONDS))
        # The lines logged on this loop (an access line per cache hit) are written by a
        # thread of their own: a slow reader of stdout never stops the loop.
        logs.defer_loop_lines()
        self._install_sigquit_handler()
        await server.serve(sockets=self.sockets)
        if not server.started:
            sys.exit(Arbiter.WORKER_BOOT_ERROR)
