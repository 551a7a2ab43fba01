from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Tournaments, fixtures, organising and standings: built on the matches core."""

    name = "tournaments"
