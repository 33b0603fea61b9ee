from django.urls import path

from apps.risk.views import V2RiskView

urlpatterns = [
    path("v2/risk/<str:symbol>", V2RiskView.as_view(), name="v2-risk"),
]
