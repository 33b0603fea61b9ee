from django.apps import AppConfig


class StreamConfig(AppConfig):
    name = "apps.stream"
    label = "stream"
