from apps.core.routing import routes_of
from apps.macro import views

urlpatterns = routes_of(views)
