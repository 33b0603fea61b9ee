from django.urls import path

from apps.pressreleases.views import V2PressReleasesView

urlpatterns = [
    path("v2/press-releases/<str:symbol>", V2PressReleasesView.as_view(),
         name="v2-press-releases"),
]
