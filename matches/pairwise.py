"""What places mean pair by pair, as pure functions of a table's places (member id: place;
1 won, tied seats share a place): each pair of players is one result, the better place wins,
the same place is a draw. A player's share of the table is its pairwise score: one for each
player placed below it, a half for each tied with it, which is also N-1 for first ... 0 for
last with ties sharing the average. No model is imported, so the ratings' pure policy (and
the bench that uses it) needs no Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class PairResult:
    """One pair of seated players of a finished match: ``score`` is ``better``'s side of it
    (1 a win, 0.5 a draw); the other's is 1 - ``score``."""

    better: int
    worse: int
    score: float


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
