"""The floor for HTTP benchmarks: the smallest Django app that returns the same bytes.

Served by the same gunicorn command and settings as the service (a uvicorn worker running
the WSGI app in a2wsgi's thread pool, as config.asgi does for the API), so the difference
between the two is what the service's request path costs. The body is read from
``BENCH_FLOOR_BODY`` (a file path) at start-up.
"""

import os

from a2wsgi import WSGIMiddleware
from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.http import HttpResponse
from django.urls import path

settings.configure(
    DEBUG=False,
    SECRET_KEY="bench-floor-not-secret",
    ALLOWED_HOSTS=["*"],
    ROOT_URLCONF=__name__,
    MIDDLEWARE=[],
    INSTALLED_APPS=[],
)

with open(os.environ["BENCH_FLOOR_BODY"], "rb") as fh:
    BODY = fh.read()


def same_bytes(request):
    return HttpResponse(BODY, content_type="application/json")


urlpatterns = [path("v1/simple-quotes", same_bytes)]
application = WSGIMiddleware(get_wsgi_application(),
                             workers=int(os.environ.get("WEB_THREADS", "16")))
