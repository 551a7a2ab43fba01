"""Page routes: home, a member's matches, a match (and its GCG), a tournament, organising
(schedule; the fixture list and its actions), the word checker."""

from django.urls import path

from matches import organise_views, views
from matches.words import words_page

urlpatterns = [
    path("", views.home, name="home"),
    path("me/matches/", views.my_matches, name="my-matches"),
    path("matches/<int:match_id>/", views.match_detail, name="match"),
    path("matches/<int:match_id>/seat/", views.match_take_seat, name="match-take-seat"),
    path("matches/<int:match_id>/key/", views.match_new_key, name="match-new-key"),
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/<int:tournament_id>/", views.tournament_detail, name="tournament"),
    path("words/", words_page, name="words"),
    path("organise/", views.organise, name="organise"),
    path("organise/fixture/", views.organise_fixture, name="organise-fixture"),
    path("organise/round-robin/", views.organise_round_robin, name="organise-round-robin"),
    path("organise/fixtures/", organise_views.organise_fixtures, name="organise-fixtures"),
    path(
        "organise/fixtures/<int:match_id>/reschedule/",
        organise_views.fixture_reschedule,
        name="organise-reschedule",
    ),
    path(
        "organise/fixtures/<int:match_id>/cancel/",
        organise_views.fixture_cancel,
        name="organise-cancel",
    ),
    path(
        "organise/fixtures/<int:match_id>/substitute/",
        organise_views.fixture_substitute,
        name="organise-substitute",
    ),
    path(
        "organise/fixtures/<int:match_id>/adjudicate/",
        organise_views.match_adjudicate,
        name="organise-adjudicate",
    ),
    path(
        "organise/tournaments/<int:tournament_id>/postpone/",
        organise_views.round_postpone,
        name="organise-postpone",
    ),
    # The GCG download sits beside the match page it exports (also under the API).
    path("matches/<int:match_id>/export.gcg", views.match_export_gcg, name="match-export-gcg"),
    # The offline fairness check: the viewer's record of a finished match plus a script.
    path("matches/<int:match_id>/verify.py", views.match_verification_file, name="match-verify"),
]
