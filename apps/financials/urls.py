from apps.core.routing import routes_of
from apps.financials import views

urlpatterns = routes_of(views)
