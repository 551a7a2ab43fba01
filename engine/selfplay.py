"""Computer against computer: whole games, each seat choosing from what it may see.

The one place the leave trainer and the ladder bench play games. A seat's choice is made
from a :class:`SeatPosition` built from the facts a seat's view shows (never the other rack
or the bag's order); the game's draws come from its seed, each seat's chance from its own
``random.Random``, so a game is the same for the same seeds.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection
from dataclasses import dataclass

from .computer import Choice, Level, SeatPosition, choose_move, get_level
from .game import Game
from .leave import LeaveTable

#: Called after each move: the game before it, the seat's position and its choice.
OnMove = Callable[[Game, SeatPosition, Choice], None]
#: A game that has not ended after this many turns is a bug (six scoreless turns end one).
MAX_TURNS = 400


@dataclass(frozen=True, slots=True)
class Seat:
    """One side of a self-play game: a level and, for a leave level, its table."""

    level: Level
    leaves: LeaveTable | None = None

    @classmethod
    def of(cls, level: Level | str, *, leaves: LeaveTable | None = None) -> Seat:
        return cls(get_level(level), leaves)


def seat_position(game: Game) -> SeatPosition:
    """What the seat to move may see of ``game``: board, own rack, scores and counts."""
    seat = game.to_move
    return SeatPosition.build(
        ruleset=game.ruleset,
        board_rows=game.board.rows(),
        seat=seat,
        rack=game.racks[seat],
        scores=game.scores,
        bag_count=game.bag_count,
        rack_counts=tuple(len(rack) for rack in game.racks),
        scoreless_streak=game.scoreless_streak,
    )


def play_game(
    *,
    ruleset: str,
    seed: bytes,
    seats: tuple[Seat, ...],
    lexicon: Collection[str],
    rng_seed: int,
    on_move: OnMove | None = None,
) -> Game:
    """A whole game at a table of ``len(seats)`` (a duel: First played by ``seats[0]``);
    returns the finished game. A duel's seats draw their chance as they always have."""
    game = Game.new(ruleset=ruleset, seed=seed, players=len(seats))
    rngs = tuple(
        random.Random(rng_seed * 2 + seat) if seat < 2 else random.Random(f"{rng_seed}:{seat}")
        for seat in range(len(seats))
    )
    for _ in range(MAX_TURNS):
        if game.is_over:
            return game
        seat = game.to_move
        position = seat_position(game)
        choice = choose_move(
            position,
            lexicon=lexicon,
            level=seats[seat].level,
            rng=rngs[seat],
            leaves=seats[seat].leaves,
        )
        if on_move is not None:
            on_move(game, position, choice)
        game = game.apply(choice.move.move, player=seat, lexicon=lexicon)
    raise RuntimeError(f"a self-play game ran past {MAX_TURNS} turns")
