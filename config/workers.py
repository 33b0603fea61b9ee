"""The gunicorn worker class of the production server: uvicorn running ``config.asgi``.

Why a subclass: a stream is an endless response, so uvicorn's graceful shutdown would wait
for every open stream until its timeout. Here the worker's exit signal also tells the stream
hubs, which end their responses at once; ``timeout_graceful_shutdown`` (2 s) stays as the
backstop that cancels whatever is still running.
"""

from __future__ import annotations

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
    }

    async def _serve(self) -> None:
        self.config.app = self.wsgi
        server = StreamAwareServer(config=self.config)
        self._install_sigquit_handler()
        await server.serve(sockets=self.sockets)
        if not server.started:
            sys.exit(Arbiter.WORKER_BOOT_ERROR)
