"""Admin registry entries for the rate-limit counters and the cache statistics.

Neither lives in the database: the counters and the statistics are kept in the cache
backend (Redis or local memory), where the middleware and :mod:`marketdata.cache` write
them. These unmanaged models have no table; they exist so the two admin pages appear in the
admin index (under "Rate limits and cache") and are guarded by Django's model permissions:
``view`` to see a page, ``change`` on the counters to reset them.
"""

from django.db import models


class RateLimitCounter(models.Model):
    """Today's v1 quota counters and the v2 token bucket (read from the cache backend)."""

    class Meta:
        managed = False
        default_permissions = ("view", "change")
        verbose_name = "rate-limit counter"
        verbose_name_plural = "rate-limit counters"

    def __str__(self) -> str:
        return "rate-limit counter"


class CacheStatistic(models.Model):
    """Hit/miss/stale/error counts per provider and endpoint group, and backend facts."""

    class Meta:
        managed = False
        default_permissions = ("view",)
        verbose_name = "cache statistic"
        verbose_name_plural = "cache statistics"

    def __str__(self) -> str:
        return "cache statistic"
