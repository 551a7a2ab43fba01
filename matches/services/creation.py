"""A new match: the one way a fixture, a challenge's match and a practice match come to be."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings

from accounts.models import Member
from engine import CHALLENGE_RULES, get_ruleset
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
    seat_count: int = 2,
    challenge_rule: str = "void",
    challenge_window: timedelta | None = None,
    finish_line: int | None = None,
) -> Match:
    """A new match row and its empty seats (``seat_count`` of them): the one way a fixture,
    a challenge's match and a practice match come to be, so every match starts the same.

    Locks nothing and checks only the table (its seats, challenge rule, window and finish line,
    for the ruleset) and the no-show window (``InvalidFixture``): the rows are new
    and seen by no other transaction until the caller's commits, so it must run inside the
    caller's ``transaction.atomic()``. The caller then locks the seats (``locked_seats``) to
    fill them, and calls ``after_seating``; it has already checked the name, the players
    and the rules."""
    rules = get_ruleset(ruleset)
    if seat_count not in rules.seat_counts:
        raise InvalidFixture(f"The {rules.name} ruleset does not seat {seat_count} players.")
    if challenge_rule not in CHALLENGE_RULES:
        raise InvalidFixture(f"No challenge rule is called {challenge_rule!r}.")
    if rules.swap_and_steal and challenge_rule != "void":
        raise InvalidFixture(
            f"The {rules.name} ruleset checks every word as it is played: no challenges."
        )
    if challenge_window is not None and challenge_window <= timedelta(0):
        raise InvalidFixture("The challenge window must be positive.")
    if finish_line is not None and finish_line < 1:
        raise InvalidFixture("A finish line is a positive score.")
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
        seat_count=seat_count,
        challenge_rule=challenge_rule,
        challenge_window=challenge_window,
        finish_line=finish_line,
    )
    Seat.objects.bulk_create([Seat(match=match, position=seat) for seat in range(seat_count)])
    return match
