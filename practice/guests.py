"""Guests against the computer: a visitor's game at once, without an account.

The guest is an account of ``accounts.guests`` (inactive, never a member); its game is an
ordinary practice match (``open_practice_match``: members-only, unrated, the guest First), so
the same page, socket, commits and computer serve it. Bounds: one unfinished game per guest,
``GUEST_MATCHES_PER_ADDRESS_DAY`` new games per address a day (``accounts.ratelimit``), and
beat's sweep deletes a guest and its games after ``GUEST_IDLE_DAYS`` without a move. On
sign-up the games become the member's (``accounts.guests.adopt_guest``, heard here).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts import ratelimit
from accounts.guests import new_guest
from accounts.models import Member
from accounts.ratelimit import GUEST_MATCHES_SPENT
from common.events import GuestAdopted
from lexicon.difficulty import HARDEST
from matches.models import CommitReceipt, Match, Seat
from matches.services.common import locked_match
from practice.services import PracticeRefused, checked_level, computer_member, open_practice_match

GUEST_UNFINISHED = (
    "You have a game against the computer unfinished: finish or resign it to start another."
)


class GuestGameUnfinished(PracticeRefused):
    """The guest's one unfinished game (``match_id``): where "Play the computer now" leads."""

    def __init__(self, *, match_id: int) -> None:
        super().__init__(GUEST_UNFINISHED)
        self.match_id = match_id


def _unfinished_game(guest: Member) -> int | None:
    return (
        Match.objects.filter(
            seats__member=guest, status__in=[Match.Status.SCHEDULED, Match.Status.LIVE]
        )
        .order_by("id")
        .values_list("id", flat=True)
        .first()
    )


def start_guest_practice(*, guest_id: int | None, address: str, level: str = "normal") -> Match:
    """A live practice match of the browser's guest (a new guest when it has none, or its
    guest is gone) against the computer.

    Locks the guest's row, so two starts at once from one browser find its unfinished game
    one after the other. Refuses (``PracticeRefused``) a guest with a game unfinished
    (:class:`GuestGameUnfinished`) and an address whose day's allowance is spent; the
    allowance counts only games about to be made."""
    chosen = checked_level(level)
    computer = computer_member()
    with transaction.atomic():
        guest = (
            Member.objects.select_for_update()
            .filter(pk=guest_id, membership=Member.Membership.GUEST)
            .first()
            if guest_id is not None
            else None
        )
        if guest is not None and (unfinished := _unfinished_game(guest)) is not None:
            raise GuestGameUnfinished(match_id=unfinished)
        limit = ratelimit.guest_matches_per_address()
        if not ratelimit.allow(limit, address):
            raise PracticeRefused(GUEST_MATCHES_SPENT)
        if guest is None:
            guest = new_guest()
        return open_practice_match(player=guest, computer=computer, level=chosen, cap=HARDEST)


def _lock_matches_of(member_id: int) -> list[int]:
    """Lock every match ``member_id`` sits in or started, in id order (the core's order:
    each match's row before its seats); their ids."""
    ids = sorted(
        set(Seat.objects.filter(member_id=member_id).values_list("match_id", flat=True))
        | set(Match.objects.filter(created_by_id=member_id).values_list("id", flat=True))
    )
    for match_id in ids:
        locked_match(match_id)
    return ids


def take_on_guest_games(event: GuestAdopted) -> None:
    """In the adoption's transaction: the guest's seats, the matches it started and its
    stored answers become the new member's (each match locked first)."""
    _lock_matches_of(event.guest_id)
    Seat.objects.filter(member_id=event.guest_id).update(member_id=event.member_id)
    Match.objects.filter(created_by_id=event.guest_id).update(created_by_id=event.member_id)
    CommitReceipt.objects.filter(member_id=event.guest_id).update(member_id=event.member_id)


def idle_guests(*, now: datetime | None = None) -> QuerySet[Member]:
    """Guests with no move, and no game started, for ``GUEST_IDLE_DAYS`` (made before then)."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.GUEST_IDLE_DAYS)
    return Member.objects.filter(
        membership=Member.Membership.GUEST, date_joined__lt=cutoff
    ).exclude(
        Q(seats__match__turns__created_at__gte=cutoff) | Q(created_matches__created_at__gte=cutoff)
    )


def sweep_idle_guests(*, now: datetime | None = None) -> list[int]:
    """Delete each idle guest and its games, one guest per transaction; the ids swept.

    Selects by state, so it is safe to run again or twice at once: each guest's row is
    locked (skipped when another sweep or an adoption holds it) and found idle again under
    the lock, then its matches locked and deleted, then the guest."""
    swept = []
    idle = idle_guests(now=now)
    for guest_id in list(idle.order_by("pk").values_list("pk", flat=True)):
        with transaction.atomic():
            guest = (
                Member.objects.select_for_update(skip_locked=True)
                .filter(pk=guest_id, membership=Member.Membership.GUEST)
                .first()
            )
            if guest is None or not idle.filter(pk=guest_id).exists():
                continue
            Match.objects.filter(pk__in=_lock_matches_of(guest_id)).delete()
            guest.delete()
        swept.append(guest_id)
    return swept
