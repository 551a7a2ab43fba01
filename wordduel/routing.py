"""Websocket routes: one socket per viewer per match (``?key=`` for viewing-key holders)."""

from django.urls import URLPattern, path

from matches.live.consumer import MatchConsumer
from rounds.consumer import RoundsConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/matches/<int:match_id>/", MatchConsumer.as_asgi(), name="match-socket"),
    path("ws/rounds/<int:match_id>/", RoundsConsumer.as_asgi(), name="rounds-socket"),
]
