from apps.core.routing import routes_of
from apps.movers import views

urlpatterns = routes_of(views)
