from django.apps import AppConfig


class FuturesConfig(AppConfig):
    name = "apps.futures"
