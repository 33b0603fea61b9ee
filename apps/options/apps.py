from django.apps import AppConfig


class OptionsConfig(AppConfig):
    name = "apps.options"
