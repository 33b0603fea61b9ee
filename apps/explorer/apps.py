from django.apps import AppConfig


class ExplorerConfig(AppConfig):
    name = "apps.explorer"
    label = "explorer"

    def prepare(self) -> None:
        """``manage.py prepare``: the assets loaded and compressed once per host, before the
        server starts, not by each worker."""
        from apps.explorer import assets

        assets.warm()
