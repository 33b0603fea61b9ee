from django.apps import AppConfig


class WorldnewsConfig(AppConfig):
    name = "apps.worldnews"
