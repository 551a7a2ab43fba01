"""``manage.py demo [--if-empty]``: members, an organiser and fixtures to try the site with.

Everything is created through the services, exactly as the organiser's pages would.
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
from accounts.organiser_views import invitation_link
from matches import services
from matches.models import Match

PLAYERS = ("alice", "bob", "carol", "dave")
ORGANISER = "organiser"
#: A sign-up the organiser has yet to approve (the club's default policy is approval).
PENDING_SIGN_UP = "erin"


class Command(BaseCommand):
    help = "Create demo members, an organiser, a round robin and two fixtures; print sign-ins."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Do nothing when any member exists already (for `make run`).",
        )
        parser.add_argument(
            "--password",
            help="The password for every demo account (default: a fresh random one, printed).",
        )
        parser.add_argument(
            "--host", default="http://127.0.0.1:8000", help="Where the site is served."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["if_empty"] and Member.objects.exists():
            self.stdout.write("Members exist already; no demo data added.")
            return
        taken = sorted(
            Member.objects.filter(username__in=(*PLAYERS, ORGANISER)).values_list(
                "username", flat=True
            )
        )
        if taken:
            self.stderr.write(f"Demo usernames already in use: {', '.join(taken)}. Nothing done.")
            return
        password = options["password"] or secrets.token_urlsafe(9)
        with transaction.atomic():
            summary = self._create(password)
        self._print(summary, password, options["host"].rstrip("/"))

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
        tournament = services.create_round_robin(
            organiser=organiser,
            name="Club championship",
            players=[players[name] for name in PLAYERS],
            first_kickoff=tomorrow,
            interval=timedelta(days=1),
        )
        public = services.create_fixture(
            organiser=organiser,
            name="Friendly: carol v dave",
            kickoff_at=now + timedelta(minutes=1),
            first=players["carol"],
            second=players["dave"],
        )
        members_only = services.create_fixture(
            organiser=organiser,
            name="Members' evening: alice v a challenger",
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
        write("Forgot the password later? `python manage.py changepassword USERNAME`.")
