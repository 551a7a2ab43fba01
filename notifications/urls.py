"""Notification routes: settings, unsubscribe, push subscriptions, the service worker,
calendar feeds, and the match page's "your move" helpers."""

from django.urls import path

from notifications import views

app_name = "notifications"

urlpatterns = [
    path("settings/", views.settings_page, name="settings"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("push/subscribe/", views.push_subscribe, name="push-subscribe"),
    path("push/unsubscribe/", views.push_unsubscribe, name="push-unsubscribe"),
    path("sw.js", views.service_worker, name="service-worker"),
    path(
        "calendar/<int:member_id>/<str:secret>.ics",
        views.member_calendar,
        name="calendar-member",
    ),
    path(
        "calendar/<int:member_id>/<str:secret>/tournaments/<int:tournament_id>.ics",
        views.member_tournament_calendar,
        name="calendar-member-tournament",
    ),
    path(
        "calendar/tournaments/<int:tournament_id>.ics",
        views.tournament_calendar,
        name="calendar-tournament",
    ),
    path("calendar/rotate/", views.rotate_calendar, name="calendar-rotate"),
    path("next-move/", views.next_move, name="next-move"),
    path("waiting/", views.waiting, name="waiting"),
]
