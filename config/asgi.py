"""ASGI entry point: what the production server runs (gunicorn + uvicorn workers, bin/serve).

One port, two paths into the same Django project:

- ``/v1/stream/`` goes to Django's ASGI handler: a quote stream is an endless async body
  that must not hold a thread, and the handler cancels it the moment the client leaves.
- Everything else goes to the WSGI application through a2wsgi's thread pool. Django's ASGI
  handler pays several thread hops per request (4-17x slower for JSON endpoints on these
  machines, shared/reference/platform-notes.md), while a2wsgi keeps about 90 % of gunicorn's
  threaded WSGI throughput on cache hits (bench/README.md, "Serving options").
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from a2wsgi import WSGIMiddleware
from channels.routing import ProtocolTypeRouter
from django.core.asgi import get_asgi_application
from django.core.wsgi import get_wsgi_application

STREAM_PREFIX = "/v1/stream/"

django_asgi = get_asgi_application()
django_wsgi = WSGIMiddleware(get_wsgi_application(),
                             workers=int(os.environ.get("WEB_THREADS", "16")))


async def http_router(scope, receive, send):
    if scope["path"].startswith(STREAM_PREFIX):
        return await django_asgi(scope, receive, send)
    return await django_wsgi(scope, receive, send)


application = ProtocolTypeRouter({"http": http_router})
