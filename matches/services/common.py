"""What every service does first: the clock, the match row lock, the seats, the organiser
(``require_organiser``, the accounts app's one check)."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from accounts.permissions import require_organiser
from common.events import SeatFacts
from matches.models import Match, Seat
from matches.services.errors import MatchMissing
from matches.services.locked_reads import locked_match_row


def now() -> datetime:
    return timezone.now()


def locked_match(match_id: int) -> Match:
    """The match row, locked until the transaction ends (one fixed statement:
    :mod:`matches.services.locked_reads`)."""
    match = locked_match_row(match_id)
    if match is None:
        raise MatchMissing("There is no such match.")
    return match


def locked_seats(match: Match) -> list[Seat]:
    """Every seat of the table, locked, with their members (read by the news the service
    publishes)."""
    seats = list(
        Seat.objects.select_for_update(of=("self",))
        .select_related("member")
        .filter(match_id=match.pk)
        .order_by("position")
    )
    expected = list(range(match.seat_count))
    assert [seat.position for seat in seats] == expected, "a seat row per position of the table"
    return seats


def seat_facts(seats: list[Seat]) -> tuple[SeatFacts, ...]:
    """Who sits where, as a domain event tells it (the seats' members already loaded)."""
    return tuple(
        SeatFacts(
            position=seat.position,
            member_id=seat.member_id,
            told=seat.member is not None and seat.member.is_active,
        )
        for seat in seats
    )


def seated_members(seats: list[Seat]) -> tuple[int, ...]:
    """The members seated, in seat order (an empty seat left out)."""
    return tuple(seat.member_id for seat in seats if seat.member_id is not None)


__all__ = [
    "locked_match",
    "locked_seats",
    "now",
    "require_organiser",
    "seat_facts",
    "seated_members",
]
