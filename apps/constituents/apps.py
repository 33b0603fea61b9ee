from django.apps import AppConfig


class ConstituentsConfig(AppConfig):
    name = "apps.constituents"
