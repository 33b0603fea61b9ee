from django.apps import AppConfig


class SectorsConfig(AppConfig):
    name = "apps.sectors"
    label = "sectors"
