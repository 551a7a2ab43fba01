"""Page routes: home, a member's matches, a match (its seat, its key, its GCG and its
verification file), the word checker."""

from django.urls import path

from matches import views
from matches.words import words_page

urlpatterns = [
    path("", views.home, name="home"),
    path("me/matches/", views.my_matches, name="my-matches"),
    path("matches/<int:match_id>/", views.match_detail, name="match"),
    path("matches/<int:match_id>/seat/", views.match_take_seat, name="match-take-seat"),
    path("matches/<int:match_id>/key/", views.match_new_key, name="match-new-key"),
    path("words/", words_page, name="words"),
    # The GCG download sits beside the match page it exports (also under the API).
    path("matches/<int:match_id>/export.gcg", views.match_export_gcg, name="match-export-gcg"),
    # The offline fairness check: the viewer's record of a finished match plus a script.
    path("matches/<int:match_id>/verify.py", views.match_verification_file, name="match-verify"),
]
