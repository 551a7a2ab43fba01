"""Build positions for engine tests: boards from GCG-style words, games with chosen racks."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from engine import Board, Game, Play, get_ruleset, play_from_gcg

SEED = bytes(range(32))


def board_with(words: Iterable[tuple[str, str]] = (), *, ruleset: str = "word-duel") -> Board:
    """A board holding GCG-style words, e.g. ``[("8H", "CAT"), ("H8", ".OW")]``."""
    board = Board.empty(get_ruleset(ruleset).board_size)
    for position, word in words:
        board = board.place(play_from_gcg(board, position, word).tiles)
    return board


def play(board: Board, position: str, word: str) -> Play:
    """The tiles a GCG-style play puts on ``board`` (``.`` plays through, lower case = blank)."""
    return play_from_gcg(board, position, word)


def game_with(
    *,
    ruleset: str = "word-duel",
    words: Iterable[tuple[str, str]] = (),
    racks: tuple[str, str] = ("", ""),
    bag: str | None = None,
    to_move: int = 0,
    scores: tuple[int, int] = (0, 0),
    scoreless_streak: int = 0,
) -> Game:
    """A game in a chosen position (tile conservation is the caller's business here)."""
    game = Game.new(ruleset=ruleset, seed=SEED)
    return replace(
        game,
        board=board_with(words, ruleset=ruleset),
        racks=(tuple(sorted(racks[0])), tuple(sorted(racks[1]))),
        bag=game.bag if bag is None else tuple(sorted(bag)),
        to_move=to_move,
        scores=scores,
        scoreless_streak=scoreless_streak,
    )
