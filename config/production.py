"""Production settings: no generated or weak secrets, live upstream only, DEBUG refused, no
``/metrics`` open to anyone unless the operator says so (``METRICS_PUBLIC``), Secure
session and CSRF cookies unless the operator serves plain HTTP and says so
(``SESSION_COOKIE_SECURE=0``). The HTTPS and proxy variables are read in config.settings.

The simulator (``marketdata.sandbox``) is not part of production: the image ships without
it, no transport names it, and sandbox mode is refused at start with a clear error rather
than failing on the first upstream call.

Every refusal is one line on stderr saying what to set (``config.startup.refuse``), whatever
command imports these settings; config.settings' own refusals (``ImproperlyConfigured``)
are turned into the same line."""

import os

from django.core.exceptions import ImproperlyConfigured

from config.startup import refuse, secret_key_problem

# Before config.settings, which would generate a development key in var/ without one.
_SECRET_KEY_PROBLEM = secret_key_problem(os.environ.get("SECRET_KEY"))
if _SECRET_KEY_PROBLEM:
    refuse(_SECRET_KEY_PROBLEM)

try:
    from config.settings import *  # noqa: F403
except ImproperlyConfigured as exc:
    refuse(str(exc))

if DEBUG:  # noqa: F405
    refuse("DJANGO_DEBUG is on, which production refuses (it shows settings and tracebacks "
           "to anyone); unset DJANGO_DEBUG or set DJANGO_DEBUG=0")

if MARKETDATA_UPSTREAM == "sandbox":  # noqa: F405
    refuse("MARKETDATA_UPSTREAM=sandbox is not available with config.production (the "
           "production image ships without the simulator); set MARKETDATA_UPSTREAM=live, or "
           "run the sandbox with the development settings (make run, or "
           "DJANGO_SETTINGS_MODULE=config.settings)")
if not METRICS_TOKEN and not METRICS_PUBLIC:  # noqa: F405
    refuse("/metrics would be open to anyone: set METRICS_TOKEN (Prometheus sends it as "
           "'Authorization: Bearer <token>'), or METRICS_PUBLIC=true when only your own "
           "network can reach the service's port")
UPSTREAM_TRANSPORTS: dict[str, str] = {}
UPSTREAM_WEBSOCKETS: dict[str, str] = {}
INSTALLED_APPS = [app for app in INSTALLED_APPS if app != "marketdata.sandbox"]  # noqa: F405

SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", True)  # noqa: F405
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", SESSION_COOKIE_SECURE)  # noqa: F405
