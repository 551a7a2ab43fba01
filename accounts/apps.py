from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Members"

    def ready(self) -> None:
        # The failures counted per address; a sign-out closing the session's sockets.
        from accounts import lockouts, sessions  # noqa: F401, PLC0415
