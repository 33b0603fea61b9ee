from apps.core.routing import routes_of
from apps.crypto import views

urlpatterns = routes_of(views)
