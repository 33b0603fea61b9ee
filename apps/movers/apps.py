from django.apps import AppConfig


class MoversConfig(AppConfig):
    name = "apps.movers"
    label = "movers"
