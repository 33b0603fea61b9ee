from django.urls import path

from apps.feeds.views import V2CryptoNewsView, V2FearAndGreedView, V2FeedsView, V2ForexNewsView

# Mounted before apps.forex's and apps.crypto's: /v2/forex/news must not be read as the pair
# news/... of /v2/forex/{from}/{to}.
urlpatterns = [
    path("v2/feeds", V2FeedsView.as_view(), name="v2-feeds"),
    path("v2/forex/news", V2ForexNewsView.as_view(), name="v2-forex-news"),
    path("v2/crypto/news", V2CryptoNewsView.as_view(), name="v2-crypto-news"),
    path("v2/fear-and-greed", V2FearAndGreedView.as_view(), name="v2-fear-and-greed"),
]
