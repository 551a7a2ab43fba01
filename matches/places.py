"""Who placed where at a finished match's table: the places a game's end gives, the result
that names them, and the places read back from a finished match's rows.

Every finished match writes each seat's ``place`` (1: won; tied seats share a place, and the
next place skips as many as shared: 1, 1, 3). A duel's result is also ``first``, ``second``
or ``draw``; a table of 3-4 says ``table`` and its places say the rest (docs/RULES.md,
"A table of three or four"). What places mean pair by pair is :mod:`matches.pairwise` (pure:
the ratings' policy reads it without Django).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import Game
from matches.models import Match, Seat

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


def seat_places(match: Match, seats: Sequence[Seat]) -> dict[int, int] | None:
    """Each seated member's place (member id: place), or None when the match has no result
    between at least two members (unfinished, abandoned, a duel's no-show; a table is read
    among its seated members whose places are written)."""
    if match.status != Match.Status.FINISHED:
        return None
    held = [seat for seat in seats if seat.member_id is not None]
    if match.result in _DUEL_PLACES:
        if len(seats) != 2 or len(held) != 2:
            return None  # a no-show: nobody in the other seat
        return {seat.member_id: _DUEL_PLACES[match.result][seat.position] for seat in held}  # type: ignore[misc]
    if match.result == Match.Result.TABLE:
        placed = {seat.member_id: seat.place for seat in held if seat.place is not None}
        return placed if len(placed) >= 2 else None  # type: ignore[return-value]
    return None
