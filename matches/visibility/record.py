"""After the end, the whole record is public: the record's side of the secrecy policy.

While a match is played, a rack's letters (its deal, its draws, what it holds) and the
letters a swap returned reach only the seat that holds them, and the seed nobody. Once the
match is over, however it ended, it is a finished game like one played over the board:
every rack of every turn, every swapped letter, the final racks and the seed are public to
whoever may see the match (:mod:`matches.visibility.policy`, rule 4; RULES.md, section 5).
The replay, the GCG export and the bag check ask here, and this asks the policy.
"""

from __future__ import annotations

from matches.models import Match, Turn
from matches.schemas import TurnTiles
from matches.visibility.access import Viewer
from matches.visibility.policy import Fact, known_to_every_watcher, may_know

#: The tiles a seat holds, as the policy names them: its racks (and draws), its swaps.
SEAT_TILES = (Fact.RACK, Fact.SWAPPED)


def record_is_public(match: Match) -> bool:
    """Whether every seat's tiles (every rack, draw and swap) are public to whoever may see
    ``match``: once it is over, however it ended."""
    return all(known_to_every_watcher(match, fact) for fact in SEAT_TILES)


def seats_shown(match: Match, viewer: Viewer) -> frozenset[int]:
    """The seats whose racks, draws and swapped letters ``viewer`` sees: every seat once the
    record is public; before, their own seat only (none for someone who holds no seat)."""
    return frozenset(
        seat
        for seat in (0, 1)
        if all(may_know(match, viewer, fact, seat=seat) for fact in SEAT_TILES)
    )


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
