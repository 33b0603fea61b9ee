"""Root URLs: the v1 and v2 API, schema and docs (served offline), admin; JSON 404s."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView

from apps.core.openapi import OpenApiDocumentView
from apps.ratelimit.login_throttle import admin_login
from apps.stream.views import websocket_docs

urlpatterns = [
    path("", include("apps.health.urls")),  # /, readyz, v1/ping, v1/health, v2/health
    path("", include("apps.historical.urls")),
    path("", include("apps.quotes.urls")),  # v1 and v2 routes
    path("", include("apps.stream.urls")),
    path("", include("apps.movers.urls")),
    path("", include("apps.indices.urls")),
    path("", include("apps.sectors.urls")),
    path("", include("apps.search.urls")),
    path("", include("apps.similar.urls")),
    path("", include("apps.news.urls")),
    path("", include("apps.analysis.urls")),  # v1 and v2 routes
    path("", include("apps.holders.urls")),  # v1 and v2 routes
    path("", include("apps.financials.urls")),
    path("", include("apps.transcripts.urls")),
    path("", include("apps.indicators.urls")),  # v1 and v2 routes
    path("", include("apps.charts.urls")),  # v2: chart, charts, capital gains
    path("", include("apps.calendar.urls")),  # v2: calendar
    path("", include("apps.hours.urls")),  # v2: market hours
    path("", include("apps.macro.urls")),  # v2: macro series, treasury yields
    path("", include("apps.positioning.urls")),  # v2: weekly positioning (COT)
    path("", include("apps.worldnews.urls")),  # v2: world news with sentiment
    # v2: feeds, crypto/forex news, fear & greed; before apps.forex and apps.crypto, so
    # /v2/forex/news and /v2/crypto/news are these routes
    path("", include("apps.feeds.urls")),
    path("", include("apps.forex.urls")),  # v2: currency pairs
    path("", include("apps.futures.urls")),  # v2: futures quotes
    path("", include("apps.options.urls")),  # v2: option chains
    path("", include("apps.crypto.urls")),  # v2: crypto coins, market, trending, search
    path("", include("apps.analysts.urls")),  # v2: grading actions, price targets
    path("", include("apps.profiles.urls")),  # v2: company profiles
    path("", include("apps.pressreleases.urls")),  # v2: press releases
    path("", include("apps.constituents.urls")),  # v2: index constituents
    # v2: 13F holdings and filers; before the symbol routes of /v2/filings/ (its literal
    # /v2/filings/13f/search must never reach a <symbol> pattern of another app).
    path("", include("apps.ownership.urls")),
    path("", include("apps.disclosures.urls")),  # v2: fails-to-deliver, congressional trades
    path("", include("apps.backtest.urls")),  # v2: strategy backtests
    path("", include("apps.risk.urls")),  # v2: risk metrics
    path("", include("apps.filings.urls")),  # v2: SEC filings, facts, search
    path("", include("apps.funds.urls")),  # v2: ETF and fund holdings (N-PORT)
    path("", include("apps.short.urls")),  # v2: short sale volume, short interest (FINRA)
    path("", include("apps.explorer.urls")),  # the explorer page for browsers, its assets
    path("", include("apps.graphql.urls")),  # GraphiQL's assets (the page: /graphql)
    # Compact, built once per process, with its encodings (apps.core.openapi).
    path("openapi.json", OpenApiDocumentView.as_view(), name="schema"),
    path("docs/websockets", websocket_docs, name="docs-websockets"),
    path("docs", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("redoc", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    # The admin's login behind the failure throttle; the rest of the admin as Django has it.
    path("admin/login/", admin_login, name="admin-login"),
    path("admin/", admin.site.urls),
]

handler404 = "apps.core.views.not_found"
handler500 = "apps.core.views.server_error"
handler400 = "apps.core.views.bad_request"
handler403 = "apps.core.views.permission_denied"
