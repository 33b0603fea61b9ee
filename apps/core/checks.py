"""Start-up checks (Django's system checks, run by ``manage.py prepare`` and ``check``):
settings that work on one machine and break a fleet."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Warning, register


@register()
def generated_secret_key_with_shared_state(app_configs: Any = None,
                                           **kwargs: Any) -> list[CheckMessage]:
    """A generated SECRET_KEY (kept in this machine's var/) while the database or Redis is
    shared: an instance on another machine generates another key, and the sessions and CSRF
    tokens one signs are refused by the other."""
    shared = [name for name, value in (("DATABASE_URL", settings.DATABASE_URL),
                                       ("Redis", settings.REDIS_URL)) if value]
    if not getattr(settings, "SECRET_KEY_GENERATED", False) or not shared:
        return []
    return [Warning(
        f"SECRET_KEY is generated on this machine (var/secret_key) while {' and '.join(shared)} "
        "may be shared: instances on other machines would generate other keys and refuse "
        "each other's admin sessions",
        hint='Set the same SECRET_KEY on every instance (README "Scale-out")',
        id="marketdata.W001")]
