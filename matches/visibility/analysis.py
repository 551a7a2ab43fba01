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


def has_finder() -> bool:
    """Whether a finder of best plays is registered (the analysis app is installed)."""
    return bool(_finders)


def best_play_view(match: Match, turns: Sequence[Turn], index: int) -> BestPlayView | None:
    """The best play from the rack of ``turns[index]`` as it goes out (None: that rack had no
    play at all), from the registered finder: one move generation the first time, then
    the kept row. Ungated: only this package's builders call it, after deciding who may
    see it (the rack's owner, once the match is over)."""
    best = _finders[0](match, turns, index)
    if not best.found:
        return None
    return BestPlayView(
        tiles=[TileView(**tile) for tile in best.placement],
        words=[WordView(**word) for word in best.words],
        score=best.score,
        bingo=best.bingo,
    )


def turn_analysis(access: MatchAccess, turn: int) -> TurnAnalysis | None:
    """At the replay step after ``turn`` turns: turn ``turn + 1`` and the best play from its
    rack, for the player who held that rack once the match is over; None for anyone else,
    at any time before the end, and at the last step (no turn follows)."""
    match, turns, viewer = access.match, access.turns, access.viewer
    if not match.is_over or turn >= len(turns):
        return None
    made = turns[turn]
    if viewer.seat is None or made.position != viewer.seat or not has_finder():
        return None
    return TurnAnalysis(
        number=made.number,
        position=made.position,
        kind=made.kind,
        score=made.score,
        best=best_play_view(match, turns, turn),
    )
