"""The computer's turn, queued once the change that gave it the move has committed.

Heard from the core (common/events.py) after commit (``Phase.AFTER_COMMIT``): a match that
opens with the computer to move, and a member's move that leaves it to play. The computer's
own moves queue nothing more (after its move the member is to play). And in the
transaction of a guest's adoption (``accounts.guests``), the guest's games become the member's.
"""

from __future__ import annotations

from accounts.models import Member
from common.events import GuestAdopted, MatchOpened, Phase, SeatFacts, TurnRecorded, subscribe
from practice.guests import take_on_guest_games
from practice.services import COMPUTER_USERNAME
from practice.tasks import queue_computer_turn


def _computer_to_move(seats: tuple[SeatFacts, ...], to_move: int | None) -> bool:
    """Whether the seat to move is the computer's. Its account is never told of its matches
    (it cannot sign in), so a member's seat answers without a query."""
    seat = next((seat for seat in seats if seat.position == to_move), None)
    if seat is None or seat.member_id is None or seat.told:
        return False
    return Member.objects.filter(pk=seat.member_id, username=COMPUTER_USERNAME).exists()


def computer_moves_first(event: MatchOpened) -> None:
    """A match opened with the computer to play its first move."""
    if _computer_to_move(event.seats, event.to_move):
        queue_computer_turn(event.match_id)


def computer_answers(event: TurnRecorded) -> None:
    """A move left the computer to play."""
    if _computer_to_move(event.seats, event.to_move):
        queue_computer_turn(event.match_id)


def subscribe_all() -> None:
    """Called once, from ``PracticeConfig.ready()``."""
    subscribe(MatchOpened, computer_moves_first)
    subscribe(TurnRecorded, computer_answers)
    subscribe(GuestAdopted, take_on_guest_games, phase=Phase.IN_TRANSACTION)
