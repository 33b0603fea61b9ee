from django.urls import path

from apps.forex.views import V2CurrenciesView, V2ForexView

urlpatterns = [
    path("v2/forex/<str:from>/<str:to>", V2ForexView.as_view(), name="v2-forex"),
    path("v2/currencies", V2CurrenciesView.as_view(), name="v2-currencies"),
]
