from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = "Ratings"

    def ready(self) -> None:
        from ratings import subscribers  # noqa: PLC0415 (apps are loaded)

        subscribers.subscribe_all()
