"""The bare-ASGI floor: the smallest ASGI application, answering fixed bytes.

Served by the same gunicorn command and uvicorn worker (``config.workers``) as the service,
so the difference between the two is what the service's request path costs over the
server's own ceiling. The body is read from ``BENCH_FLOOR_BODY`` (a file path) at start-up;
every request gets it with a JSON content type and its length.
"""

import os

with open(os.environ["BENCH_FLOOR_BODY"], "rb") as fh:
    BODY = fh.read()

HEADERS = [(b"content-type", b"application/json"),
           (b"content-length", str(len(BODY)).encode())]


async def application(scope, receive, send):
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})
