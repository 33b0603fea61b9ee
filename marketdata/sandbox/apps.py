"""Django app config, so ``manage.py sandbox_upstream`` is found once the app is installed."""

from django.apps import AppConfig


class SandboxConfig(AppConfig):
    name = "marketdata.sandbox"
    label = "sandbox"
    verbose_name = "Upstream sandbox"
