"""After the end, the whole record is public: the one place that decides it.

While a match is played, a rack's letters (its deal, its draws, what it holds) and the
letters a swap returned reach only the seat that holds them, and the seed nobody. Once the
match is over, however it ended, the game is a finished game like one played over the
board: every rack of every turn, every swapped letter, the final racks and the seed are
public to whoever may see the match (RULES.md, section 5). The replay, the GCG export and
the bag check ask here which seats' tiles a viewer sees.
"""

from __future__ import annotations

from matches.models import Match, Turn
from matches.schemas import TurnTiles
from matches.visibility.access import Viewer

BOTH_SEATS = frozenset({0, 1})


def record_is_public(match: Match) -> bool:
    """Whether the whole record (every rack, draw and swap, and the seed) is public to
    whoever may see ``match``: once it is over, however it ended."""
    return match.is_over


def seats_shown(match: Match, viewer: Viewer) -> frozenset[int]:
    """The seats whose racks, draws and swapped letters ``viewer`` sees: every seat once the
    record is public; before, their own seat only (none for someone who holds no seat)."""
    if record_is_public(match):
        return BOTH_SEATS
    return frozenset() if viewer.seat is None else frozenset({viewer.seat})


def turn_tiles(turns: list[Turn]) -> list[TurnTiles]:
    """Each turn's tiles as the record publishes them after the end: the mover's rack before
    it, the tiles drawn after it, a swap's letters. Only for a record that is public."""
    return [
        TurnTiles(
            number=turn.number,
            position=turn.position,
            rack_before=turn.rack_before,
            drawn=turn.drawn,
            swapped=turn.swapped if turn.kind == Turn.Kind.SWAP else "",
        )
        for turn in turns
    ]
