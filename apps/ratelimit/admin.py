"""Admin pages for the rate-limit counters and the cache statistics.

Both read state kept in the cache backend, not in the database: the models are unmanaged
registry entries (see :mod:`apps.ratelimit.models`), and each admin serves one custom page
instead of Django's changelist. The pages sit behind the admin's login (active staff), the
model's ``view`` permission to see them and, for the counters, its ``change`` permission to
reset them. Nothing under /admin/ passes the API rate limits (they cover /v1/ and /v2/ only).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.views.decorators.http import require_POST

from apps.ratelimit import cachestats, limits
from apps.ratelimit.models import CacheStatistic, RateLimitCounter

SEARCH_VAR = "q"


def _utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


class _PageAdmin(admin.ModelAdmin):
    """A model admin whose changelist is one custom page: no objects, no add/delete forms,
    no change or history views (the models have no table)."""

    page_title = ""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def _url_name(self, view: str) -> str:
        return f"{self.opts.app_label}_{self.opts.model_name}_{view}"

    def changelist_url(self) -> str:
        return reverse(f"{self.admin_site.name}:{self._url_name('changelist')}")

    def get_urls(self) -> list[URLPattern]:
        return [path("", self.admin_site.admin_view(self.changelist_view),
                     name=self._url_name("changelist"))]

    def page_context(self, request: HttpRequest) -> dict[str, Any]:
        """What every admin page has (site header, sidebar, user links, permissions)."""
        return {
            **self.admin_site.each_context(request),
            "title": self.page_title,
            "opts": self.opts,
            "app_label": self.opts.app_label,
            "has_view_permission": self.has_view_permission(request),
            "has_change_permission": self.has_change_permission(request),
            "now": _utc(datetime.now(UTC)),
        }


@admin.register(RateLimitCounter)
class RateLimitCounterAdmin(_PageAdmin):
    """Today's v1 quota counters (search, reset) and the v2 token bucket's level."""

    page_title = "Rate-limit counters (today)"

    def get_urls(self) -> list[URLPattern]:
        return [*super().get_urls(),
                path("reset/", self.admin_site.admin_view(require_POST(self.reset_view)),
                     name=self._url_name("reset"))]

    def changelist_view(self, request: HttpRequest,
                        extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        query = request.GET.get(SEARCH_VAR, "").strip()
        context = {**self.page_context(request), "search_var": SEARCH_VAR, "query": query,
                   "reset_url": reverse(f"{self.admin_site.name}:{self._url_name('reset')}"),
                   **self._quota_facts(), **self._counters(query), **self._bucket(query),
                   "per_process": cachestats.is_per_process(),
                   **(extra_context or {})}
        return TemplateResponse(request, "admin/ratelimit/counters.html", context)

    @staticmethod
    def _quota_facts() -> dict[str, Any]:
        proxies = limits.trusted_proxies()
        return {
            "limiting_enabled": settings.USE_SECURITY,
            "daily_limit": limits.daily_limit(),
            "window": "calendar day, UTC",
            "trusted_proxies": [str(network) for network in proxies],
            "health_cooldown": limits.health_cooldown(),
            "admin_key_set": bool(settings.ADMIN_API_KEY),
        }

    @staticmethod
    def _counters(query: str) -> dict[str, Any]:
        try:
            counters = limits.today_counters(query)
        except Exception as exc:  # noqa: BLE001 - a backend outage is shown, never a 500
            return {"counters": [], "counters_error": cachestats.describe(exc)}
        now = datetime.now(UTC).replace(microsecond=0)
        rows = [{"client": row.client, "count": row.count, "remaining": row.remaining,
                 "reset_in": row.reset_in,
                 "reset_at": _utc(now + timedelta(seconds=row.reset_in))}
                for row in counters]
        return {"counters": rows, "counters_error": None}

    @staticmethod
    def _bucket(query: str) -> dict[str, Any]:
        config = limits.bucket_config()
        try:
            levels = limits.bucket_levels(config, search=query)
        except Exception as exc:  # noqa: BLE001 - shown on the page
            return {"bucket": config, "bucket_levels": [],
                    "bucket_error": cachestats.describe(exc)}
        rows = [{"client": level.client, "tokens": f"{level.tokens:.2f}",
                 "capacity": level.capacity,
                 "fill": f"{level.tokens / level.capacity * 100:.1f}%"
                 if level.capacity else cachestats.DASH}
                for level in levels]
        return {"bucket": config, "bucket_levels": rows, "bucket_error": None}

    def reset_view(self, request: HttpRequest) -> HttpResponse:
        """POST: forget today's count (and health cooldown) of the selected clients."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        query = request.POST.get(SEARCH_VAR, "").strip()
        target = self.changelist_url() + (f"?{urlencode({SEARCH_VAR: query})}" if query else "")
        selected = list(dict.fromkeys(c.strip() for c in request.POST.getlist("client")
                                      if c.strip()))
        if not selected:
            self.message_user(request, "No clients selected: nothing was reset.",
                              messages.WARNING)
            return HttpResponseRedirect(target)
        try:
            # Only clients counted today: anything else names no counter (and is not used
            # to build cache keys).
            known = {row.client for row in limits.today_counters()}
            clients = [c for c in selected if c in known]
            if clients:
                limits.reset_counters(clients)
        except Exception as exc:  # noqa: BLE001 - shown as a message, never a 500
            self.message_user(request, f"Reset failed: {cachestats.describe(exc)}",
                              messages.ERROR)
            return HttpResponseRedirect(target)
        if clients:
            self.message_user(request, f"Reset today's counter of {len(clients)} "
                              f"client{'' if len(clients) == 1 else 's'}: "
                              f"{', '.join(clients)}.", messages.SUCCESS)
        gone = len(selected) - len(clients)
        if gone:
            self.message_user(request, f"{gone} selected client{'' if gone == 1 else 's'} "
                              "had no counter today (already reset, or the day ended).",
                              messages.WARNING)
        return HttpResponseRedirect(target)


@admin.register(CacheStatistic)
class CacheStatisticAdmin(_PageAdmin):
    """Hit/miss/stale/error counts per provider and endpoint group, backend facts and this
    process's circuit breakers and upstream lanes."""

    page_title = "Cache statistics"

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # read-only page

    def changelist_view(self, request: HttpRequest,
                        extra_context: dict[str, Any] | None = None) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        context = {**self.page_context(request), "stats": cachestats.read_statistics(),
                   "flush_seconds": cachestats.stats.FLUSH_SECONDS,
                   "breakers": cachestats.breaker_rows(), "lanes": cachestats.lane_rows(),
                   **(extra_context or {})}
        return TemplateResponse(request, "admin/ratelimit/cache_stats.html", context)
