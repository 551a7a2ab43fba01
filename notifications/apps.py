from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        # The tasks register by name: the services queue them so (they import no task).
        from notifications import subscribers, tasks  # noqa: F401, PLC0415 (apps are loaded)

        subscribers.subscribe_all()
