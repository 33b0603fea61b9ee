from django.urls import path

from apps.similar.views import SimilarView, V2RecommendationsBatchView, V2RecommendationsView

urlpatterns = [
    path("similar", SimilarView.as_view(), name="similar"),
]
# The v2 routes, mounted at the root (config.urls mounts this module under v1/).
v2_urlpatterns = [
    path("v2/recommendations", V2RecommendationsBatchView.as_view(),
         name="v2-recommendations-batch"),
    path("v2/recommendations/<str:symbol>", V2RecommendationsView.as_view(),
         name="v2-recommendations"),
]
