from django.apps import AppConfig


class ImportsConfig(AppConfig):
    name = "imports"
    verbose_name = "Imported games"

    def ready(self) -> None:
        # The tasks register by name: the services queue them so (they import no task).
        from imports import subscribers, tasks  # noqa: F401, PLC0415 (apps are loaded)

        subscribers.subscribe_all()
