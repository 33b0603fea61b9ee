// GraphiQL on this service's own origin (apps/graphql/graphiql.py): no inline script, no
// CDN. The endpoint's path is the page's data-endpoint (/graphql, after the proxy's
// prefix if any). Queries and mutations are POSTed there as JSON; subscriptions use the
// same path over WebSocket (graphql-transport-ws: the graphql-ws client inside GraphiQL's
// bundle), ws: or wss: as the page's own scheme.
(function () {
  "use strict";
  var root = document.getElementById("graphiql");
  var endpoint = new URL(root.dataset.endpoint, document.baseURI);
  var socket = new URL(endpoint.href);
  socket.protocol = endpoint.protocol === "https:" ? "wss:" : "ws:";
  var fetcher = GraphiQL.createFetcher({
    url: endpoint.pathname + endpoint.search,
    subscriptionUrl: socket.href,
  });
  ReactDOM.createRoot(root).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: root.dataset.defaultQuery,
      defaultEditorToolsVisibility: true,
    }),
  );
})();
