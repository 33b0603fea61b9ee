from apps.core.routing import routes_of
from apps.funds import views

urlpatterns = routes_of(views)
