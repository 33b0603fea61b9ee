from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "apps.core"
    label = "core"
    verbose_name = "Core (middleware, errors, rendering)"

    def ready(self) -> None:
        from apps.core import checks  # noqa: F401 - registers the start-up checks
