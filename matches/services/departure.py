"""A member leaving the club for good (deleting their account): their unfinished matches
are settled first, so no opponent waits three days for a forfeit.

A live match is resigned (the opponent wins) through the resign service
(``matches.services.resignation.match_resign``). A fixture not yet started gives up its
seat, as if it had never been taken.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import transaction

from matches import visibility
from matches.models import Match, Seat
from matches.news import PublicEvent, publish_on_commit
from matches.services.common import locked_match, locked_seats
from matches.services.common import now as _now
from matches.services.lifecycle import apply_deadlines
from matches.services.resignation import match_resign


def _resign(match_id: int, member: Any) -> None:
    match_resign(match_id=match_id, member=member, client_id=f"leave-{secrets.token_hex(6)}")


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
