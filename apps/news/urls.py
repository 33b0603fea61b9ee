from django.urls import path

from apps.news.views import NewsView, V2MarketNewsView, V2SymbolNewsView

urlpatterns = [
    path("news", NewsView.as_view(), name="news"),
]

# The v2 routes, mounted at the root (config.urls mounts this module under v1/).
v2_urlpatterns = [
    path("v2/news", V2MarketNewsView.as_view(), name="v2-news"),
    path("v2/news/<str:symbol>", V2SymbolNewsView.as_view(), name="v2-symbol-news"),
]
