from django.apps import AppConfig


class GraphqlConfig(AppConfig):
    name = "apps.graphql"
    label = "graphql_api"
    verbose_name = "GraphQL endpoint (queries and subscriptions over the HTTP API)"
