from django.urls import path

from apps.explorer.views import asset, explorer

urlpatterns = [
    path("explorer", explorer, name="explorer"),
    path("explorer/assets/<str:digest>/<str:name>", asset, name="explorer-asset"),
]
