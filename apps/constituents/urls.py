from django.urls import path

from apps.constituents.views import V2IndexConstituentsView

urlpatterns = [
    path("v2/index-constituents/<str:symbol>", V2IndexConstituentsView.as_view(),
         name="v2-index-constituents"),
]
