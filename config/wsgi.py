"""WSGI entry point: the JSON API under gunicorn (sync workers are fastest for Django)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
