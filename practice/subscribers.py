"""The computer's turn, queued once the change that gave it the move has committed.

Heard from the core (common/events.py) after commit (``Phase.AFTER_COMMIT``): a match that
opens with the computer to move, a move that leaves it to play (at a table, one computer's
move may leave the next computer to play), a play a computer may challenge, and a challenge
that leaves it to play. And in the
transaction of a guest's adoption (``accounts.guests``), the guest's games become the member's.
"""

from __future__ import annotations

from accounts.models import Member
from common.events import (
    GuestAdopted,
    MatchOpened,
    Phase,
    PlayChallenged,
    SeatFacts,
    TurnRecorded,
    subscribe,
)
from matches.models import Match
from practice.guests import take_on_guest_games
from practice.models import ComputerOpponent
from practice.services import COMPUTER_USERNAMES
from practice.tasks import queue_computer_turn


def _computer_to_move(seats: tuple[SeatFacts, ...], to_move: int | None) -> bool:
    """Whether the seat to move is the computer's. Its account is never told of its matches
    (it cannot sign in), so a member's seat answers without a query."""
    seat = next((seat for seat in seats if seat.position == to_move), None)
    if seat is None or seat.member_id is None or seat.told:
        return False
    return Member.objects.filter(pk=seat.member_id, username__in=COMPUTER_USERNAMES).exists()


def _computer_may_challenge(event: TurnRecorded) -> bool:
    """Whether a computer other than the mover sits at a match with challenges (the move
    may be a play it would challenge: the task looks)."""
    if (
        not ComputerOpponent.objects.filter(match_id=event.match_id)
        .exclude(position=event.mover)
        .exists()
    ):
        return False
    return Match.objects.filter(pk=event.match_id).exclude(challenge_rule="void").exists()


def computer_moves_first(event: MatchOpened) -> None:
    """A match opened with the computer to play its first move."""
    if _computer_to_move(event.seats, event.to_move):
        queue_computer_turn(event.match_id)


def computer_answers(event: TurnRecorded) -> None:
    """A move left the computer to play, or a computer may challenge it."""
    if _computer_to_move(event.seats, event.to_move) or _computer_may_challenge(event):
        queue_computer_turn(event.match_id)


def computer_after_challenge(event: PlayChallenged) -> None:
    """A challenge left the computer to play (a withdrawn play, a lost turn)."""
    if _computer_to_move(event.seats, event.to_move):
        queue_computer_turn(event.match_id)


def subscribe_all() -> None:
    """Called once, from ``PracticeConfig.ready()``."""
    subscribe(MatchOpened, computer_moves_first)
    subscribe(TurnRecorded, computer_answers)
    subscribe(PlayChallenged, computer_after_challenge)
    subscribe(GuestAdopted, take_on_guest_games, phase=Phase.IN_TRANSACTION)
