from django.urls import path

from apps.stream.views import QuoteStreamView

urlpatterns = [
    path("stream/quotes", QuoteStreamView.as_view(), name="stream-quotes"),
]
