"""The computer's turn, run after the commit that made it the computer's move.

A Celery task where there is a worker; a thread of the web process in the quick start
(``CLOCK_IN_PROCESS``, ``make run``). The computer reads the match as its seat's view (the
one door out, ``visibility``), chooses (``matches.computer``) and commits through
``services.match_commit`` like anyone. Its random source is seeded by the match and the turn,
and its request id is the turn's, so a retried task makes the same move once.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable

from celery import shared_task
from django.conf import settings
from django.db import connections

from lexicon.difficulty import word_difficulty
from lexicon.lexicon import get_lexicon
from matches import services, visibility
from matches.computer import computer_move
from matches.engine import get_ruleset, word_graph
from practice.models import ComputerOpponent
from practice.services import computer_member

logger = logging.getLogger(__name__)


def run_computer_turn(match_id: int) -> str:
    """Make the computer's move in ``match_id`` if it is the computer's turn; say what
    happened (for logs and tests)."""
    opponent = ComputerOpponent.objects.filter(match_id=match_id).first()
    if opponent is None:
        return "not a practice match"
    computer = computer_member()
    view = visibility.match_view(
        visibility.access_match(user=computer, match_id=match_id, key=None)
    )
    if view.status != "live" or view.to_move != opponent.position:
        return "not the computer's turn"
    choice = computer_move(
        view,
        level=opponent.level,
        rng=random.Random(f"{match_id}:{view.turn_number}"),
        vocabulary_cap=opponent.vocabulary_cap,
    )
    try:
        services.match_commit(
            match_id=match_id,
            member=computer,
            move=choice.move.move,
            against_turn=view.turn_number,
            client_id=f"computer-{view.turn_number}",
        )
    except services.MoveRefused as refusal:  # the match moved on meanwhile (a deadline)
        logger.warning("match %s: the computer's move was refused: %s", match_id, refusal)
        return f"refused: {refusal.code}"
    return f"{choice.move.kind} ({choice.reason})"


@shared_task(name="practice.play_computer_turn", ignore_result=True)
def play_computer_turn(match_id: int) -> str:
    return run_computer_turn(match_id)


def warm_up(lexicon: str = "enable") -> None:
    """Build what a first move needs (the word graph, the difficulty table) before it is
    needed, so that the computer's first answer is as quick as the others."""
    words = get_lexicon(lexicon, max_len=get_ruleset("word-duel").lexicon_max_len)
    word_graph(words)
    word_difficulty(words)


@shared_task(name="practice.warm_up", ignore_result=True)
def warm_up_task() -> None:
    warm_up()


def _in_thread(target: Callable[..., object], *args: object) -> None:
    """Run ``target`` in a thread of this process, giving its database connection back."""

    def run() -> None:
        try:
            target(*args)
        except Exception:
            logger.exception("the computer's turn failed")
        finally:
            connections.close_all()

    threading.Thread(target=run, name="computer-turn", daemon=True).start()


def queue_computer_turn(match_id: int) -> None:
    """Have the computer move (called after the commit that made it its turn)."""
    if settings.CLOCK_IN_PROCESS:
        _in_thread(run_computer_turn, match_id)
    else:
        play_computer_turn.delay(match_id)


def queue_warm_up() -> None:
    """Warm the worker (or the web process, in the quick start) for the computer's moves."""
    if settings.CLOCK_IN_PROCESS:
        _in_thread(warm_up)
    else:
        warm_up_task.delay()
