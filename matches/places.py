"""Who placed where at a finished match's table, and the result that names it.

Every finished match writes each seat's ``place`` (1: won; tied seats share a place, and the
next place skips as many as shared: 1, 1, 3). A duel's result is also ``first``, ``second``
or ``draw``; a table of 3-4 says ``table`` and its places say the rest (docs/RULES.md,
"A table of three or four").
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import Game

#: ``Match.result`` of a table of 3-4 (its places say who won).
TABLE = "table"
_DUEL_RESULTS = {(1, 2): "first", (2, 1): "second", (1, 1): "draw"}
_DUEL_PLACES = {value: key for key, value in _DUEL_RESULTS.items()}


def ranked(keys: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """Competition ranking of ``keys`` (higher is better): equal keys share a place."""
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


def places_of_game(game: Game) -> tuple[int, ...]:
    """The places of a game played to its end: by final score, a tie broken (as the ruleset
    says) by the score before the racks were counted, then shared."""
    before = game.scores_before_adjustments
    tie_break = game.ruleset.tie_break_before_adjustments
    return ranked(
        [(score, before[seat]) if tie_break else (score,) for seat, score in enumerate(game.scores)]
    )


def places_with_last(scores: Sequence[int], last: Sequence[int]) -> tuple[int, ...]:
    """The places when the seats in ``last`` gave the game up (a forfeit, a resignation, a
    no-show): they share the last place; every other seat is placed by its score."""
    return ranked([(0 if seat in last else 1, score) for seat, score in enumerate(scores)])


def result_of(places: Sequence[int]) -> str:
    """``Match.result`` for these places: a duel's winner or draw, a table's ``table``."""
    if len(places) == 2:
        return _DUEL_RESULTS[(places[0], places[1])]
    return TABLE


def places_of_result(result: str, seat_count: int) -> tuple[int, ...] | None:
    """A duel's places from its result (``first``/``second``/``draw``); None for no result
    (and for a table, whose places are never derived from a result)."""
    if seat_count != 2:
        return None
    return _DUEL_PLACES.get(result)
