from apps.core.routing import routes_of
from apps.quotes import views

urlpatterns = routes_of(views)
