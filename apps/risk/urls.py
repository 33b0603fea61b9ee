from apps.core.routing import routes_of
from apps.risk import views

urlpatterns = routes_of(views)
