"""``manage.py demo [--if-empty] [--reset-password]``: members, an organiser and fixtures to
try the site with, and a way back in to them.

Everything is created through the services, exactly as the organiser's pages would. The demo
members share one password, printed once; a password cannot be read back from its hash, so
``--reset-password`` gives them a new one and prints it. Generated passwords avoid characters
that look alike in print (0 and O, 1, l and I), so they can be read off a terminal and typed.
"""

from __future__ import annotations

import secrets
from argparse import ArgumentParser
from datetime import timedelta
from typing import Any

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from accounts import services as account_services
from accounts.models import Member
from matches.models import Match
from tournaments import services as tournament_services
from tournaments.membership_views import invitation_link

PLAYERS = ("alice", "bob", "carol", "dave")
ORGANISER = "organiser"
#: A sign-up the organiser has yet to approve (the club's default policy is approval).
PENDING_SIGN_UP = "erin"
DEMO_MEMBERS = (*PLAYERS, ORGANISER)

#: Letters and digits that cannot be mistaken for one another when read: no 0/O/o, 1/l/I/i.
LEGIBLE_CHARACTERS = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
PASSWORD_GROUPS, PASSWORD_GROUP_LENGTH = 3, 4
RESET_COMMAND = "python manage.py demo --reset-password"


def new_password() -> str:
    """A random password in three groups of four, e.g. ``tq7M-k4xe-9RbN`` (about 69 bits)."""
    return "-".join(
        "".join(secrets.choice(LEGIBLE_CHARACTERS) for _ in range(PASSWORD_GROUP_LENGTH))
        for _ in range(PASSWORD_GROUPS)
    )


class Command(BaseCommand):
    help = (
        "Create demo members, an organiser, a round robin and two fixtures; print sign-ins. "
        "With --reset-password: give the demo members a new password and print it."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Do nothing when any member exists already (for `make run`); say who the "
            "demo members are, if they exist.",
        )
        parser.add_argument(
            "--reset-password",
            action="store_true",
            help="Set a new password for the demo members (and print it) instead of creating "
            "anything.",
        )
        parser.add_argument(
            "--password",
            help="The password for every demo account (default: a fresh random one, printed).",
        )
        parser.add_argument(
            "--host", default="http://127.0.0.1:8000", help="Where the site is served."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        host = options["host"].rstrip("/")
        taken = sorted(
            Member.objects.filter(username__in=DEMO_MEMBERS).values_list("username", flat=True)
        )
        if options["reset_password"]:
            self._reset(taken, options["password"] or new_password(), host)
            return
        if options["if_empty"] and Member.objects.exists():
            self.stdout.write("Members exist already; no demo data added.")
            if taken:
                self._remind(taken, host)
            return
        if taken:
            self.stderr.write(f"Demo usernames already in use: {', '.join(taken)}. Nothing done.")
            self.stderr.write(f"For a new password for them: `{RESET_COMMAND}`.")
            return
        password = options["password"] or new_password()
        with transaction.atomic():
            summary = self._create(password)
        self._print(summary, password, host)

    def _remind(self, taken: list[str], host: str) -> None:
        """Who the demo members are, and how to get in as one (a later `make run`)."""
        write = self.stdout.write
        players = [name for name in PLAYERS if name in taken]
        if players:
            write(f"  Demo members: {', '.join(players)}")
        if ORGANISER in taken:
            write(f"  Demo organiser: {ORGANISER}")
        write("  They share the password printed when the demo data was made.")
        write(f"  Lost it? `{RESET_COMMAND}` sets a new one and prints it.")
        write(f"  Sign in at {host}/accounts/sign-in/")

    def _reset(self, taken: list[str], password: str, host: str) -> None:
        """Give every demo member that exists ``password``, and print it."""
        if not taken:
            self.stderr.write(
                "There are no demo members here. `python manage.py demo` creates them."
            )
            return
        with transaction.atomic():
            for member in Member.objects.select_for_update().filter(username__in=taken):
                member.set_password(password)
                member.save(update_fields=["password"])
        write = self.stdout.write
        write(self.style.SUCCESS("New password set."))
        write(f"  Demo members: {', '.join(taken)}")
        write(f"  Password for all of them: {password}")
        write(f"Sign in at {host}/accounts/sign-in/")

    def _create(self, password: str) -> dict[str, Any]:
        players = {
            name: Member.objects.create_user(
                username=name, password=password, display_name="", email=f"{name}@example.org"
            )
            for name in PLAYERS
        }
        organiser = Member.objects.create_user(username=ORGANISER, password=password)
        organiser.user_permissions.add(
            Permission.objects.get(content_type__app_label="accounts", codename="organise")
        )
        organiser = Member.objects.get(pk=organiser.pk)  # fresh permission cache
        now = timezone.now().replace(microsecond=0)
        tomorrow = (now + timedelta(days=1)).replace(minute=0, second=0, microsecond=0)
        tournament = tournament_services.create_round_robin(
            organiser=organiser,
            name="Club championship",
            players=[players[name] for name in PLAYERS],
            first_kickoff=tomorrow,
            interval=timedelta(days=1),
        )
        public = tournament_services.create_fixture(
            organiser=organiser,
            name="Friendly",
            kickoff_at=now + timedelta(minutes=1),
            first=players["carol"],
            second=players["dave"],
        )
        members_only = tournament_services.create_fixture(
            organiser=organiser,
            name="Members' evening",
            kickoff_at=now + timedelta(hours=2),
            first=players["alice"],
            visibility_=Match.Visibility.MEMBERS,
        )
        # Membership (issue 19): a sign-up waiting for the organiser, and an invitation link.
        pending = account_services.member_sign_up(
            member=Member(username=PENDING_SIGN_UP, password=make_password(password))
        )
        invitation = account_services.invitation_create(
            organiser=organiser, expires_at=now + timedelta(days=14), max_uses=5, note="demo"
        )
        return {
            "tournament": tournament,
            "public": public,
            "members_only": members_only,
            "pending": pending,
            "invitation": invitation,
        }

    def _print(self, summary: dict[str, Any], password: str, host: str) -> None:
        tournament = summary["tournament"]
        write = self.stdout.write
        write(self.style.SUCCESS("Demo data created."))
        write(f"  Members:   {', '.join(PLAYERS)}")
        write(f"  Organiser: {ORGANISER}")
        write(f"  Password for all of them: {password}")
        write(
            f"  {tournament.name}: {tournament.matches.count()} fixtures, "
            f"{host}/tournaments/{tournament.id}/"
        )
        write(f"  Public fixture kicking off in a minute: {host}/matches/{summary['public'].id}/")
        write(
            f"  Members-only fixture with a free seat: {host}/matches/{summary['members_only'].id}/"
        )
        write(
            f"  {summary['pending'].username} signed up and waits for approval "
            f"(as {ORGANISER}: {host}/accounts/members/)"
        )
        write(f"  Invitation link (5 sign-ups, 14 days): {invitation_link(summary['invitation'])}")
        write(f"Sign in at {host}/accounts/sign-in/ (e.g. as bob, or as {ORGANISER} to organise).")
        write(f"Lost the password later? `{RESET_COMMAND}` sets a new one and prints it.")
