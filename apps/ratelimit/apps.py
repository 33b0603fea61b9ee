from django.apps import AppConfig


class RateLimitConfig(AppConfig):
    name = "apps.ratelimit"
    label = "ratelimit"
    verbose_name = "Rate limits and cache"
