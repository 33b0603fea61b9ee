from django.urls import path

from apps.positioning.views import V2CotView

urlpatterns = [
    path("v2/positioning/cot/<str:symbol>", V2CotView.as_view(), name="v2-positioning-cot"),
]
