"""Ratings pages: the leaderboards and the players' pages."""

from django.urls import path

from ratings import views

app_name = "ratings"
urlpatterns = [
    path("ratings/", views.leaderboard, name="leaderboard"),
    path("ratings/<str:ruleset>/", views.leaderboard, name="leaderboard-ruleset"),
    path("players/<str:username>/", views.player, name="player"),
]
