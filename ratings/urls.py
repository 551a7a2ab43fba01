"""Ratings pages: the leaderboards and the players' pages."""

from django.urls import path, register_converter

from ratings import views


class UsernameConverter:
    """A username as members may have one (Django's ASCII username rule): anything else, a
    NUL byte included, which PostgreSQL would refuse in a query, is a 404 before any view."""

    regex = r"[A-Za-z0-9_.@+-]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(UsernameConverter, "username")

app_name = "ratings"
urlpatterns = [
    path("ratings/", views.leaderboard, name="leaderboard"),
    path("ratings/<str:ruleset>/", views.leaderboard, name="leaderboard-ruleset"),
    path("players/<username:username>/", views.player, name="player"),
]
