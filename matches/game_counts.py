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
from matches.pairwise import pairwise_score, pairwise_spread
from matches.places import seat_places

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


# ---------------------------------------------------------------- tables of 3-4


@dataclass(frozen=True)
class TableCount:
    """What one finished table game counts for, from one seated member's side: their place
    among ``players``, their pairwise score (one per player placed below, a half per tie:
    also N-1 for first ... 0 for last, ties sharing the average), their share of first place
    (1 alone, 1/k of k tied, else 0) and their spread (the duel spread against each other
    player, summed: :func:`matches.pairwise.pairwise_spread`)."""

    match_id: int
    member_id: int
    place: int
    players: int
    pairwise: float
    first_share: float
    spread: int


def is_table(match: Match) -> bool:
    """Whether ``match`` finished as a table: its result is its seats' places."""
    return match.status == Match.Status.FINISHED and match.result == Match.Result.TABLE


def table_counts(match: Match, seats: Sequence[Seat]) -> tuple[list[TableCount], list[GameCount]]:
    """What a finished table counts for each placed member, and its pairwise games: each
    pair of players once from either side (the better place a win, the same place a draw,
    with that pair's spread), for head-to-head and the opposition's tie-breaks. Spread as a
    duel's: the final scores played out, never in the worse-placed player's favour after a
    resignation, nothing when the board did not settle the scores. Nothing for a match that
    is not a finished table."""
    places = seat_places(match, seats) if is_table(match) else None
    if places is None:
        return [], []
    scores = {seat.member_id: seat.score for seat in seats if seat.member_id in places}
    on_board = match.end_reason in ON_THE_BOARD
    resigned = match.end_reason == Match.EndReason.RESIGNED
    firsts = sum(place == 1 for place in places.values())

    def spread(member: int, among: dict[int, int]) -> int:
        if not (on_board or resigned):
            return 0
        return pairwise_spread(scores, among, member, clamped=resigned)

    lines = [
        TableCount(
            match_id=match.id,
            member_id=member,
            place=place,
            players=len(places),
            pairwise=pairwise_score(places, member),
            first_share=1 / firsts if place == 1 else 0.0,
            spread=spread(member, places),
        )
        for member, place in places.items()
    ]
    games = [
        GameCount(
            match_id=match.id,
            member_id=member,
            opponent_id=other,
            points=pairwise_score(pair, member),
            spread=spread(member, pair),
        )
        for member in places
        for other in places
        if other != member
        for pair in ({member: places[member], other: places[other]},)
    ]
    return lines, games
