from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Members"

    def ready(self) -> None:
        from accounts import lockouts  # noqa: F401, PLC0415  (connects the failure count)
        from accounts import sessions  # noqa: F401, PLC0415  (a sign-out closes its sockets)
