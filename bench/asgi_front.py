"""Experiment for the stream issue: the WSGI service behind an ASGI server on one port.

``application`` runs the project's WSGI application (every middleware, the same code the
gunicorn workers run) in a thread pool via a2wsgi, so an ASGI server (uvicorn) can serve the
whole API and, later, the SSE stream from one process and one port. ``bench/serving_options.py``
compares it with gunicorn's threaded workers.
"""

import os

from a2wsgi import WSGIMiddleware

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from config.wsgi import application as wsgi_application

application = WSGIMiddleware(wsgi_application, workers=int(os.environ.get("WEB_THREADS", "16")))
