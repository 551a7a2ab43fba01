from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    name = "analysis"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # A replay's analysis asks the core's one registered finder of best plays.
        from analysis.best import best_play_of  # noqa: PLC0415 (apps are loaded)
        from matches.visibility import analysis  # noqa: PLC0415

        analysis.register(best_play_of)
