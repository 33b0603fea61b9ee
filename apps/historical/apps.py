from django.apps import AppConfig


class HistoricalConfig(AppConfig):
    name = "apps.historical"
    label = "historical"
