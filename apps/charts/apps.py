from django.apps import AppConfig


class ChartsConfig(AppConfig):
    name = "apps.charts"
    label = "charts"
