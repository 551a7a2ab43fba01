"""What one finished game counts for, from each seated member's side: the result and the
spread that the standings (tournaments/standings.py) and a player's page both use.

Which games count, and how (kept in step with the ratings, docs/RATINGS.md): a finished
match with a result. Played out or six scoreless turns: the final scores make the spread.
A resignation: the scores as they stood, never in the resigner's favour. A forfeit, a
no-show or an organiser's adjudication: the result counts, the spread nothing (its scores were
not settled on the board). A cancelled, voided or abandoned match has no result and counts
for nobody.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from matches.models import Match, Seat

#: Results decided on the board: the final scores are the spread.
ON_THE_BOARD = frozenset({Match.EndReason.PLAYED_OUT, Match.EndReason.SIX_SCORELESS})
#: A result that counts: a win for a seat, or a draw.
RESULTS = frozenset({Match.Result.FIRST, Match.Result.SECOND, Match.Result.DRAW})


@dataclass(frozen=True)
class GameCount:
    """What one finished game counts for, from one seated member's side."""

    match_id: int
    member_id: int
    opponent_id: int | None
    points: float  # 1, 0.5 or 0
    spread: int

    @property
    def outcome(self) -> str:
        return {1.0: "won", 0.5: "drawn", 0.0: "lost"}[self.points]


def counts(match: Match) -> bool:
    """Whether ``match`` counts at all: finished, with a win or a draw."""
    return match.status == Match.Status.FINISHED and match.result in RESULTS


def _spread(match: Match, seat: Seat, other: Seat | None) -> int:
    if other is None:
        return 0
    difference = seat.score - other.score
    if match.end_reason in ON_THE_BOARD:
        return difference
    if match.end_reason == Match.EndReason.RESIGNED:
        # Never in the resigner's favour: resigning must not be a cheaper loss than playing
        # on, nor a lead kept by giving up.
        won = match.result == (Match.Result.FIRST, Match.Result.SECOND)[seat.position]
        return max(difference, 0) if won else min(difference, 0)
    return 0  # forfeit, no-show, adjudication: the scores were not settled on the board


def game_counts(match: Match, seats: Sequence[Seat]) -> list[GameCount]:
    """What ``match`` counts for each seated member (none if it does not count).

    ``seats`` are the match's seats in position order (prefetched by the caller)."""
    if not counts(match):
        return []
    by_position = {seat.position: seat for seat in seats}
    lines = []
    for seat in seats:
        if seat.member_id is None:
            continue  # the empty seat of a no-show, or the computer
        other = by_position.get(1 - seat.position)
        if match.result == Match.Result.DRAW:
            points = 0.5
        elif match.result == (Match.Result.FIRST, Match.Result.SECOND)[seat.position]:
            points = 1.0
        else:
            points = 0.0
        lines.append(
            GameCount(
                match_id=match.id,
                member_id=seat.member_id,
                opponent_id=other.member_id if other is not None else None,
                points=points,
                spread=_spread(match, seat, other),
            )
        )
    return lines
