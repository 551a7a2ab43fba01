from django.apps import AppConfig


class PracticeConfig(AppConfig):
    name = "practice"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from practice import subscribers  # noqa: PLC0415 (apps are loaded)

        subscribers.subscribe_all()
