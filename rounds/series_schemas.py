"""The shapes of a Word Skill tournament (a rounds series), defined once: the page and the API
(``/api/series/<id>/``) both render ``SeriesView``, built by ``rounds.series_selectors``."""

from __future__ import annotations

from typing import Literal

from matches.schemas import Shape, When

SessionStatus = Literal["scheduled", "opened", "cancelled"]


class SeriesSessionLine(Shape):
    """One session: its kick-off, what became of it, its match once opened."""

    number: int
    kickoff_at: When
    status: SessionStatus
    #: The session's rounds match (None until kick-off, and for a cancelled session).
    match_id: int | None
    #: Why a cancelled session was cancelled ("" otherwise).
    reason: str
    #: The entrants who checked in (the session's players once it opened).
    present: list[str]
    #: The session's top so far: the sum of its closed rounds' best plays.
    top: int
    rounds_closed: int


class SeriesStandingRow(Shape):
    """One entrant's line: total over every session (a session missed counts 0) and its
    percentage of the top (the sum of every closed round's best play, over all sessions)."""

    place: int
    member_id: int
    name: str
    total: int
    percent: float
    sessions_played: int
    #: Their total in each session, in session order (0 for a session missed or cancelled).
    by_session: list[int]


class SeriesView(Shape):
    """A Word Skill tournament as a viewer may see it: its sessions and its standings."""

    tournament_id: int
    name: str
    visibility: Literal["public", "members"]
    turn_time_seconds: int
    round_time_seconds: int
    entrants: list[str]
    sessions: list[SeriesSessionLine]
    top: int
    standings: list[SeriesStandingRow]
