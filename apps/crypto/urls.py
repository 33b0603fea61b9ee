from django.urls import path

from apps.crypto.views import (
    V2CoinsView,
    V2CoinView,
    V2CryptoGlobalView,
    V2CryptoSearchView,
    V2CryptoTrendingView,
)

urlpatterns = [
    path("v2/crypto/coins", V2CoinsView.as_view(), name="v2-crypto-coins"),
    path("v2/crypto/coins/<str:id>", V2CoinView.as_view(), name="v2-crypto-coin"),
    path("v2/crypto/global", V2CryptoGlobalView.as_view(), name="v2-crypto-global"),
    path("v2/crypto/trending", V2CryptoTrendingView.as_view(), name="v2-crypto-trending"),
    path("v2/crypto/search", V2CryptoSearchView.as_view(), name="v2-crypto-search"),
]
