from apps.core.routing import routes_of
from apps.health import metrics, views

urlpatterns = routes_of(metrics, views)
