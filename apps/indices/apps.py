from django.apps import AppConfig


class IndicesConfig(AppConfig):
    name = "apps.indices"
    label = "indices"
