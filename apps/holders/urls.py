from django.urls import path

from apps.holders.views import HoldersAliasView, HoldersView

urlpatterns = [
    path("holders/<str:symbol>", HoldersView.as_view(), name="holders"),
    # The reference implementation's sub-routes and bodies (documented aliases).
    path("holders/<str:symbol>/<str:holder_type>", HoldersAliasView.as_view(),
         name="holders-by-path"),
]
