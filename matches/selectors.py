"""Read-only queries behind the pages: which matches a list holds.

Selectors choose rows; :mod:`matches.visibility` decides who may see them and turns each
into what a page shows. Nothing here writes, and nothing here reads a hidden field.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from django.db.models import F, QuerySet

from matches import away, visibility
from matches.models import Match

if TYPE_CHECKING:
    from accounts.models import Member

RECENT_LIMIT = 20


def _listed(matches: QuerySet[Match]) -> QuerySet[Match]:
    return matches.select_related("tournament").prefetch_related("seats__member")


def home_lists(user: Member | Any) -> dict[str, list[visibility.MatchLine]]:
    """Upcoming and live matches (soonest first), and recently finished ones (latest first)."""
    matches = visibility.visible_matches(user)
    upcoming = _listed(
        matches.filter(status__in=[Match.Status.SCHEDULED, Match.Status.LIVE]).order_by(
            F("kickoff_at").asc(nulls_last=True), "id"
        )
    )
    finished = _listed(
        matches.filter(status__in=[Match.Status.FINISHED, Match.Status.ABANDONED]).order_by(
            F("finished_at").desc(nulls_last=True), "-id"
        )[:RECENT_LIMIT]
    )
    return {
        "upcoming": [visibility.match_line(match) for match in upcoming],
        "finished": [visibility.match_line(match) for match in finished],
    }


@dataclass(frozen=True)
class MyMatchLine(visibility.MatchLine):
    """A line of the member's own list, with whose move it is and the turn's deadline."""

    your_move: bool = False
    to_move_name: str | None = None
    turn_deadline_at: datetime | None = None


def _urgency(line: MyMatchLine) -> tuple[Any, ...]:
    """Waiting on you (earliest deadline first), then on your opponent (likewise), then
    scheduled (soonest kick-off first), then the rest (latest finished first)."""
    far = datetime.max.replace(tzinfo=UTC)
    if line.status == Match.Status.LIVE:
        deadline = line.turn_deadline_at or far
        return (0 if line.your_move else 1, deadline, 0.0, line.id)
    if line.status == Match.Status.SCHEDULED:
        return (2, line.kickoff_at or far, 0.0, line.id)
    finished = line.finished_at or line.kickoff_at
    return (3, far, -(finished.timestamp() if finished else 0.0), -line.id)


def my_match_lines(member: Member) -> list[MyMatchLine]:
    """The member's own matches, most urgent first (see :func:`_urgency`), each with whose
    move it is and until when: the public facts any watcher of the match sees."""
    matches = _listed(Match.objects.filter(seats__member=member))
    lines = []
    for match in matches:
        line = visibility.match_line(match, member_id=member.pk)
        live = match.status == Match.Status.LIVE and match.to_move is not None
        mover = next((seat for seat in line.seats if live and seat.position == match.to_move), None)
        seats = {seat.member_id: seat.position for seat in match.seats.all()}
        lines.append(
            MyMatchLine(
                **{f.name: getattr(line, f.name) for f in fields(line)},
                your_move=mover is not None and seats.get(member.pk) == mover.position,
                to_move_name=(mover.name or mover.label) if mover else None,
                # The deadline the clock applies: later by the mover's declared vacation.
                turn_deadline_at=away.turn_deadline(match, list(match.seats.all()))
                if live
                else None,
            )
        )
    return sorted(lines, key=_urgency)


@dataclass(frozen=True)
class WaitingMatch:
    """A live match waiting on one member's move: its list line and its deadline."""

    line: visibility.MatchLine
    turn_deadline_at: datetime | None

    @property
    def id(self) -> int:
        return self.line.id

    @property
    def name(self) -> str:
        return self.line.name

    @property
    def opponent(self) -> str | None:
        return self.line.opponent


def matches_waiting_on(member: Member) -> list[WaitingMatch]:
    """The live matches where it is ``member``'s move, most urgent (earliest deadline) first.

    One query over the member's seats, the seat's position compared with the match's
    ``to_move`` in the same join; used by the daily digest and the lists of urgency.
    """
    matches = _listed(
        Match.objects.filter(
            status=Match.Status.LIVE, seats__member=member, seats__position=F("to_move")
        ).order_by(F("turn_deadline_at").asc(nulls_last=True), "id")
    )
    waiting = [
        WaitingMatch(
            visibility.match_line(match, member_id=member.pk),
            away.turn_deadline(match, list(match.seats.all())),  # a vacation pauses it
        )
        for match in matches
    ]
    far = datetime.max.replace(tzinfo=UTC)
    return sorted(waiting, key=lambda w: (w.turn_deadline_at or far, w.line.id))


__all__ = [
    "MyMatchLine",
    "WaitingMatch",
    "home_lists",
    "matches_waiting_on",
    "my_match_lines",
]
