"""A member leaving the club for good (deleting their account): their unfinished matches
are settled first, so no opponent waits three days for a forfeit.

A live match is resigned (the opponent wins) through the resign service when it is present
(``matches.services.resignation.match_resign``); without it, the same ending is recorded as
a forfeit through ``finish_match``. A fixture not yet started gives up its seat, as if it
had never been taken.
"""

from __future__ import annotations

import importlib
import secrets
from typing import Any

from django.db import transaction

from matches import visibility
from matches.live.news import PublicEvent, publish_on_commit
from matches.models import Match, Seat
from matches.services.common import locked_match, locked_seats
from matches.services.common import now as _now
from matches.services.lifecycle import apply_deadlines, finish_match


def _resign(match_id: int, member: Any) -> None:
    try:
        resignation = importlib.import_module("matches.services.resignation")
    except ImportError:  # the resign service is not here yet: a forfeit, the same ending
        resignation = None
    if resignation is not None:
        resignation.match_resign(
            match_id=match_id, member=member, client_id=f"leave-{secrets.token_hex(6)}"
        )
        return
    with transaction.atomic():
        match = locked_match(match_id)
        seats = locked_seats(match)
        now = _now()
        events = apply_deadlines(match, seats, now=now)
        seat = next((s for s in seats if s.member_id == member.pk), None)
        if seat is not None and match.status == Match.Status.LIVE:
            winner = Match.Result.SECOND if seat.position == 0 else Match.Result.FIRST
            events += finish_match(
                match, seats, result=winner, reason=Match.EndReason.FORFEIT, now=now
            )
        publish_on_commit(events)


def _give_up_seat(match_id: int, member: Any) -> None:
    with transaction.atomic():
        match = locked_match(match_id)
        seats = locked_seats(match)
        events = apply_deadlines(match, seats, now=_now())
        seat = next((s for s in seats if s.member_id == member.pk), None)
        if seat is not None and match.status == Match.Status.SCHEDULED:
            seat.member = None
            seat.seated_at = None
            seat.save(update_fields=["member", "seated_at"])
            events.append(PublicEvent(match.id, "seat_taken", visibility.seats_news(seats)))
        publish_on_commit(events)


def member_leave_matches(*, member: Any) -> list[int]:
    """Resign every live match of ``member`` and give up their seats in fixtures not yet
    started. Each match is its own transaction, locking that match and its seats; a match
    that ended meanwhile is left as it ended. Returns the ids of the matches settled."""
    unfinished = (
        Seat.objects.filter(
            member=member, match__status__in=[Match.Status.LIVE, Match.Status.SCHEDULED]
        )
        .order_by("match_id")
        .values_list("match_id", "match__status")
    )
    settled = []
    for match_id, status in unfinished:
        if status == Match.Status.LIVE:
            _resign(match_id, member)
        else:
            _give_up_seat(match_id, member)
        settled.append(match_id)
    return settled
