"""Notification routes: settings, unsubscribe, push subscriptions, the service worker."""

from django.urls import path

from notifications import views

app_name = "notifications"

urlpatterns = [
    path("settings/", views.settings_page, name="settings"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("push/subscribe/", views.push_subscribe, name="push-subscribe"),
    path("push/unsubscribe/", views.push_unsubscribe, name="push-unsubscribe"),
    path("sw.js", views.service_worker, name="service-worker"),
]
