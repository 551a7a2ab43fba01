"""What a Word Skill tournament's standings may show of its sessions (docs/RULES.md section 19,
"A Word Skill tournament"): only closed rounds, through ``rounds.public_record``, so a session
in play adds nothing a player has not yet seen of it; a round's top is the score of its best
play (the duplicate top), what a player scored is their ``scores`` entry.

No query: the caller reads the rows. Who may see a tournament at all is
``pages.can_view_tournament`` (its visibility), decided before its standings are asked; a
session's own rounds match follows its tournament (``can_view_session_match``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.rounds import RoundRecord
from matches.models import Visibility
from matches.visibility.access import is_club_member
from matches.visibility.rounds import public_record


@dataclass(frozen=True)
class SessionScore:
    """A session's public score so far: the sum of its rounds' tops, each player's total."""

    top: int
    totals: tuple[int, ...]
    rounds: int


def round_top(record: RoundRecord) -> int:
    """The duplicate top of a closed round: its best play's score (0 when nobody played)."""
    return max((max(record.scores, default=0), 0))


def session_score(closed: Sequence[RoundRecord], *, players: int, over: bool) -> SessionScore:
    """The session's top and every player's total over its closed rounds (``players`` seats)."""
    records = [public_record(record, over=over) for record in closed]
    totals = [0] * players
    for record in records:
        for position, score in enumerate(record.scores[:players]):
            totals[position] += score
    return SessionScore(
        top=sum(round_top(record) for record in records), totals=tuple(totals), rounds=len(records)
    )


def can_view_session_match(*, tournament_visibility: str | None, user: Any) -> bool:
    """Who may see a rounds match: a session of a members-only Word Skill tournament only
    members (as its tournament); any other rounds match (``None``: no tournament) everyone."""
    return tournament_visibility in (None, Visibility.PUBLIC) or is_club_member(user)
