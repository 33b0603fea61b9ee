"""config.asgi's front: /v1/ping answers from a pool of its own (never queued behind API
requests waiting on an upstream), and every request is stamped with its arrival time, from
which the request deadline counts."""

from __future__ import annotations

import asyncio

import pytest

from marketdata import deadline


def _scope(path: str, query: str = "") -> dict:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": query.encode(), "root_path": "", "headers": [(b"host", b"testserver")],
            "client": ("127.0.0.1", 1234), "server": ("testserver", 80)}


async def _call(app, scope: dict) -> tuple[int, bytes]:
    status, body = 0, b""

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        nonlocal status, body
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            body += message.get("body", b"")

    await app(scope, receive, send)
    return status, body


@pytest.mark.django_db
def test_ping_answers_while_every_api_thread_is_busy(monkeypatch):
    import config.asgi as front

    entered = []

    async def stuck(scope, receive, send):  # every API thread waiting on an upstream
        entered.append(scope["path"])
        await asyncio.sleep(3600)

    monkeypatch.setattr(front, "django_wsgi", stuck)

    async def scenario():
        # 20 different URLs: misses of one URL would wait for the first on the event loop
        # (apps.core.fastpath), holding no thread.
        blocked = [asyncio.create_task(front.http_router(_scope("/v1/quotes",
                                                                f"symbols=S{i}"), None, None))
                   for i in range(20)]
        await asyncio.sleep(0.05)
        status, body = await asyncio.wait_for(_call(front.http_router, _scope("/v1/ping")), 5)
        for task in blocked:
            task.cancel()
        await asyncio.gather(*blocked, return_exceptions=True)
        return status, body

    status, body = asyncio.run(scenario())
    assert status == 200, body
    assert len(entered) == 20  # the API requests went to the (stuck) API pool


def test_every_request_is_stamped_with_its_arrival(monkeypatch):
    import config.asgi as front

    seen = {}

    async def capture(scope, receive, send):
        seen.update(scope)

    monkeypatch.setattr(front, "django_wsgi", capture)
    asyncio.run(front.http_router(_scope("/v1/quotes"), None, None))
    assert isinstance(seen[deadline.ARRIVAL_KEY], float)


def test_the_deadline_counts_from_the_arrival(settings):
    """A request that waited 9 s of a 10 s deadline for a thread has 1 s left."""
    import time

    from django.test import RequestFactory

    from apps.core.middleware import RequestDeadlineMiddleware

    settings.REQUEST_DEADLINE_SECONDS = 10
    left = {}

    def view(request):
        from django.http import HttpResponse

        left["seconds"] = deadline.remaining()
        return HttpResponse("ok")

    request = RequestFactory().get("/v1/quotes")
    request.META["asgi.scope"] = {deadline.ARRIVAL_KEY: time.monotonic() - 9}
    RequestDeadlineMiddleware(view)(request)
    assert 0.5 < left["seconds"] <= 1.0
    assert deadline.remaining() is None  # reset after the request
