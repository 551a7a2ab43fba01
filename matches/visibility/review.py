"""After the game, a player's own moves beside the best play from each rack: what each turn
left on the board, and the game's total.

The replay's analysis (:mod:`~matches.visibility.analysis`) shown all at once, under the
same rule: a best play is made of the rack's letters, so it goes to the player who held that
rack only, and only once the match is over (during play it would be advice). Each player
gets their own turns and nobody else's; a spectator and anyone before the end get nothing.

How a turn is counted, so the figures mean one thing:

- the engine's best is the highest-scoring play it finds from the same rack on the same
  board (``analysis.best``), score alone: the tiles kept are not weighed;
- a play loses the best play's score less its own, never below 0 (a play scoring as much
  as the best loses nothing, whichever play it is);
- a swap or a pass scores 0, so it loses the best play's whole score (0 when the rack had
  no play); a swap that keeps a better rack still shows the points it gave up;
- the end-of-game adjustments for tiles left on the racks are no turn and are not counted.
"""

from __future__ import annotations

from matches.schemas import BestPlayView, MovesReview, ReviewedMove, WordView
from matches.visibility.access import MatchAccess
from matches.visibility.analysis import best_play_view, has_finder


def points_lost(score: int, best: BestPlayView | None) -> int:
    """What a turn scoring ``score`` left on the board against ``best`` (never negative)."""
    return max(0, (best.score if best is not None else 0) - score)


def moves_review(access: MatchAccess) -> MovesReview | None:
    """The viewer's own turns of a finished match, each beside the best play from its rack,
    with the points lost; None for a viewer without a seat, before the end, and when no
    finder of best plays is registered.

    Costs one move generation per turn the first time (the finder keeps each turn's best
    play), then reads the kept rows: so it is for a page or an API answer, not for the
    socket's event loop."""
    match, turns, viewer = access.match, access.turns, access.viewer
    if not match.is_over or viewer.seat is None or not has_finder():
        return None
    moves = []
    for index, made in enumerate(turns):
        if made.position != viewer.seat:
            continue
        best = best_play_view(match, turns, index)
        moves.append(
            ReviewedMove(
                number=made.number,
                kind=made.kind,
                rack=made.rack_before,
                words=[WordView(**word) for word in made.words],
                swap_count=made.swap_count,
                score=made.score,
                best=best,
                points_lost=points_lost(made.score, best),
            )
        )
    return MovesReview(
        match_id=match.id,
        position=viewer.seat,
        moves=moves,
        scored=sum(move.score for move in moves),
        best_total=sum(move.best.score for move in moves if move.best is not None),
        points_left=sum(move.points_lost for move in moves),
    )
