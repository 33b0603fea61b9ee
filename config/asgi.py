"""ASGI entry point: what the production server runs (gunicorn + uvicorn workers, bin/serve).

One port, three ways to an answer for HTTP, and Channels consumers for the WebSocket
streams (``/v2/stream``, ``/v2/feeds/stream``: :mod:`apps.stream.sockets`; GraphQL
subscriptions at ``/graphql``, graphql-transport-ws: :mod:`apps.graphql.ws`):

- ``/v1/stream/`` goes to Django's ASGI handler: a quote stream is an endless async body
  that must not hold a thread, and the handler cancels it the moment the client leaves.
- Response-cache hits and ``/v1/ping`` are answered on the event loop by the fast path
  (:mod:`apps.core.fastpath`): no thread, no Django handler, the same answer (headers, rate
  limits, access line) Django would give. Dashboards and bots poll the same quotes again
  and again, so this is what most requests cost.
- ``/mcp`` (and ``/mcp/``) goes to the MCP endpoint (:mod:`apps.mcp.asgi`): tools for agents,
  each call an in-process request to this router, so everything below applies to it.
- Everything else (misses, other methods, anything the fast path cannot decide) goes to
  the WSGI application on a pool of ``WEB_THREADS`` threads through
  :mod:`apps.core.bridge`, which keeps every wait off those threads: the request body is
  read on the event loop (408 when it stalls, 413 when too large), a request whose
  upstream lane is full is parked on the loop until there is room, and the response is
  handed to the loop whole, never waiting for the client. Django's ASGI handler pays
  several thread hops per request (4-17x slower for JSON endpoints on these machines,
  shared/reference/platform-notes.md); the bridge keeps the WSGI path's speed (bench/
  README.md, "Serving options"). A ``/v1/ping`` the fast path leaves (an unusual
  ``Accept``, say) goes to a small pool of its own, so it never queues behind requests that
  wait on an upstream.

Every request is stamped with its arrival time (``time.monotonic()``) in the scope, by the
HTTP protocol when its headers are complete (:mod:`config.protocol`): the request deadline,
the access log's ``duration_ms`` and the latency metric count from there, so a wait for
the body, a thread or a lane is part of them.
"""

import asyncio
import os
import time
from concurrent.futures import Executor, Future, ThreadPoolExecutor

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from asgiref.sync import ThreadSensitiveContext
from channels.routing import ProtocolTypeRouter
from django.conf import settings
from django.core.asgi import get_asgi_application
from django.core.wsgi import get_wsgi_application

from marketdata import deadline

STREAM_PREFIX = "/v1/stream/"

django_asgi = get_asgi_application()
wsgi_application = get_wsgi_application()

from apps.core.bridge import Bridge  # noqa: E402 - needs the apps loaded
from apps.core.fastpath import fast_path  # noqa: E402
from apps.graphql.endpoint import PATHS as GRAPHQL_PATHS  # noqa: E402
from apps.graphql.endpoint import GraphQLEndpoint  # noqa: E402
from apps.mcp.asgi import PATHS as MCP_PATHS  # noqa: E402
from apps.mcp.asgi import McpEndpoint  # noqa: E402

WEB_THREADS = settings.WEB_THREADS
# Read the settings, load the URL configuration and run the header probes now: on the
# first request they would hold the event loop for a second.
fast_path.setup()
django_wsgi = Bridge(wsgi_application, threads=WEB_THREADS, name="wsgi")
# Liveness answers from its own threads: requests hanging on an upstream must not make
# a load balancer think the process is dead.
PING_PATHS = ("/v1/ping", "/v1/ping/")
django_wsgi_ping = Bridge(wsgi_application, threads=2, name="ping")
# Django's ASGI handler runs each request's middleware and view in a thread of its own, so
# a burst of stream openings would run that many at once (and exhaust the Redis pools).
# Openings wait here instead: at most WEB_THREADS are between arrival and the response start.
_stream_openings = asyncio.Semaphore(WEB_THREADS)
# Where a stream request's thread-sensitive calls go once its response has started: only
# the handler's last ``response.close()`` (request_finished, the lease's release) and, for a
# client that left before the response, the request_finished receivers. Short calls, one
# at a time: no thread per open stream.
_stream_closings = ThreadPoolExecutor(max_workers=1, thread_name_prefix="stream-close")


