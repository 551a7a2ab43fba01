"""After a member's move in a practice match, the computer's turn is queued (after commit)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.dispatch import receiver

from matches.models import Match, Seat, Turn
from matches.signals import turn_recorded
from practice.services import is_computer


@receiver(turn_recorded, dispatch_uid="practice.computer_turn_after_a_move")
def computer_turn_after_a_move(
    sender: Any, match: Match, seats: list[Seat], turn: Turn, **kwargs: Any
) -> None:
    """A move that leaves the computer to play: once it is committed, the computer moves.

    Read from the seats the play service holds locked (the computer sits as its own
    account), so a move costs no query here; the computer's own moves queue nothing.
    """
    if match.is_over or match.to_move is None or not is_computer(seats[match.to_move].member):
        return
    from practice.tasks import queue_computer_turn  # noqa: PLC0415 (tasks import services)

    match_id = match.id
    transaction.on_commit(lambda: queue_computer_turn(match_id), robust=True)
