"""Production settings: no generated secrets, live upstream unless stated, DEBUG refused."""

import os

from django.core.exceptions import ImproperlyConfigured

if not os.environ.get("SECRET_KEY"):
    raise ImproperlyConfigured("SECRET_KEY must be set in production")

from config.settings import *  # noqa: F403

if DEBUG:  # noqa: F405
    raise ImproperlyConfigured("DJANGO_DEBUG must be off in production")

SESSION_COOKIE_SECURE = os.environ.get("SESSION_COOKIE_SECURE", "1") == "1"
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
