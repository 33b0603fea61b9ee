from apps.core.routing import routes_of
from apps.hours import exchanges, views

urlpatterns = routes_of(exchanges, views)
