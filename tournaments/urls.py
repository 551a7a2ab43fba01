"""Page routes of tournaments and organising: the lists, a tournament, a league, the
organiser's forms and the fixture list with its actions."""

from django.urls import path

from tournaments import director_views, league_views, organise_views, views

urlpatterns = [
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/<int:tournament_id>/", views.tournament_detail, name="tournament"),
    path(
        "tournaments/<int:tournament_id>/results.csv",
        views.tournament_results_csv,
        name="tournament-results-csv",
    ),
    path(
        "tournaments/<int:tournament_id>/standings.csv",
        views.tournament_standings_csv,
        name="tournament-standings-csv",
    ),
    path(
        "tournaments/<int:tournament_id>/results.t",
        views.tournament_tsh_file,
        name="tournament-tsh",
    ),
    path("organise/", views.organise, name="organise"),
    path("organise/fixture/", views.organise_fixture, name="organise-fixture"),
    path("organise/round-robin/", views.organise_round_robin, name="organise-round-robin"),
    path("organise/swiss/", views.organise_swiss, name="organise-swiss"),
    path("organise/league/", views.organise_league, name="organise-league"),
    path("leagues/<int:league_id>/", league_views.league_detail, name="league"),
    path(
        "organise/leagues/<int:league_id>/next-season/",
        league_views.league_next_season,
        name="organise-league-next-season",
    ),
    path(
        "organise/leagues/<int:league_id>/withdraw/",
        league_views.league_withdraw,
        name="organise-league-withdraw",
    ),
    path("organise/knockout/", views.organise_knockout, name="organise-knockout"),
    path(
        "organise/tournaments/<int:tournament_id>/advance/",
        views.knockout_advance,
        name="organise-knockout-advance",
    ),
    path(
        "organise/tournaments/<int:tournament_id>/pair/",
        views.swiss_pair_round,
        name="organise-swiss-pair",
    ),
    path(
        "organise/tournaments/<int:tournament_id>/director/",
        director_views.director_page,
        name="organise-director",
    ),
    path(
        "organise/tournaments/<int:tournament_id>/director/tie-breaks/",
        director_views.set_tie_breaks,
        name="organise-tie-breaks",
    ),
    path(
        "organise/tournaments/<int:tournament_id>/director/turn-time/",
        director_views.set_turn_time,
        name="organise-turn-time",
    ),
    path(
        "organise/tournaments/<int:tournament_id>/director/enter/",
        director_views.enter_late,
        name="organise-enter",
    ),
    path(
        "organise/tournaments/<int:tournament_id>/director/withdraw/",
        director_views.withdraw,
        name="organise-withdraw",
    ),
    path(
        "organise/tournaments/<int:tournament_id>/director/entries/",
        director_views.import_entries,
        name="organise-entries",
    ),
    path("organise/members/import/", director_views.import_members, name="organise-members-import"),
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
]
