"""What anyone's own check of a finished match reads: the whole record, public after the end.

"Check this game's bag" (``matches/static/fairness.js``), the offline file
(``matches/offline_check.py``) and ``manage.py verify_bag`` read a :class:`FairnessRecord`
and trust nothing else the server says. It is built only once the match is over (before,
the seed is secret and the check has nothing to check); by then the whole record is public
(:func:`~matches.visibility.record.record_is_public`), so it holds, for every viewer alike,
the public move log with its chain and every seat's racks, draws and swapped letters: the
check verifies every draw of the game, whoever runs it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from engine import get_ruleset
from matches.models import Match, Seat, Turn
from matches.schemas import FairnessRecord
from matches.visibility.access import MatchAccess
from matches.visibility.payloads import move_views
from matches.visibility.policy import revealed_seed
from matches.visibility.record import record_is_public, turn_tiles


def fairness_record(access: MatchAccess) -> FairnessRecord | None:
    """The record a viewer checks a finished, dealt match with; None for any other match."""
    return finished_record(access.match, access.seats, access.turns)


def finished_record(match: Match, seats: list[Seat], turns: list[Turn]) -> FairnessRecord | None:
    """The bag check's record of a finished, dealt match: the same for every viewer, so it
    is also the news sent to every watcher when the match ends. None for any other match."""
    seed = revealed_seed(match)
    if not seed or not record_is_public(match) or match.game_state is None:
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
        turn_tiles=turn_tiles(turns),
        final_racks=[seat.rack for seat in seats],
    )


_SCRIPT = Path(__file__).resolve().parent.parent / "offline_check.py"


def verification_file(access: MatchAccess) -> str | None:
    """The self-contained offline check: ``offline_check.py`` with the match's record
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
