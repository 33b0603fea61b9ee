from django.urls import path

from apps.profiles.views import V2CompanyProfileView

urlpatterns = [
    path("v2/company-profile/<str:symbol>", V2CompanyProfileView.as_view(),
         name="v2-company-profile"),
]