class StreamThread(Executor):
    """The thread-sensitive executor of one ``/v1/stream/`` request: its own thread while it
    opens, none once its response has started.

    Why: Django's ASGI handler enters a ``ThreadSensitiveContext`` per request, and asgiref
    gives each such context a ``ThreadPoolExecutor(max_workers=1)`` that lives until the
    context exits, i.e. until the handler returns. For a quote stream that is the whole
    connection: every open stream kept an idle thread (its stack, thread state and the
    allocator's per-thread cache), ~100 KiB of the ~140 KiB RSS a stream cost, and 5,000
    streams meant 5,000 threads. Entered as the outer context (asgiref's caller-owned
    executor: Django's inner context then changes nothing), this executor runs the opening
    (request_started, the middleware chain and the view, all one thread as before) on a
    thread of its own, and :meth:`opened` lets that thread go when the response starts.
    Later calls (the handler's ``response.close()``) run on the one shared closing thread.

    The stream's opening touches no database connection (no DRF authentication, sessions
    and messages are lazy and unread): one opened there would have to be closed on the
    thread that opened it.
    """

    def __init__(self) -> None:
        self._own: ThreadPoolExecutor | None = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="stream-open")

    def submit(self, fn, /, *args, **kwargs) -> Future:
        return (self._own or _stream_closings).submit(fn, *args, **kwargs)

    def opened(self) -> None:
        """The response has started: the opening's thread ends once idle (it is: the view
        has returned). Idempotent."""
        own, self._own = self._own, None
        if own is not None:
            own.shutdown(wait=False)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.opened()


async def open_stream(scope, receive, send):
    """Django's ASGI handler for a stream, bounded until its response has started, with a
    thread only until then (:class:`StreamThread`)."""
    await _stream_openings.acquire()
    opening = True
    thread = StreamThread()

    def opened() -> None:
        nonlocal opening
        if opening:
            opening = False
            thread.opened()
            _stream_openings.release()

    async def send_and_release(message):
        if message["type"] == "http.response.start":
            opened()
        await send(message)

    try:
        async with ThreadSensitiveContext(executor=thread):
            await django_asgi(scope, receive, send_and_release)
    finally:
        opened()


async def http_router(scope, receive, send):
    scope.setdefault(deadline.ARRIVAL_KEY, time.monotonic())  # the protocol stamps it first
    path = scope["path"]
    if path.startswith(STREAM_PREFIX):
        return await open_stream(scope, receive, send)
    if path in MCP_PATHS and settings.MCP_ENABLED:
        return await mcp_endpoint(scope, receive, send)
    if path in GRAPHQL_PATHS and settings.GRAPHQL_ENABLED:
        return await graphql_endpoint(scope, receive, send)
    if await fast_path(scope, receive, send):
        return None
    if path in PING_PATHS:
        return await django_wsgi_ping(scope, receive, send)
    # A response-cache miss: the same key's misses meanwhile wait for this one's answer.
    with fast_path.leading(scope):
        return await django_wsgi(scope, receive, send)


# The MCP endpoint (apps.mcp): its tool calls are requests to http_router itself, in process.
mcp_endpoint = McpEndpoint(http_router)
# The GraphQL endpoint (apps.graphql): each field a request to http_router, in process;
# CORS preflights answered by the API's middleware, as for any other path.
graphql_endpoint = GraphQLEndpoint(http_router, django_wsgi)


def _websocket_routes() -> dict[str, object]:
    from apps.graphql.ws import graphql_socket
    from apps.stream.feeds import FeedStreamSocket
    from apps.stream.sockets import QuoteStreamSocket

    routes: dict[str, object] = {"/v2/stream": QuoteStreamSocket.as_asgi(),
                                 "/v2/feeds/stream": FeedStreamSocket.as_asgi()}
    if settings.GRAPHQL_ENABLED:  # subscriptions (graphql-transport-ws), the schema of HTTP's
        routes["/graphql"] = graphql_socket(graphql_endpoint.schema.get)
    return routes


WEBSOCKET_ROUTES = _websocket_routes()


async def websocket_router(scope, receive, send):
    """``/v2/stream``, ``/v2/feeds/stream`` and ``/graphql`` (GraphQL subscriptions; a
    trailing slash allowed); any other path's handshake is a JSON 404."""
    scope.setdefault(deadline.ARRIVAL_KEY, time.monotonic())
    path = scope["path"]
    app = WEBSOCKET_ROUTES.get(path[:-1] if path.endswith("/") and len(path) > 1 else path)
    if app is not None:
        return await app(scope, receive, send)
    await receive()  # websocket.connect
    if "websocket.http.response" in scope.get("extensions", {}):
        body = b'{"error":"No WebSocket stream at this path; see /docs/websockets",' \
               b'"status":404}'
        await send({"type": "websocket.http.response.start", "status": 404,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "websocket.http.response.body", "body": body})
    else:
        await send({"type": "websocket.close"})
    return None


application = ProtocolTypeRouter({"http": http_router, "websocket": websocket_router})
