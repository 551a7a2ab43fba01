from django.urls import path

from matches import views

urlpatterns = [
    path("", views.home, name="home"),
    path("me/matches/", views.my_matches, name="my-matches"),
    path("organise/", views.organise, name="organise"),
]
