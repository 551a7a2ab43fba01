"""A finished match's places, and what they mean pair by pair: the one reading of who beat
whom at a table of 2-4 that the ratings and the tournament standings share.

A seat's place is 1 for the winner; tied seats share a place (``Seat.place``). A duel's places
are read from its result (First won, Second won, a draw), which every finished duel has had
from the start; a table's (``Match.Result.TABLE``) from the seats' places. Each pair of seated
players is one pairwise result: the better place wins, the same place is a draw. A seat's
share of the table is its pairwise score: one for each player placed below it, a half for
each tied with it, which is also N-1 for first ... 0 for last with ties sharing the average.
Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from matches.models import Match, Seat

#: A duel's places (First's, Second's) by its result.
_DUEL_PLACES: dict[str, tuple[int, int]] = {
    Match.Result.FIRST: (1, 2),
    Match.Result.SECOND: (2, 1),
    Match.Result.DRAW: (1, 1),
}


@dataclass(frozen=True)
class PairResult:
    """One pair of seated players of a finished match: ``score`` is ``better``'s side of it
    (1 a win, 0.5 a draw); the other's is 1 - ``score``."""

    better: int
    worse: int
    score: float


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


def pairwise(places: Mapping[int, int]) -> list[PairResult]:
    """Every pair of ``places``' players once, the better-placed first (the earlier key on a
    tie), in the mapping's order."""
    results = []
    for one, other in combinations(places, 2):
        better, worse = (other, one) if places[other] < places[one] else (one, other)
        score = 1.0 if places[better] < places[worse] else 0.5
        results.append(PairResult(better=better, worse=worse, score=score))
    return results


def pairwise_score(places: Mapping[int, int], player: int) -> float:
    """``player``'s share of the table: one per player placed below, a half per tie."""
    own = places[player]
    return sum(
        1.0 if own < place else 0.5 if own == place else 0.0
        for other, place in places.items()
        if other != player
    )


def pairwise_spread(
    scores: Mapping[int, int], places: Mapping[int, int], player: int, *, clamped: bool
) -> int:
    """The sum over ``player``'s opponents of their score difference (own minus theirs): a
    duel's spread, and at a table the same duel spread against each opponent. ``clamped``
    (a resignation): each difference is never in the worse-placed player's favour."""
    total = 0
    for other, place in places.items():
        if other == player:
            continue
        difference = scores[player] - scores[other]
        if clamped and places[player] < place:
            difference = max(difference, 0)
        elif clamped and places[player] > place:
            difference = min(difference, 0)
        total += difference
    return total
