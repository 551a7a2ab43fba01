"""URL routes: pages, accounts, the JSON API, notifications, health."""

from django.contrib import admin
from django.urls import include, path

from accounts.urls import urlpatterns as account_urls
from tournaments.membership_urls import urlpatterns as membership_urls
from wordduel.health import healthz, healthz_web
from wordduel.views import favicon, how_to_play

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("healthz/web", healthz_web, name="healthz-web"),
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("accounts/", include((account_urls + membership_urls, "accounts"))),
    path("how-to-play/", how_to_play, name="how-to-play"),
    path("imports/", include("imports.urls")),
    path("api/", include("wordduel.api_urls")),
    path("notifications/", include("notifications.urls")),
    path("practice/", include("practice.urls")),
    path("challenges/", include("challenges.urls")),
    path("rounds/", include("rounds.urls")),
    path("organise/rounds-series/", include("rounds.series_urls")),
    path("", include("ratings.urls")),
    path("", include("vacations.urls")),
    path("", include("tournaments.urls")),
    path("", include("matches.urls")),
]
