from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        from notifications import subscribers  # noqa: PLC0415 (apps are loaded)

        subscribers.subscribe_all()
