"""How long a play stays open to a challenge, and whether it still is (RULES.md
"Challenges"): until the next player commits a move, or the match's challenge window
(``Match.challenge_window``; by default a turn's time, so the next move's deadline)."""

from __future__ import annotations

from datetime import datetime, timedelta

from matches.models import Match


def window_of(match: Match) -> timedelta:
    """The match's challenge window (its turn time when it sets none)."""
    return match.challenge_window if match.challenge_window is not None else match.time_per_move


def has_open_play(match: Match) -> bool:
    """Whether the last play can still be challenged by the game (ignoring the clock)."""
    state = match.game_state or {}
    return match.status == Match.Status.LIVE and state.get("open_play") is not None


def open_play_player(match: Match) -> int | None:
    """The seat whose play is open to a challenge (None when none is)."""
    if not has_open_play(match):
        return None
    return int(match.game_state["open_play"]["turn"]["player"])  # type: ignore[index]


def challenge_until(match: Match) -> datetime | None:
    """When the open play's window closes (None when no play is open): the play was made
    when the turn after it started."""
    if not has_open_play(match) or match.turn_started_at is None:
        return None
    until = match.turn_started_at + window_of(match)
    if match.to_move is not None and match.turn_deadline_at is not None:
        return min(until, match.turn_deadline_at)
    return until
