"""Reword for the tests: a seeded Reword match, and legal moves with swaps and steals found
by the engine's own generator (``engine.takegen``), the test driver's oracle.

A driver plays a fixed plan so a whole game has plain plays, steals, swaps and a turn of two
takes, each the best-scoring move of its sort (deterministic for a seed). This module holds
no tests of its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from accounts.models import Member
from engine import Game, MoveError, Pass, StealTake, SwapTake, TakePlay
from engine.movegen import legal_plays
from engine.reword import apply_takes, evaluate_take_play
from engine.takegen import legal_takes, take_plays
from engine.wordgraph import word_graph
from lexicon.lexicon import get_lexicon
from matches.models import Match
from tests.matches.test_ws_helpers import seed_and_seat

#: How many second takes the driver tries after its first (in the generator's order): a
#: bound on the work, not on time, so a game's moves are the same however busy the machine.
SECOND_TAKES = 12


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
    match = seed_and_seat(
        match, first, second, bag_text=f"reword-test-{seed}", seat_text=f"reword-{seed}"
    )
    assert match.ruleset == "reword"
    return match


def best_plain(game: Game) -> Any:
    """The best-scoring plain play of the player to move, or None."""
    lexicon = get_lexicon("enable")
    plays = legal_plays(
        game.board, game.racks[game.to_move], ruleset=game.ruleset, graph=word_graph(lexicon)
    )
    return max(plays, key=lambda play: play.score, default=None)


def best_take(game: Game, *, sort: str) -> TakePlay | None:
    """The best-scoring legal one-take play of the player to move whose take is a ``sort``
    (``steal`` or ``swap``); None if none. The search is the generator's full one (no time
    budget), so the answer is the same on any machine."""
    lexicon = get_lexicon("enable")
    found = take_plays(
        game.board,
        game.racks[game.to_move],
        ruleset=game.ruleset,
        lexicon=lexicon,
        max_takes=1,
        graph=word_graph(lexicon),
    )
    kind = StealTake if sort == "steal" else SwapTake
    fitting = [legal for legal in found if isinstance(legal.move.takes[0], kind)]
    best = max(fitting, key=lambda legal: legal.score, default=None)
    return None if best is None else best.move  # type: ignore[return-value]


def best_two_takes(game: Game) -> TakePlay | None:
    """A legal play after two takes: the first take of the best one-take steal (else swap),
    then the best play after one of the first ``SECOND_TAKES`` second takes the generator
    lists, each checked and scored by ``reword.evaluate_take_play`` (what the game runs)."""
    first = best_take(game, sort="steal") or best_take(game, sort="swap")
    if first is None:
        return None
    lexicon = get_lexicon("enable")
    graph = word_graph(lexicon)
    rules = game.ruleset
    board, rack = game.board, game.racks[game.to_move]
    after_first = apply_takes(board, rack, first.takes[:1], lexicon=lexicon)
    best: tuple[int, TakePlay] | None = None
    for after in legal_takes(board, rack, lexicon=lexicon, after=after_first)[:SECOND_TAKES]:
        held = after.rack
        wide = rules
        if len(held) > rules.rack_size:  # room for the taken tiles on the rack
            wide = replace(rules, rack_size=len(held), bingo_min_tiles=rules.bingo_tiles)
        for play in legal_plays(after.board, held, ruleset=wide, graph=graph):
            if any((tile.row, tile.col) in after.blocked for tile in play.tiles):
                continue
            if Counter(after.taken) - Counter(tile.rack_tile for tile in play.tiles):
                continue
            move = TakePlay(after.takes, play.tiles)
            try:
                score = evaluate_take_play(board, rack, move, ruleset=rules, lexicon=lexicon)
            except MoveError:
                continue
            if best is None or score.score.score > best[0]:
                best = (score.score.score, move)
    return None if best is None else best[1]


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
        move = best_two_takes(game)
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
