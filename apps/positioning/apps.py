from django.apps import AppConfig


class PositioningConfig(AppConfig):
    name = "apps.positioning"
