"""Seats and the viewing link: a member sits down; an organiser replaces the link."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from common.errors import NotAllowed, SignInRequired
from matches import visibility
from matches.models import CommitReceipt, Match, Seat
from matches.news import PublicEvent, publish_on_commit
from matches.schemas import Refusal, Seated
from matches.services.common import locked_match, locked_seats
from matches.services.common import now as _now
from matches.services.errors import MembershipRequired, SeatUnavailable
from matches.services.lifecycle import after_seating, apply_deadlines
from matches.services.receipts import keep_receipt, receipt_for, replayed_answer

SIGN_IN_TO_SIT = "Sign in to take a seat."


def _seat_refusal(
    match: Match, seats: list[Seat], member: Any, position: int | None, *, now: datetime
) -> str | None:
    if match.is_over:
        return "This match is over."
    if match.no_show_at and match.no_show_at <= now:
        return "The seats of this match can no longer be taken."
    if any(seat.member_id == member.pk for seat in seats):
        return "You already have a seat in this match."
    if position is not None and position not in range(len(seats)):
        return "There is no such seat."
    free = [s for s in seats if s.member_id is None and position in (None, s.position)]
    if not free:
        if position is not None:
            return "That seat is taken."
        return "Both seats are taken." if len(seats) == 2 else "Every seat is taken."
    return None


@dataclass(frozen=True)
class SeatTaken:
    """The seat a member now holds, and whether this is the answer to a repeated id."""

    seat: Seat
    replayed: bool = False


def _replay_of(receipt: CommitReceipt, seats: list[Seat]) -> SeatTaken:
    response = replayed_answer(
        receipt, kind=CommitReceipt.Kind.SEAT, refused=SeatUnavailable.replay
    )
    return SeatTaken(seats[response["position"]], replayed=True)


def match_take_seat(
    *, match_id: int, member: Any, position: int | None = None, client_id: str | None = None
) -> SeatTaken:
    """Seat ``member`` in a free seat (the given one, or the first free). Locks the match
    and its seats; a full match opens (deals) at once when its kick-off has come. Only an
    approved club member sits (:class:`MembershipRequired`, before anything is read).

    A deadline that has already passed is applied first and stands even when the seat is
    refused (a late arrival finds the no-show already decided). With ``client_id``, the
    answer is kept: the same id sent again answers the same, and changes nothing.
    """
    if not getattr(member, "is_authenticated", False):
        raise SignInRequired(SIGN_IN_TO_SIT)
    if not visibility.is_club_member(member):
        raise MembershipRequired(MembershipRequired.MESSAGE)
    with transaction.atomic():
        match = locked_match(match_id)
        seats = locked_seats(match)
        if client_id is not None:
            receipt = receipt_for(match_id=match.pk, member_id=member.pk, client_id=client_id)
            if receipt is not None:
                return _replay_of(receipt, seats)
        now = _now()
        events = apply_deadlines(match, seats, now=now)
        refusal = _seat_refusal(match, seats, member, position, now=now)
        if refusal is None:
            seat = next(s for s in seats if s.member_id is None and position in (None, s.position))
            seat.member = member
            seat.seated_at = now
            seat.save(update_fields=["member", "seated_at"])
            events.append(PublicEvent(match.id, "seat_taken", visibility.seats_news(seats)))
            events += after_seating(match, seats, now=now)
            response = Seated(position=seat.position).model_dump()
        else:
            response = Refusal(code=SeatUnavailable.code, message=refusal).model_dump()
        if client_id is not None:
            keep_receipt(
                match=match,
                member=member,
                kind=CommitReceipt.Kind.SEAT,
                client_id=client_id,
                accepted=refusal is None,
                response=response,
            )
        publish_on_commit(events)
    if refusal is not None:
        raise SeatUnavailable(refusal)
    return SeatTaken(seat)


def match_rotate_viewing_key(*, match_id: int, member: Any) -> str:
    """Give a match a new viewing key, cutting off the old link. Locks the match; the
    organiser (or whoever created the fixture) only."""
    with transaction.atomic():
        match = locked_match(match_id)
        if not (
            getattr(member, "is_authenticated", False)
            and (member.is_organiser or match.created_by_id == member.pk)
        ):
            raise NotAllowed("Only the organiser can change the viewing key.")
        match.viewing_key = secrets.token_urlsafe(32)
        match.save(update_fields=["viewing_key"])
        publish_on_commit([PublicEvent(match.id, "key_rotated", visibility.no_news())])
        return match.viewing_key
