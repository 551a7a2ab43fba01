"""The analysis a replay step carries: the best play of the rack the next turn was made from.

That play is made of the rack's letters, so it follows the rack's rule (its owner only), and
it waits for the end of the match: during play it would be advice, and the opponent's would
reveal their rack.
"""

from __future__ import annotations

from analysis.best import best_play_of
from matches.schemas import BestPlayView, TileView, TurnAnalysis, WordView
from matches.visibility.access import MatchAccess


def turn_analysis(access: MatchAccess, turn: int) -> TurnAnalysis | None:
    """At the replay step after ``turn`` turns: turn ``turn + 1`` and the best play from its
    rack, for the player who held that rack once the match is over; None for anyone else,
    at any time before the end, and at the last step (no turn follows)."""
    match, turns, viewer = access.match, access.turns, access.viewer
    if not match.is_over or turn >= len(turns):
        return None
    made = turns[turn]
    if viewer.seat is None or made.position != viewer.seat:
        return None
    best = best_play_of(match, turns, turn)
    return TurnAnalysis(
        number=made.number,
        position=made.position,
        kind=made.kind,
        score=made.score,
        best=BestPlayView(
            tiles=[TileView(**tile) for tile in best.placement],
            words=[WordView(**word) for word in best.words],
            score=best.score,
            bingo=best.bingo,
        )
        if best.found
        else None,
    )
