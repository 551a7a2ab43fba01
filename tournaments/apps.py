from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Tournaments, fixtures, organising and standings: built on the matches core."""

    name = "tournaments"

    def ready(self) -> None:
        from tournaments import subscribers  # noqa: PLC0415 (apps are loaded)

        subscribers.subscribe_all()
