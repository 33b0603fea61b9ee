"""Production settings: no generated secrets, live upstream unless stated, DEBUG refused,
Secure session and CSRF cookies unless the operator serves plain HTTP and says so
(``SESSION_COOKIE_SECURE=0``). The HTTPS and proxy variables are read in config.settings."""

import os

from django.core.exceptions import ImproperlyConfigured

if not os.environ.get("SECRET_KEY"):
    raise ImproperlyConfigured("SECRET_KEY must be set in production")

from config.settings import *  # noqa: F403

if DEBUG:  # noqa: F405
    raise ImproperlyConfigured("DJANGO_DEBUG must be off in production")

SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", True)  # noqa: F405
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", SESSION_COOKIE_SECURE)  # noqa: F405
