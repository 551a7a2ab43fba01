"""After a member's move in a practice match, the computer's turn is queued (after commit)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from matches.models import Turn
from practice.models import ComputerOpponent


@receiver(post_save, sender=Turn, dispatch_uid="practice.computer_turn_after_a_move")
def computer_turn_after_a_move(sender: Any, instance: Turn, created: bool, **kwargs: Any) -> None:
    """A turn recorded by the member facing the computer: once it is committed, the computer
    moves (its own turns queue nothing)."""
    if not created:
        return
    position = (
        ComputerOpponent.objects.filter(match_id=instance.match_id)
        .values_list("position", flat=True)
        .first()
    )
    if position is None or instance.position == position:
        return
    from practice.tasks import queue_computer_turn  # noqa: PLC0415 (tasks import services)

    match_id = instance.match_id
    transaction.on_commit(lambda: queue_computer_turn(match_id), robust=True)
