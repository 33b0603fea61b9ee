"""Brute-force protection for the admin login.

A client (``limits.client_ip``: the socket peer, or the forwarded address a trusted proxy
vouches for; an IPv6 /64 counts as one client) that fails ``ADMIN_LOGIN_MAX_FAILURES`` (10)
logins within ``ADMIN_LOGIN_WINDOW_SECONDS`` (15 minutes) of its first failure is refused
at once, even with the right password, until that window has passed. Every failure, the
lock and every refused attempt are logged with the client (never the username or password).

Why not django-axes: the service already keeps its counters in the cache backend (Redis
shared by every process, or local memory for the one-process quick start), with atomic
``add``/``incr`` and no database tables; one rule over those counters is ~100 lines, while
axes brings its own models, migrations, authentication backend, middleware and settings.

When the cache cannot be reached the login is let through and an error is logged, like
the API rate limits: a cache outage must not lock the operators out of the admin.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.core.cache import cache as django_cache
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.debug import sensitive_post_parameters

from apps.ratelimit import limits
from marketdata.logs import get_logger

log = get_logger("apps.ratelimit.login")

_PREFIX = "md:adminlogin:"
REFUSED_TEMPLATE = "admin/ratelimit/login_refused.html"


@dataclass(frozen=True)
class LoginWindow:
    """One client's failures in its current window."""

    failures: int
    retry_in: int  # seconds until the window passes (0 when there is none)

    def locked(self, max_failures: int) -> bool:
        return self.failures >= max_failures


def max_failures() -> int:
    return int(settings.ADMIN_LOGIN_MAX_FAILURES)


def window_seconds() -> int:
    return int(settings.ADMIN_LOGIN_WINDOW_SECONDS)


def _keys(client: str) -> tuple[str, str]:
    return f"{_PREFIX}{client}:start", f"{_PREFIX}{client}:failures"


def current_window(client: str, now: float | None = None) -> LoginWindow:
    """The client's failures so far and when its window ends; a passed window is forgotten
    (the keys also expire on their own, this check keeps the rule exact to the second)."""
    now = time.time() if now is None else now
    start_key, count_key = _keys(client)
    values = django_cache.get_many([start_key, count_key])
    start = values.get(start_key)
    if start is None:
        return LoginWindow(0, 0)
    ends = float(start) + window_seconds()
    if now >= ends:
        django_cache.delete_many([start_key, count_key])
        return LoginWindow(0, 0)
    return LoginWindow(int(values.get(count_key) or 0), math.ceil(ends - now))


def record_failure(client: str, now: float | None = None) -> LoginWindow:
    """Count one failed login; the first failure opens the client's window. Atomic across
    processes (``add`` then ``incr``), so parallel guesses are all counted."""
    now = time.time() if now is None else now
    current_window(client, now)  # forget a window that has passed
    start_key, count_key = _keys(client)
    # The keys outlive the window a little: expiry is cleanup, the rule is the start time.
    ttl = window_seconds() + 60
    django_cache.add(start_key, now, timeout=ttl)
    django_cache.add(count_key, 0, timeout=ttl)
    try:
        django_cache.incr(count_key)
    except ValueError:  # expired between add and incr
        django_cache.add(count_key, 1, timeout=ttl)
    return current_window(client, now)


def reset(client: str) -> None:
    django_cache.delete_many(list(_keys(client)))


def _refused(request: HttpRequest, window: LoginWindow) -> HttpResponse:
    """The login page again, with the reason, as a 429 (no credentials were checked)."""
    from django.contrib.admin.forms import AdminAuthenticationForm

    minutes = max(1, math.ceil(window.retry_in / 60))
    context = {
        **admin.site.each_context(request),
        "title": "Log in",
        "subtitle": None,
        "app_path": request.get_full_path(),
        "username": "",
        "form": AdminAuthenticationForm(request),
        REDIRECT_FIELD_NAME: request.POST.get(REDIRECT_FIELD_NAME)
        or request.GET.get(REDIRECT_FIELD_NAME) or reverse("admin:index"),
        "login_refused": f"Too many failed login attempts from your address. Try again in "
                         f"{minutes} minute{'' if minutes == 1 else 's'}.",
    }
    response = TemplateResponse(request, REFUSED_TEMPLATE, context, status=429)
    response["Retry-After"] = str(window.retry_in)
    return response


@sensitive_post_parameters()
@csrf_protect
@never_cache
def admin_login(request: HttpRequest) -> HttpResponse:
    """``/admin/login/``: the admin's own login view behind the failure counter."""
    if request.method != "POST":
        return admin.site.login(request)
    client = limits.client_ip(request.META)
    limit = max_failures()
    try:
        window = current_window(client)
    except Exception:  # the cache is down: let the login through (logged)
        log.error("admin login throttle unavailable; login not throttled", client=client,
                  exc_info=True)
        return admin.site.login(request)
    if window.locked(limit):
        log.warning("admin login refused: too many failures", client=client,
                    failures=window.failures, retry_in_seconds=window.retry_in)
        return _refused(request, window)
    response = admin.site.login(request)
    user = getattr(request, "user", None)
    if response.status_code == 200 and not (user is not None and user.is_authenticated):
        # The form came back: wrong credentials (or an inactive or non-staff account).
        try:
            window = record_failure(client)
        except Exception:
            log.error("admin login failure not counted", client=client, exc_info=True)
            return response
        log.warning("admin login failed", client=client, failures=window.failures,
                    max_failures=limit)
        if window.locked(limit):
            log.warning("admin login locked for this client", client=client,
                        failures=window.failures, retry_in_seconds=window.retry_in)
    return response
