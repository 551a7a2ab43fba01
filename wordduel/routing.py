"""Websocket routes: one socket per viewer per match (``?key=`` for viewing-key holders)."""

from django.urls import URLPattern, path

from matches.live.consumer import MatchConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/matches/<int:match_id>/", MatchConsumer.as_asgi(), name="match-socket"),
]
