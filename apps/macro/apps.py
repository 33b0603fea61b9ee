from django.apps import AppConfig


class MacroConfig(AppConfig):
    name = "apps.macro"
