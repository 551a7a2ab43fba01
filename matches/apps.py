from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = "Matches"

    def ready(self) -> None:
        from accounts import data_export  # noqa: PLC0415 (apps are loaded)
        from matches import own_data, subscribers  # noqa: PLC0415

        subscribers.subscribe_all()
        data_export.register("matches", own_data.matches_part)
