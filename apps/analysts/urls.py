from django.urls import path

from apps.analysts.views import (
    V2EarningsSurprisesView,
    V2GradingActionsView,
    V2PriceTargetConsensusView,
    V2PriceTargetSummaryView,
)

urlpatterns = [
    path("v2/grading-actions/<str:symbol>", V2GradingActionsView.as_view(),
         name="v2-grading-actions"),
    path("v2/price-target-consensus/<str:symbol>", V2PriceTargetConsensusView.as_view(),
         name="v2-price-target-consensus"),
    path("v2/price-target-summary/<str:symbol>", V2PriceTargetSummaryView.as_view(),
         name="v2-price-target-summary"),
    path("v2/earnings-surprises/<str:symbol>", V2EarningsSurprisesView.as_view(),
         name="v2-earnings-surprises"),
]
