from django.apps import AppConfig


class RiskConfig(AppConfig):
    name = "apps.risk"
    label = "risk"
