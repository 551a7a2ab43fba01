"""A player's page, as one viewer may see it: results, current matches, head-to-head.

Every match read here comes from :func:`matches.visibility.visible_matches` for the viewer,
the selector the home page lists with: an anonymous visitor, a sign-up still waiting and a
removed member see public matches only; an approved member every one. The head-to-head
record is counted from those same matches, so it never tells a viewer the result of a
match they may not watch. What a game counts for (a forfeit's spread, a resignation's) is
:func:`matches.game_counts.game_counts`, as in the standings. Nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db.models import F

from matches import visibility
from matches.game_counts import game_counts
from matches.models import Match
from matches.visibility.titles import match_title

if TYPE_CHECKING:
    from accounts.models import Member


@dataclass(frozen=True)
class ResultLine:
    """A finished match from the player's side."""

    match_id: int
    name: str
    tournament_id: int | None
    finished_at: datetime | None
    opponent: str | None
    opponent_username: str | None  # set when the opponent has a page to link to
    own_score: int
    opponent_score: int
    outcome: str  # won, drawn or lost
    end_reason_label: str


@dataclass(frozen=True)
class CurrentLine:
    """A live or scheduled match of the player's."""

    match_id: int
    name: str
    status: str
    status_label: str
    kickoff_at: datetime | None
    opponent: str | None
    opponent_username: str | None
    own_score: int
    opponent_score: int
    their_move: bool


@dataclass
class HeadToHead:
    """The player's record against one opponent, in the matches the viewer may see."""

    opponent: str
    opponent_username: str | None
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    spread: int = 0

    @property
    def points(self) -> float:
        return self.won + self.drawn / 2


@dataclass(frozen=True)
class PlayerRecord:
    results: list[ResultLine]
    current: list[CurrentLine]
    head_to_head: list[HeadToHead]


def player_record(member: Member, *, viewer: Member | Any) -> PlayerRecord:
    """``member``'s results (latest first), live and scheduled matches (soonest first) and
    head-to-head record (most games first, then by name), as ``viewer`` may see them."""
    matches = (
        visibility.visible_matches(viewer)
        .filter(seats__member=member)
        .select_related("tournament")
        .prefetch_related("seats__member")
    )
    results: list[ResultLine] = []
    current: list[CurrentLine] = []
    records: dict[int, HeadToHead] = {}
    finished = matches.filter(status=Match.Status.FINISHED).order_by(
        F("finished_at").desc(nulls_last=True), "-id"
    )
    for match in finished:
        seats = list(match.seats.all())
        game = next((g for g in game_counts(match, seats) if g.member_id == member.pk), None)
        if game is None:
            continue  # finished without a result: nothing to count
        own = next(seat for seat in seats if seat.member_id == member.pk)
        other = next((seat for seat in seats if seat.position != own.position), None)
        opponent = other.member if other is not None else None
        username = opponent.username if opponent is not None and opponent.is_club_member else None
        results.append(
            ResultLine(
                match_id=match.id,
                name=match_title(match, seats),
                tournament_id=match.tournament_id,
                finished_at=match.finished_at,
                opponent=opponent.label if opponent is not None else None,
                opponent_username=username,
                own_score=own.score,
                opponent_score=other.score if other is not None else 0,
                outcome=game.outcome,
                end_reason_label=match.get_end_reason_display() if match.end_reason else "",
            )
        )
        if opponent is None:
            continue  # a no-show's empty seat or the computer: no head-to-head
        record = records.setdefault(opponent.pk, HeadToHead(opponent.label, username))
        record.played += 1
        record.won += game.points == 1.0
        record.drawn += game.points == 0.5
        record.lost += game.points == 0.0
        record.spread += game.spread
    ongoing = matches.filter(status__in=[Match.Status.LIVE, Match.Status.SCHEDULED]).order_by(
        "status",
        F("kickoff_at").asc(nulls_last=True),
        "id",  # live before scheduled
    )
    for match in ongoing:
        seats = list(match.seats.all())
        own = next(seat for seat in seats if seat.member_id == member.pk)
        other = next((seat for seat in seats if seat.position != own.position), None)
        opponent = other.member if other is not None else None
        live = match.status == Match.Status.LIVE
        current.append(
            CurrentLine(
                match_id=match.id,
                name=match_title(match, seats),
                status=match.status,
                status_label=match.get_status_display(),
                kickoff_at=match.kickoff_at,
                opponent=opponent.label if opponent is not None else None,
                opponent_username=(
                    opponent.username if opponent is not None and opponent.is_club_member else None
                ),
                own_score=own.score,
                opponent_score=other.score if other is not None else 0,
                their_move=live and match.to_move == own.position,
            )
        )
    head_to_head = sorted(
        records.values(), key=lambda record: (-record.played, record.opponent.lower())
    )
    return PlayerRecord(results=results, current=current, head_to_head=head_to_head)


__all__ = ["CurrentLine", "HeadToHead", "PlayerRecord", "ResultLine", "player_record"]
