"""Routes of imported games, under ``/imports/``."""

from django.urls import path

from imports import views

app_name = "imports"

urlpatterns = [
    path("", views.imported_games, name="list"),
    path("<int:game_id>/", views.imported_game, name="game"),
    path("<int:game_id>/share/", views.share, name="share"),
    path("<int:game_id>/unshare/", views.unshare, name="unshare"),
    path("<int:game_id>/delete/", views.delete, name="delete"),
]
