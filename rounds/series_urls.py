"""The organiser's pages for a Word Skill tournament, at ``/organise/rounds-series/``."""

from django.urls import path

from rounds import series_views

urlpatterns = [
    path("", series_views.organise_new, name="rounds-series-new"),
    path("<int:tournament_id>/", series_views.organise_detail, name="rounds-series-organise"),
    path("<int:tournament_id>/enter/", series_views.organise_enter, name="rounds-series-enter"),
    path(
        "<int:tournament_id>/schedule/",
        series_views.organise_schedule,
        name="rounds-series-schedule",
    ),
]
