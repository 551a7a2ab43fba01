"""Tournaments as lists show them: current, upcoming and past; and each round's results.

A tournament is *past* once every fixture is over (finished, or ended with no result), *current*
while it is not past and something has kicked off (a fixture live or over, or a kick-off come),
and *upcoming* while nothing has (no fixtures yet counts as upcoming). Which tournaments a
visitor sees is :func:`matches.visibility.can_view_tournament`'s rule, applied in the query:
members see every one, others only those whose fixtures are all public. Nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import groupby
from typing import TYPE_CHECKING, Any

from django.db.models import Case, CharField, Count, F, Max, Min, Q, Value, When

from matches import visibility
from matches.models import Match, Tournament
from matches.visibility.payloads import seat_name
from matches.visibility.titles import match_title

if TYPE_CHECKING:
    from accounts.models import Member

_OVER = [Match.Status.FINISHED, Match.Status.ABANDONED]


#: Each format as lists and pages name it.
SWISS, KNOCKOUT, ROUND_ROBIN = "Swiss", "Knockout", "Round robin"


def _format_case() -> Case:
    """A tournament's format in a query: a Swiss or a knockout has its own row beside it
    (tournaments/models.py); the others are round robins."""
    return Case(
        When(swiss__isnull=False, then=Value(SWISS)),
        When(knockout__isnull=False, then=Value(KNOCKOUT)),
        default=Value(ROUND_ROBIN),
        output_field=CharField(),
    )


def tournament_format(tournament: Tournament) -> str:
    """``"Swiss"``, ``"Knockout"`` or ``"Round robin"``."""
    row = Tournament.objects.filter(pk=tournament.pk).annotate(format=_format_case())
    return row.values_list("format", flat=True).first() or ROUND_ROBIN


@dataclass(frozen=True)
class TournamentLine:
    """One tournament in the list."""

    id: int
    name: str
    format: str
    organiser: str
    fixtures: int
    over: int
    live: int
    first_kickoff_at: datetime | None
    last_finished_at: datetime | None


@dataclass(frozen=True)
class TournamentLists:
    current: list[TournamentLine]
    upcoming: list[TournamentLine]
    past: list[TournamentLine]


def tournament_lists(user: Member | Any, *, now: datetime) -> TournamentLists:
    """The tournaments ``user`` may see, sorted into current, upcoming and past at ``now``.

    Current: the most recent first kick-off first. Upcoming: the soonest first kick-off
    first. Past: the latest finished first."""
    kicked_off = (
        Q(matches__status__in=[Match.Status.LIVE, Match.Status.FINISHED])
        | Q(matches__kickoff_at__lte=now)
        | (
            Q(matches__status=Match.Status.ABANDONED)
            & ~Q(matches__end_reason=Match.EndReason.CANCELLED)
        )
    )
    rows = Tournament.objects.select_related("organiser").annotate(
        fixture_count=Count("matches", distinct=True),
        over_count=Count("matches", filter=Q(matches__status__in=_OVER), distinct=True),
        live_count=Count("matches", filter=Q(matches__status=Match.Status.LIVE), distinct=True),
        kicked_off_count=Count("matches", filter=kicked_off, distinct=True),
        hidden_count=Count(
            "matches", filter=~Q(matches__visibility=Match.Visibility.PUBLIC), distinct=True
        ),
        first_kickoff_at=Min("matches__kickoff_at"),
        last_finished_at=Max("matches__finished_at"),
        format=_format_case(),
    )
    if not visibility.is_club_member(user):
        # can_view_tournament's rule, for a list
        rows = rows.filter(hidden_count=0, visibility=Match.Visibility.PUBLIC)
    current, upcoming, past = [], [], []
    for row in rows.order_by(F("first_kickoff_at").asc(nulls_last=True), "id"):
        line = TournamentLine(
            id=row.id,
            name=row.name,
            format=row.format,
            organiser=str(row.organiser),
            fixtures=row.fixture_count,
            over=row.over_count,
            live=row.live_count,
            first_kickoff_at=row.first_kickoff_at,
            last_finished_at=row.last_finished_at,
        )
        if row.fixture_count and row.over_count == row.fixture_count:
            past.append(line)
        elif row.kicked_off_count:
            current.append(line)
        else:
            upcoming.append(line)
    current.reverse()
    past.sort(key=lambda line: (line.last_finished_at or now, line.id), reverse=True)
    return TournamentLists(current=current, upcoming=upcoming, past=past)


# ---------------------------------------------------------------- results round by round


@dataclass(frozen=True)
class SeatResult:
    """One seat of a fixture in the results table."""

    label: str
    name: str | None
    username: str | None  # set when the player has a page to link to
    score: int


@dataclass(frozen=True)
class FixtureResult:
    """One fixture of a round: who played whom, the score once kicked off, the result."""

    id: int
    name: str
    status: str
    status_label: str
    members_only: bool
    kickoff_at: datetime | None
    seats: tuple[SeatResult, ...]
    result_text: str
    end_reason_label: str

    @property
    def score_text(self) -> str:
        """``"412–380"`` once the match has kicked off, ``""`` before."""
        if self.status == Match.Status.SCHEDULED:
            return ""
        return "\u2013".join(str(seat.score) for seat in self.seats)


@dataclass(frozen=True)
class RoundResults:
    number: int | None
    fixtures: list[FixtureResult]

    @property
    def played(self) -> int:
        return sum(fixture.status == Match.Status.FINISHED for fixture in self.fixtures)


def round_results(tournament: Tournament) -> list[RoundResults]:
    """The tournament's fixtures, round by round (fixtures without a round last), each with
    its score and result. For a visitor :func:`~matches.visibility.can_view_tournament`
    allowed: they may watch every fixture of it."""
    matches = (
        tournament.matches.prefetch_related("seats__member")
        .order_by(F("round_number").asc(nulls_last=True), "kickoff_at", "id")
        .all()
    )
    fixtures = []
    for match in matches:
        seats = list(match.seats.all())
        fixtures.append(
            (
                match.round_number,
                FixtureResult(
                    id=match.id,
                    name=match_title(match, seats),
                    status=match.status,
                    status_label=match.get_status_display(),
                    members_only=match.visibility == Match.Visibility.MEMBERS,
                    kickoff_at=match.kickoff_at,
                    seats=tuple(
                        SeatResult(
                            label=seat.get_position_display(),
                            name=seat_name(seat),
                            username=(
                                seat.member.username
                                if seat.member is not None and seat.member.is_club_member
                                else None
                            ),
                            score=seat.score,
                        )
                        for seat in seats
                    ),
                    result_text=visibility.result_text(match, seats),
                    end_reason_label=match.get_end_reason_display() if match.end_reason else "",
                ),
            )
        )
    return [
        RoundResults(number, [fixture for _, fixture in group])
        for number, group in groupby(fixtures, key=lambda pair: pair[0])
    ]


__all__ = [
    "KNOCKOUT",
    "ROUND_ROBIN",
    "SWISS",
    "FixtureResult",
    "RoundResults",
    "TournamentLine",
    "TournamentLists",
    "round_results",
    "tournament_format",
    "tournament_lists",
]
