"""A new match: the one way a fixture, a challenge's match and a practice match come to be."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings

from accounts.models import Member
from matches.models import Match, Seat, Tournament
from matches.services.errors import InvalidFixture

#: The longest name a match keeps (a longer one is cut).
NAME_LENGTH = 120


def create_match(
    *,
    name: str,
    organiser: Member | None,
    kickoff_at: datetime | None,
    ruleset: str,
    lexicon: str,
    visibility_: str,
    no_show_window: timedelta | None,
    tournament: Tournament | None = None,
    round_number: int | None = None,
    rated: bool = False,
    turn_time: timedelta | None = None,
) -> Match:
    """A new match row and its two empty seats: the one way a fixture, a challenge's match
    and a practice match come to be, so every match starts the same.

    Locks nothing and checks only the no-show window (``InvalidFixture``): the rows are new
    and seen by no other transaction until the caller's commits, so it must run inside the
    caller's ``transaction.atomic()``. The caller then locks the seats (``locked_seats``) to
    fill them, and calls ``after_seating``; it has already checked the name, the players
    and the rules."""
    window = no_show_window if no_show_window is not None else settings.NO_SHOW_WINDOW
    if window <= timedelta(0):
        raise InvalidFixture("The no-show window must be positive.")
    match = Match.objects.create(
        name=name,
        tournament=tournament,
        round_number=round_number,
        created_by=organiser,
        rated=rated,
        ruleset=ruleset,
        lexicon=lexicon,
        visibility=visibility_,
        kickoff_at=kickoff_at,
        no_show_window=window,
        no_show_at=kickoff_at + window if kickoff_at else None,
        turn_time=turn_time,
    )
    Seat.objects.bulk_create([Seat(match=match, position=0), Seat(match=match, position=1)])
    return match
