from django.urls import path

from apps.holders.views import HoldersAliasView, HoldersView

urlpatterns = [
    path("v1/holders/<str:symbol>", HoldersView.as_view(), name="holders"),
    # The reference implementation's sub-routes and bodies (documented aliases).
    path("v1/holders/<str:symbol>/<str:holder_type>", HoldersAliasView.as_view(),
         name="holders-by-path"),
]
