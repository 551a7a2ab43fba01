"""A finished match's places, and what they mean pair by pair: the one reading of who beat
whom at a table of 2-4 that the ratings and the tournament standings share.

A seat's place is 1 for the winner; tied seats share a place (``Seat.place``). A duel's places
are read from its result (First won, Second won, a draw), which every finished duel has had
from the start; a table's (``Match.Result.TABLE``) from the seats' places. Each pair of seated
players is one pairwise result: the better place wins, the same place is a draw. A seat's
share of the table is its pairwise score (:mod:`matches.pairwise`, pure: the ratings' policy
reads it without Django). Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Sequence

from matches.models import Match, Seat

#: A duel's places (First's, Second's) by its result.
_DUEL_PLACES: dict[str, tuple[int, int]] = {
    Match.Result.FIRST: (1, 2),
    Match.Result.SECOND: (2, 1),
    Match.Result.DRAW: (1, 1),
}


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
