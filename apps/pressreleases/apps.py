from django.apps import AppConfig


class PressreleasesConfig(AppConfig):
    name = "apps.pressreleases"
