"""Practice routes, at ``/practice/``."""

from django.urls import path

from practice import views

app_name = "practice"

urlpatterns = [
    path("", views.start, name="start"),
    path("now/", views.play_now, name="play-now"),
    path("<int:match_id>/level/", views.level, name="level"),
    path("<int:match_id>/seat/", views.seat, name="seat"),
]
