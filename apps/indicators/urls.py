from apps.core.routing import routes_of
from apps.indicators import views

urlpatterns = routes_of(views)
