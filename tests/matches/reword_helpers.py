"""Reword for the tests: a seeded Reword match, and legal moves with swaps and steals found
by the engine's own generator (``engine.takegen``), the test driver's oracle.

A driver plays a fixed plan so a whole game has plain plays, steals, swaps and a turn of two
takes, each the best-scoring move of its sort (deterministic for a seed). This module holds
no tests of its own.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

from accounts.models import Member
from engine import Game, Pass, StealTake, SwapTake, TakePlay
from engine.movegen import legal_plays
from engine.takegen import take_plays
from engine.wordgraph import word_graph
from lexicon.lexicon import get_lexicon
from matches import services
from matches.models import Match, Seat

#: How long the driver looks for a two-take move (a bound, not a measurement).
TWO_TAKE_BUDGET = 1.0


def reword_match(
    make_fixture: Callable[..., Match],
    first: Member,
    second: Member,
    *,
    seed: int = 1,
    visibility: str = Match.Visibility.PUBLIC,
) -> Match:
    """A live Reword match whose bag is fixed by ``seed`` (as ``seeded_match`` does)."""
    match = make_fixture(visibility=visibility, name=f"Reword {seed}", ruleset="reword")
    bag_seed = hashlib.sha256(f"reword-test-{seed}".encode()).hexdigest()
    Match.objects.filter(pk=match.pk).update(
        bag_seed=bag_seed, bag_commitment=hashlib.sha256(bytes.fromhex(bag_seed)).hexdigest()
    )
    for position in (0, 1):
        Seat.objects.filter(match=match, position=position).update(
            contribution=hashlib.sha256(f"reword-{seed}-{position}".encode()).hexdigest()[:32]
        )
    services.match_take_seat(match_id=match.pk, member=first, position=0)
    services.match_take_seat(match_id=match.pk, member=second, position=1)
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    assert match.ruleset == "reword"
    return match


def best_plain(game: Game) -> Any:
    """The best-scoring plain play of the player to move, or None."""
    lexicon = get_lexicon("enable")
    plays = legal_plays(
        game.board, game.racks[game.to_move], ruleset=game.ruleset, graph=word_graph(lexicon)
    )
    return max(plays, key=lambda play: play.score, default=None)


def best_take(game: Game, *, sort: str, takes: int = 1) -> TakePlay | None:
    """The best-scoring legal take-play of the player to move whose first take is a
    ``sort`` (``steal`` or ``swap``) and that makes exactly ``takes`` takes; None if none."""
    lexicon = get_lexicon("enable")
    deadline = time.monotonic() + TWO_TAKE_BUDGET if takes > 1 else None
    found = take_plays(
        game.board,
        game.racks[game.to_move],
        ruleset=game.ruleset,
        lexicon=lexicon,
        max_takes=takes,
        deadline=deadline,
        graph=word_graph(lexicon),
    )
    kind = StealTake if sort == "steal" else SwapTake
    fitting = [
        legal
        for legal in found
        if len(legal.move.takes) == takes and isinstance(legal.move.takes[0], kind)
    ]
    best = max(fitting, key=lambda legal: legal.score, default=None)
    return None if best is None else best.move  # type: ignore[return-value]


#: The driver's plan, turn by turn (from turn 1, round and round): what it tries first.
PLAN = ("play", "steal", "swap", "play", "two", "swap", "steal")


def planned_move(game: Game) -> Any:
    """The move the plan gives for the next turn: its sort if one is legal, else the best
    plain play, else a pass (the engine judges every one of them as a client's)."""
    step = PLAN[game.turn_number % len(PLAN)]  # (a resumed game holds no history)
    move = None
    if step in {"steal", "swap"}:
        move = best_take(game, sort=step)
    elif step == "two":
        move = best_take(game, sort="steal", takes=2) or best_take(game, sort="swap", takes=2)
    if move is None:
        plain = best_plain(game)
        move = plain.move if plain is not None else Pass()
    return move


def play_frame(move: Any, *, turn: int, client_id: str, after: str | None = None) -> dict[str, Any]:
    """The protocol frame for an engine move (a take-play is a ``play`` with ``takes``)."""
    data = move.to_dict()
    kind = "play" if data["kind"] == "take_play" else data["kind"]
    frame: dict[str, Any] = {"type": kind, "id": client_id, "turn": turn}
    if after is not None:
        frame["after"] = after
    if kind != "pass":
        frame["tiles"] = data["tiles"]
    if data.get("takes"):
        frame["takes"] = data["takes"]
    return frame
