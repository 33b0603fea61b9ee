from apps.analysis import views
from apps.core.routing import routes_of

urlpatterns = routes_of(views)
