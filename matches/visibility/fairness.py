"""What a viewer's own check of a finished match reads: the public record plus their tiles.

"Check this game's bag" (``matches/static/fairness.js``) and the offline file
(``matches/offline_check.py``) read a :class:`FairnessRecord` and trust nothing else the
server says. It is built only once the match is over (before, the seed is secret and the
check has nothing to check), and it holds the same facts as the viewer's replay and GCG
export: the public move log with its chain, and the viewer's own racks, draws and swaps.
Another seat's rack and swap letters never appear, not even after the end.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from matches.engine import get_ruleset
from matches.models import Match, Seat, Turn
from matches.schemas import FairnessRecord, OwnTurnTiles
from matches.visibility.access import MatchAccess
from matches.visibility.payloads import move_views
from matches.visibility.policy import revealed_seed


def fairness_record(access: MatchAccess) -> FairnessRecord | None:
    """The record a viewer checks a finished, dealt match with; None for any other match."""
    return _record(access.match, access.seats, access.turns, own=access.viewer.seat)


def fairness_news(
    match: Match, seats: list[Seat], turns: list[Turn]
) -> tuple[FairnessRecord | None, list[tuple[int, FairnessRecord]]]:
    """At the end of a match, the news of its bag check: the record every watcher may check
    it with (no seat's tiles), and each seated member's own (their tiles added), to be sent
    to that member only. Nothing for a match that was never dealt."""
    public = _record(match, seats, turns, own=None)
    if public is None:
        return None, []
    own = [
        (seat.member_id, _record(match, seats, turns, own=seat.position))
        for seat in seats
        if seat.member_id is not None
    ]
    return public, [(member_id, record) for member_id, record in own if record is not None]


def _record(
    match: Match, seats: list[Seat], turns: list[Turn], *, own: int | None
) -> FairnessRecord | None:
    seed = revealed_seed(match)
    if not seed or match.game_state is None:
        return None
    ruleset = get_ruleset(match.ruleset)
    return FairnessRecord(
        match_id=match.id,
        ruleset=match.ruleset,
        tiles=dict(sorted(Counter(ruleset.full_bag).items())),
        rack_size=ruleset.rack_size,
        commitment=match.bag_commitment,
        seed=seed,
        contributions=[seat.contribution for seat in seats],
        moves=move_views(match, turns),
        your_seat=own,
        your_turns=[
            OwnTurnTiles(
                number=turn.number,
                rack_before=turn.rack_before,
                drawn=turn.drawn,
                swapped=turn.swapped if turn.kind == Turn.Kind.SWAP else "",
            )
            for turn in turns
            if own is not None and turn.position == own
        ],
        your_final_rack=seats[own].rack if own is not None else None,
    )


_SCRIPT = Path(__file__).resolve().parent.parent / "offline_check.py"


def verification_file(access: MatchAccess) -> str | None:
    """The self-contained offline check: ``offline_check.py`` with this viewer's record
    appended (as a Python string literal: nothing in it can become code). None when the
    match cannot be checked yet."""
    record = fairness_record(access)
    if record is None:
        return None
    data = json.dumps(record.model_dump(mode="json"), sort_keys=True)
    return (
        _SCRIPT.read_text(encoding="utf-8")
        + "\n\n# The record of the game, as the match page showed it to you.\n"
        + f"RECORD = json.loads({data!r})\n\n"
        + 'if __name__ == "__main__":\n    sys.exit(main(RECORD))\n'
    )
