"""URL routes: pages, accounts, the JSON API, notifications, health."""

from django.contrib import admin
from django.urls import include, path

from wordduel.health import healthz, healthz_web
from wordduel.views import favicon, how_to_play

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("healthz/web", healthz_web, name="healthz-web"),
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("how-to-play/", how_to_play, name="how-to-play"),
    path("imports/", include("imports.urls")),
    path("api/", include("wordduel.api_urls")),
    path("notifications/", include("notifications.urls")),
    path("practice/", include("practice.urls")),
    path("challenges/", include("challenges.urls")),
    path("", include("ratings.urls")),
    path("", include("vacations.urls")),
    path("", include("matches.urls")),
]
