from apps.core.routing import routes_of
from apps.historical import views

urlpatterns = routes_of(views)
