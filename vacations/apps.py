from django.apps import AppConfig


class VacationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "vacations"
    verbose_name = "Vacations"

    def ready(self) -> None:
        # The core reads the players' time away through the one reader registered here.
        from matches import away  # noqa: PLC0415
        from vacations.pauses import effective_turn_deadline  # noqa: PLC0415
        from vacations.selectors import time_away  # noqa: PLC0415

        away.register(time_away, deadline=effective_turn_deadline)
