from django.urls import path

from apps.quotes.views import QuotesView, SimpleQuotesView

urlpatterns = [
    path("quotes", QuotesView.as_view(), name="quotes"),
    path("simple-quotes", SimpleQuotesView.as_view(), name="simple-quotes"),
]
