"""``manage.py grant_organiser USERNAME [--revoke]``: make a member an organiser, or stop."""

from argparse import ArgumentParser
from typing import Any

from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand, CommandError

from accounts.models import Member


def organise_permission() -> Permission:
    """The ``accounts.organise`` permission row."""
    return Permission.objects.get(content_type__app_label="accounts", codename="organise")


class Command(BaseCommand):
    help = "Grant (or with --revoke, take away) the organiser permission accounts.organise."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("username")
        parser.add_argument(
            "--revoke", action="store_true", help="Take the organiser permission away."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        username: str = options["username"]
        try:
            member = Member.objects.get(username=username)
        except Member.DoesNotExist:
            raise CommandError(f"There is no member called {username!r}.") from None
        permission = organise_permission()
        if options["revoke"]:
            member.user_permissions.remove(permission)
        else:
            member.user_permissions.add(permission)
        member = Member.objects.get(pk=member.pk)  # a fresh object: no stale permission cache
        verb = "is now" if member.is_organiser else "is no longer"
        note = " (a superuser holds every permission)" if member.is_superuser else ""
        self.stdout.write(f"{member.username} {verb} an organiser{note}.")
