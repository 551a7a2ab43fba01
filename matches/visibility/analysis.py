"""The analysis a replay step carries: the best play of the rack the next turn was made from.

That play is made of the rack's letters, so it follows the rack's rule (its owner only), and
it waits for the end of the match: during play it would be advice, and the opponent's would
reveal their rack.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from matches.models import Match, Turn
from matches.schemas import BestPlayView, TileView, TurnAnalysis, WordView
from matches.visibility.access import MatchAccess


class BestPlay(Protocol):
    """The best play of one turn's rack, as the analysis app keeps it."""

    found: bool
    placement: list[dict[str, Any]]
    words: list[dict[str, Any]]
    score: int
    bingo: bool


#: ``finder(match, turns, index)``: the best play from the rack of ``turns[index]``.
BestPlayFinder = Callable[[Match, Sequence[Turn], int], BestPlay]

_finders: list[BestPlayFinder] = []


def register(finder: BestPlayFinder) -> None:
    """Make ``finder`` the one source of best plays (the analysis app's, from its
    ``ready()``); with none registered a replay carries no analysis."""
    _finders[:] = [finder]


def turn_analysis(access: MatchAccess, turn: int) -> TurnAnalysis | None:
    """At the replay step after ``turn`` turns: turn ``turn + 1`` and the best play from its
    rack, for the player who held that rack once the match is over; None for anyone else,
    at any time before the end, and at the last step (no turn follows)."""
    match, turns, viewer = access.match, access.turns, access.viewer
    if not match.is_over or turn >= len(turns):
        return None
    made = turns[turn]
    if viewer.seat is None or made.position != viewer.seat or not _finders:
        return None
    best = _finders[0](match, turns, turn)
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
