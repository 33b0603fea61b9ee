"""Drive config.asgi in-process: the fast path, and the Django path (a2wsgi + the WSGI
application) behind it, with the same ASGI scope."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from urllib.parse import unquote

# Headers that differ between two answers to the same request by nature.
VOLATILE = {"date"}


@dataclass
class Answer:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    answered_by_fast_path: bool = False
    sent: list[dict] = field(default_factory=list)

    def header(self, name: str) -> str | None:
        values = [v for n, v in self.headers if n == name.lower()]
        return ",".join(values) if values else None

    def comparable(self) -> tuple[int, list[tuple[str, str]], bytes]:
        """Status, headers (lower-case names, sorted, without the volatile ones), body."""
        return (self.status, sorted((n, v) for n, v in self.headers if n not in VOLATILE),
                self.body)


def scope(target: str, headers: dict[str, str] | list[tuple[str, str]] | None = None,
          method: str = "GET", client: tuple[str, int] | None = ("127.0.0.1", 50000),
          scheme: str = "http") -> dict:
    """The scope uvicorn builds for ``target`` (raw path and query as sent)."""
    raw_path, _, query = target.partition("?")
    items = list(headers.items()) if isinstance(headers, dict) else list(headers or [])
    if not any(name.lower() == "host" for name, _ in items):
        items.insert(0, ("host", "testserver"))
    return {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1", "method": method, "scheme": scheme,
            "path": unquote(raw_path), "raw_path": raw_path.encode("latin-1"),
            "query_string": query.encode("latin-1"), "root_path": "",
            "headers": [(n.lower().encode("latin-1"), v.encode("latin-1")) for n, v in items],
            "client": client, "server": ("testserver", 80)}


async def _call(app, request_scope: dict) -> Answer:
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    result = await app(dict(request_scope), receive, send)
    start = next((m for m in sent if m["type"] == "http.response.start"), None)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    if start is None:
        return Answer(0, [], b"", bool(result), sent)
    headers = [(n.decode("latin-1").lower(), v.decode("latin-1")) for n, v in start["headers"]]
    return Answer(start["status"], headers, body, result is True, sent)


def run(coroutine):
    """Run ``coroutine`` on a fresh loop, closing that loop's Redis client afterwards."""
    from marketdata.redis_async import close_client

    async def main():
        try:
            return await coroutine
        finally:
            await close_client()

    return asyncio.run(main())


_handler = None
_django_wsgi = None


def _reset_handler(**_kwargs) -> None:
    global _handler
    _handler = None


def _wsgi(environ, start_response):
    """config.asgi's WSGI application, rebuilt after a setting changes (as Django's test
    Client does: middleware read settings when the chain is built)."""
    global _handler
    if _handler is None:
        from django.core.handlers.wsgi import WSGIHandler

        _handler = WSGIHandler()
    return _handler(environ, start_response)


def django_path(target: str, headers=None, **kwargs) -> Answer:
    """The answer of the Django path: the WSGI application behind a2wsgi, as config.asgi
    runs it when the fast path falls through."""
    global _django_wsgi
    if _django_wsgi is None:
        from a2wsgi import WSGIMiddleware
        from django.core.signals import setting_changed

        setting_changed.connect(_reset_handler, weak=False)
        _django_wsgi = WSGIMiddleware(_wsgi, workers=4)
    return run(_call(_django_wsgi, scope(target, headers, **kwargs)))


def fast_path(target: str, headers=None, **kwargs) -> Answer:
    """The fast path's answer, or an empty Answer (status 0) when it falls through."""
    from apps.core.fastpath import fast_path as answerer

    return run(_call(answerer, scope(target, headers, **kwargs)))


def front_concurrently(target: str, count: int, headers=None, **kwargs) -> list[Answer]:
    """``count`` requests for ``target`` through the whole ASGI application at once, on one
    loop (as ``count`` clients polling the same URL)."""
    import config.asgi as asgi

    async def main() -> list[Answer]:
        return list(await asyncio.gather(*(_call(asgi.http_router,
                                                 scope(target, headers, **kwargs))
                                           for _ in range(count))))

    return run(main())


def front(target: str, headers=None, **kwargs) -> Answer:
    """The whole ASGI application (fast path first, Django behind it)."""
    import config.asgi as asgi

    return run(_call(asgi.http_router, scope(target, headers, **kwargs)))
