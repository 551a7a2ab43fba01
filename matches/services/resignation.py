"""Resigning: a seated player gives the match up, on any turn, and the opponent wins (at
a table of 3-4 the game ends there, the resigner placed last and the others by score).

The resignation ends the match through ``finish_match`` like any other ending, so a rated
result moves both ratings and both players are told, in the same transaction. The game
value is left as it stood: nothing is played, no rack is counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from common.errors import NotAllowed, SignInRequired
from engine import MatchOver, NotKickedOff
from matches.models import CommitReceipt, Match
from matches.news import publish_on_commit
from matches.schemas import Refusal
from matches.services.common import locked_match, locked_seats
from matches.services.common import now as _now
from matches.services.errors import MoveRefused
from matches.services.lifecycle import apply_deadlines, finish_match_given_up
from matches.services.receipts import keep_receipt, receipt_for, replayed_answer

SIGN_IN_TO_RESIGN = "Sign in to resign."
ONLY_PLAYERS_RESIGN = "Only a player seated in this match can resign."


@dataclass(frozen=True)
class Resigned:
    """The resignation stands; ``replayed`` when this answers a repeated request id."""

    replayed: bool = False


def _replay_of(receipt: CommitReceipt) -> Resigned:
    """The answer given the first time this id was sent (raises if it was a refusal)."""
    replayed_answer(receipt, kind=CommitReceipt.Kind.RESIGN, refused=MoveRefused.replay)
    return Resigned(replayed=True)


def match_resign(
    *, match_id: int, member: Any, client_id: str, now: datetime | None = None
) -> Resigned:
    """Resign ``member``'s seat: the match is over and the other seat wins.

    Locks the match and its seats. Allowed on any turn of a live match, the opponent's
    included (a player should not have to wait for their turn to give up). A deadline that
    had already passed is applied first and stands: a forfeit that came first is the
    result, and the resignation is refused as too late (``match_over``). Before kick-off it
    is refused (``not_kicked_off``): the organiser cancels or fills a fixture instead. The
    answer is kept under ``client_id``, so a retry answers the same and resigns once.
    """
    if not getattr(member, "is_authenticated", False):
        raise SignInRequired(SIGN_IN_TO_RESIGN)
    refusal: MoveRefused | None = None
    stranger = False
    with transaction.atomic():
        match = locked_match(match_id)
        receipt = receipt_for(match_id=match.pk, member_id=member.pk, client_id=client_id)
        if receipt is not None:
            return _replay_of(receipt)
        now = now or _now()
        seats = locked_seats(match)
        events = apply_deadlines(match, seats, now=now)
        seat = next((s for s in seats if s.member_id == member.pk), None)
        if seat is None:
            stranger = True  # refused below, after the commit: a deadline applied stands
        elif match.status == Match.Status.SCHEDULED:
            refusal = MoveRefused.from_engine(NotKickedOff())
        elif match.is_over:
            refusal = MoveRefused.from_engine(MatchOver())
        else:
            events += finish_match_given_up(
                match, seats, loser=seat.position, reason=Match.EndReason.RESIGNED, now=now
            )
        if not stranger:
            answer = (
                Refusal(code=refusal.code, message=refusal.message).model_dump()
                if refusal is not None
                else {"code": "resigned"}
            )
            keep_receipt(
                match=match,
                member=member,
                kind=CommitReceipt.Kind.RESIGN,
                client_id=client_id,
                accepted=refusal is None,
                response=answer,
            )
        publish_on_commit(events)
    if stranger:
        raise NotAllowed(ONLY_PLAYERS_RESIGN)
    if refusal is not None:
        raise refusal
    return Resigned()
