from apps.core.routing import routes_of
from apps.feeds import views

urlpatterns = routes_of(views)
