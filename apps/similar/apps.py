from django.apps import AppConfig


class SimilarConfig(AppConfig):
    name = "apps.similar"
    label = "similar"
