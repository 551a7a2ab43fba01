"""The verifiable bag: a seated player's own random value, added before the deal."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from common.errors import NotAllowed, ServiceError, SignInRequired
from matches.models import Match, Seat
from matches.news import publish_on_commit
from matches.services.common import locked_match, locked_seats
from matches.services.common import now as _now
from matches.services.errors import ContributionRefused
from matches.services.lifecycle import apply_deadlines

CONTRIBUTION_MIN_BYTES = 16
CONTRIBUTION_MAX_BYTES = 32
_HEX_DIGITS = frozenset("0123456789abcdef")


def contribution_refusal(value_hex: object) -> str | None:
    """Why ``value_hex`` is not 16-32 bytes written as hex digits, or None when it is."""
    if not isinstance(value_hex, str):
        return "Send your random value as a string of hex digits."
    value = value_hex.strip().lower()
    low, high = CONTRIBUTION_MIN_BYTES, CONTRIBUTION_MAX_BYTES
    if not value or not set(value) <= _HEX_DIGITS or len(value) % 2:
        return f"The value must be {low} to {high} bytes written in hex (0-9, a-f)."
    if not low <= len(value) // 2 <= high:
        return f"The value must be {low} to {high} bytes ({2 * low} to {2 * high} hex digits)."
    return None


def match_contribute_entropy(*, match_id: int, member: Any, value_hex: str) -> Seat:
    """Add a seated player's own random value to the bag's stream, before the deal. Locks
    the match and its seats.

    The draws are keyed by the server's committed seed over both seats' values, so a player
    who contributes knows the server could not have picked the bag to suit itself after
    seeing theirs. Once per seat, only while the match is scheduled; a deadline that has
    passed is applied first and stands even when the value is refused.
    """
    if not getattr(member, "is_authenticated", False):
        raise SignInRequired("Sign in to add your randomness to the bag.")
    refusal: ServiceError | None = None
    with transaction.atomic():
        match = locked_match(match_id)
        seats = locked_seats(match)
        events = apply_deadlines(match, seats, now=_now())
        seat = next((s for s in seats if s.member_id == member.pk), None)
        if seat is None:
            refusal = NotAllowed("Only a player seated in this match can add to its bag.")
        elif match.status == Match.Status.LIVE:
            refusal = ContributionRefused("The tiles have already been dealt.")
        elif match.status != Match.Status.SCHEDULED:
            refusal = ContributionRefused("This match is over.")
        elif seat.contribution:
            refusal = ContributionRefused("Your seat has already added its value to the bag.")
        elif (reason := contribution_refusal(value_hex)) is not None:
            refusal = ContributionRefused(reason)
        else:
            seat.contribution = value_hex.strip().lower()
            seat.save(update_fields=["contribution"])
        publish_on_commit(events)
    if refusal is not None:
        raise refusal
    assert seat is not None
    return seat
