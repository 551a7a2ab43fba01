"""Challenge and rematch routes, at ``/challenges/``."""

from django.urls import path

from challenges import views

app_name = "challenges"

urlpatterns = [
    path("", views.challenge_list, name="list"),
    path("post/", views.post, name="post"),
    path("<int:challenge_id>/accept/", views.accept, name="accept"),
    path("<int:challenge_id>/withdraw/", views.withdraw, name="withdraw"),
    path("rematch/<int:match_id>/offer/", views.rematch_offer, name="rematch-offer"),
    path("rematch/<int:match_id>/accept/", views.rematch_accept, name="rematch-accept"),
    path("rematch/<int:match_id>/decline/", views.rematch_decline, name="rematch-decline"),
]
