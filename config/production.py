"""Production settings: no generated secrets, live upstream only, DEBUG refused, no
``/metrics`` open to anyone unless the operator says so (``METRICS_PUBLIC``), Secure
session and CSRF cookies unless the operator serves plain HTTP and says so
(``SESSION_COOKIE_SECURE=0``). The HTTPS and proxy variables are read in config.settings.

The simulator (``marketdata.sandbox``) is not part of production: the image ships without
it, no transport names it, and sandbox mode is refused at start with a clear error rather
than failing on the first upstream call."""

import os

from django.core.exceptions import ImproperlyConfigured

if not os.environ.get("SECRET_KEY"):
    raise ImproperlyConfigured("SECRET_KEY must be set in production")

from config.settings import *  # noqa: F403

if DEBUG:  # noqa: F405
    raise ImproperlyConfigured("DJANGO_DEBUG must be off in production")

if MARKETDATA_UPSTREAM == "sandbox":  # noqa: F405
    raise ImproperlyConfigured(
        "MARKETDATA_UPSTREAM=sandbox is not available with config.production: the production "
        "image ships without the simulator. Run the sandbox with the development settings "
        "(make run, or DJANGO_SETTINGS_MODULE=config.settings)")
if not METRICS_TOKEN and not METRICS_PUBLIC:  # noqa: F405
    raise ImproperlyConfigured(
        "/metrics would be open to anyone: set METRICS_TOKEN (Prometheus sends it as "
        "'Authorization: Bearer <token>'), or METRICS_PUBLIC=true when only your own network "
        "can reach the service's port")
UPSTREAM_TRANSPORTS: dict[str, str] = {}
UPSTREAM_WEBSOCKETS: dict[str, str] = {}
INSTALLED_APPS = [app for app in INSTALLED_APPS if app != "marketdata.sandbox"]  # noqa: F405

SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", True)  # noqa: F405
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", SESSION_COOKIE_SECURE)  # noqa: F405
