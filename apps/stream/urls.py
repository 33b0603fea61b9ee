from apps.core.routing import routes_of
from apps.stream import views

urlpatterns = routes_of(views)
