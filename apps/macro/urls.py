from django.urls import path

from apps.macro.views import V2MacroSeriesView, V2TreasuryYieldsView

urlpatterns = [
    path("v2/macro/series/<str:id>", V2MacroSeriesView.as_view(), name="v2-macro-series"),
    path("v2/macro/treasury-yields", V2TreasuryYieldsView.as_view(),
         name="v2-treasury-yields"),
]
