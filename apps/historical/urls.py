from django.urls import path

from apps.historical.views import HistoricalView

urlpatterns = [path("historical", HistoricalView.as_view(), name="historical")]
