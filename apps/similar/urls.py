from apps.core.routing import routes_of
from apps.similar import views

urlpatterns = routes_of(views)
