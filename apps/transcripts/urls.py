from apps.core.routing import routes_of
from apps.transcripts import views

urlpatterns = routes_of(views)
