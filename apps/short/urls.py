from apps.core.routing import routes_of
from apps.short import views

urlpatterns = routes_of(views)
