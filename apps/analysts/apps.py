from django.apps import AppConfig


class AnalystsConfig(AppConfig):
    name = "apps.analysts"
