"""The computer's turn, run after the commit that made it the computer's move.

A Celery task where there is a worker; a thread of the web process in the quick start
(``CLOCK_IN_PROCESS``, ``make run``). The computer reads the match as its seat's view (the
one door out, ``visibility``), chooses (``practice.opponent``) and commits through
``services.match_commit`` like anyone. Its random source is seeded by the match and the turn,
and its request id is the turn's, so a retried task makes the same move once.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from celery import shared_task
from django.conf import settings
from django.db import connections
from django.db.models import F
from django.utils import timezone

from accounts.models import Member
from engine import get_ruleset, word_graph
from engine.computer import decide_challenge
from lexicon.difficulty import word_difficulty
from lexicon.lexicon import get_lexicon
from matches import services, visibility
from matches.models import Match, Seat
from matches.schemas import MatchView
from practice import guests
from practice.models import ComputerOpponent
from practice.opponent import computer_move

logger = logging.getLogger(__name__)

#: A computer's turn not made after this long is made by beat's sweep.
STALLED_AFTER = timedelta(seconds=10)


def run_computer_turn(match_id: int) -> str:
    """Let the match's computers act, as a player would: first each computer that may
    challenge the open play decides whether to (in seat order after its player; the first
    that does, challenges), then the computer to move, if one is, makes its move. Say what
    happened (for logs and tests)."""
    opponents = list(ComputerOpponent.objects.filter(match_id=match_id).order_by("position"))
    if not opponents:
        return "not a practice match"
    accounts = _accounts(match_id)
    said = [_computer_challenge(match_id, opponents, accounts)]
    said.append(_computer_move(match_id, opponents, accounts))
    return "; ".join(part for part in said if part)


def _accounts(match_id: int) -> dict[int, Member]:
    """Each seat's member (the computers' accounts among them), by position."""
    seats = Seat.objects.filter(match_id=match_id, member__isnull=False).select_related("member")
    return {seat.position: seat.member for seat in seats if seat.member is not None}


def _seat_view(match_id: int, member: Member) -> MatchView:
    """A computer seat's view, through the one door: as a player of a members-only match,
    it holds the match's viewing key (players may copy the share link)."""
    key = Match.objects.filter(pk=match_id).values_list("viewing_key", flat=True).first()
    return visibility.match_view(services.look_at_match(user=member, match_id=match_id, key=key))


def _computer_challenge(
    match_id: int, opponents: list[ComputerOpponent], accounts: dict[int, Member]
) -> str:
    """The first computer (in seat order after the play's player) whose level challenges
    the open play's words challenges it; "" when none may or none does."""
    first = _seat_view(match_id, accounts[opponents[0].position])
    open_play = first.open_play
    if first.status != "live" or open_play is None or not first.moves:
        return ""
    played = first.moves[-1]
    if played.number != open_play.turn_number or played.kind != "play":
        return ""
    words = [word.word.upper() for word in played.words]
    lexicon = get_lexicon(first.lexicon, max_len=get_ruleset(first.ruleset).lexicon_max_len)
    seat_count = len(first.seats)
    order = sorted(
        (o for o in opponents if o.position in open_play.challengers),
        key=lambda o: (o.position - open_play.player) % seat_count,
    )
    for opponent in order:
        decision = decide_challenge(words, lexicon=lexicon, level=opponent.level)
        if not decision.challenge:
            continue
        try:
            decided = services.match_challenge(
                match_id=match_id,
                member=accounts[opponent.position],
                client_id=f"computer-challenge-{open_play.turn_number}",
                expected_turn=open_play.turn_number,
            )
        except services.MoveRefused as refusal:  # the next move or the window came first
            logger.info("match %s: the computer's challenge was refused: %s", match_id, refusal)
            return f"challenge refused: {refusal.code}"
        outcome = "withdrawn" if decided.answer.challenge.withdrawn else "stands"
        return f"seat {opponent.position} challenged: {outcome}"
    return ""


def _computer_move(
    match_id: int, opponents: list[ComputerOpponent], accounts: dict[int, Member]
) -> str:
    """The move of the computer to move, if one is."""
    to_move = Match.objects.filter(pk=match_id).values_list("to_move", flat=True).first()
    opponent = next((o for o in opponents if o.position == to_move), None)
    if opponent is None:
        return "not the computer's turn"
    computer = accounts[opponent.position]
    view = _seat_view(match_id, computer)
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
            after=view.position(),  # the position it chose on: a challenge since refuses it
            client_id=move_request_id(view),
        )
    except services.MoveRefused as refusal:  # the match moved on meanwhile (a deadline)
        logger.warning("match %s: the computer's move was refused: %s", match_id, refusal)
        return f"refused: {refusal.code}"
    return f"{choice.move.kind} ({choice.reason})"


def move_request_id(view: MatchView) -> str:
    """The request id of the computer's move on this position, so a task run twice moves once.
    Under a challenge rule it names the position too: a challenge changes the position without
    moving the turn on, and the move refused on the old one must not answer the next."""
    if view.challenge_rule == "void":
        return f"computer-{view.turn_number}"
    return f"computer-{view.turn_number}-{view.position()[:16]}"


@shared_task(name="practice.play_computer_turn", ignore_result=True)
def play_computer_turn(match_id: int) -> str:
    return run_computer_turn(match_id)


def stalled_computer_turns(*, now: datetime | None = None) -> list[int]:
    """Live practice matches where a computer is to move and has not for ``STALLED_AFTER``
    (its task was lost: a broker or worker outage)."""
    cutoff = (now or timezone.now()) - STALLED_AFTER
    return list(
        Match.objects.filter(
            status=Match.Status.LIVE,
            computers__position=F("to_move"),
            turn_started_at__lt=cutoff,
        )
        .order_by("id")
        .values_list("id", flat=True)
    )


@shared_task(name="practice.requeue_stalled_turns", ignore_result=True)
def requeue_stalled_turns() -> list[int]:
    """Beat's sweep: make each stalled computer's move now (safe to run twice at once: a
    repeated request id is answered, not applied again)."""
    stalled = stalled_computer_turns()
    for match_id in stalled:
        run_computer_turn(match_id)
    return stalled


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
        return
    try:
        play_computer_turn.delay(match_id)
    except Exception:  # the broker is down: logged (no sweep re-queues it yet)
        logger.exception("match %s: could not queue the computer's turn", match_id)


def queue_warm_up() -> None:
    """Warm the worker (or the web process, in the quick start) for the computer's moves."""
    if settings.CLOCK_IN_PROCESS:
        _in_thread(warm_up)
        return
    try:
        warm_up_task.delay()
    except Exception:  # only an optimisation: the first move then builds what it needs
        logger.exception("could not queue the computer's warm-up")


@shared_task(name="practice.sweep_idle_guests", ignore_result=True)
def sweep_idle_guests() -> list[int]:
    """Beat's sweep of guests idle for ``GUEST_IDLE_DAYS``, and their games (safe to rerun)."""
    return guests.sweep_idle_guests()
