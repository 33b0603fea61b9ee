from django.apps import AppConfig


class IndicatorsConfig(AppConfig):
    name = "apps.indicators"
    label = "indicators"
