"""Word Skill rounds' pages, at ``/rounds/`` (the API and the socket are routed elsewhere)."""

from django.urls import path

from rounds import series_views, views

app_name = "rounds"

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("open/", views.open_match, name="open"),
    path("gramma-ana/", views.play_gramma_ana, name="gramma-ana"),
    path("<int:match_id>/", views.board, name="board"),
    path("<int:match_id>/join/", views.join, name="join"),
    path("<int:match_id>/start/", views.start_game, name="start-game"),
    path("<int:match_id>/replay/", views.replay, name="replay"),
    path("series/<int:tournament_id>/", series_views.series_page, name="series"),
    path(
        "series/<int:tournament_id>/sessions/<int:number>/check-in/",
        series_views.check_in,
        name="series-check-in",
    ),
]
