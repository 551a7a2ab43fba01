"""Reads for the organisers' fixture list and the member pickers.

Only public facts of a fixture leave here (its name, status, kick-off, who sits where and
whether a seat has moved): no rack, bag or board. Organisers may see every fixture, members
only ones included (``visibility.access``: an organiser is a watcher of every match), so the
list is not narrowed by who may watch. Which actions a row offers mirrors the services'
rules, for the page's convenience only: the services still decide.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet

from accounts.models import Member
from matches.models import Match, Seat, Tournament, Turn
from matches.visibility.titles import match_title

#: The most fixtures one page of the list shows (narrow it with the filters).
FIXTURE_LIST_LIMIT = 200
#: The most members a picker offers for one prefix.
PICKER_LIMIT = 20
#: The longest prefix a picker looks up (a username's length).
PICKER_PREFIX_LENGTH = 150


@dataclass(frozen=True)
class SeatRow:
    position: int
    label: str
    member: str | None
    has_moved: bool


@dataclass(frozen=True)
class FixtureRow:
    """One fixture as the organisers' list shows it, with the actions its state allows."""

    id: int
    name: str
    status: str
    status_label: str
    kickoff_at: datetime | None
    tournament_id: int | None
    tournament: str | None
    round_number: int | None
    seats: list[SeatRow]
    can_reschedule: bool
    can_cancel: bool
    can_adjudicate: bool
    #: The organiser looking plays in it: another organiser rules on it.
    own: bool = False

    @property
    def substitutable_seats(self) -> list[SeatRow]:
        """Seats whose player may still be replaced: occupied, before kick-off (once live, a
        seat is never handed over)."""
        if self.status != Match.Status.SCHEDULED or self.own:
            return []
        return [seat for seat in self.seats if seat.member is not None]


def fixture_rows(
    *,
    status: str | None = None,
    tournament: Tournament | None = None,
    member: Member | None = None,
    kickoff_from: datetime | None = None,
    kickoff_to: datetime | None = None,
    limit: int = FIXTURE_LIST_LIMIT,
    viewer: Member | None = None,
) -> list[FixtureRow]:
    """Fixtures matching every filter given, by kick-off (none last), then id; those the
    ``viewer`` (an organiser) plays in offer no action."""
    matches: QuerySet[Match] = Match.objects.select_related("tournament")
    if status:
        matches = matches.filter(status=status)
    if tournament is not None:
        matches = matches.filter(tournament=tournament)
    if member is not None:
        matches = matches.filter(seats__member=member)
    if kickoff_from is not None:
        matches = matches.filter(kickoff_at__gte=kickoff_from)
    if kickoff_to is not None:
        matches = matches.filter(kickoff_at__lte=kickoff_to)
    page = list(matches.order_by("kickoff_at", "id")[:limit])
    ids = [match.id for match in page]
    seats: dict[int, list[Seat]] = {}
    for seat in Seat.objects.filter(match_id__in=ids).select_related("member"):
        seats.setdefault(seat.match_id, []).append(seat)
    moved = set(
        Turn.objects.filter(match_id__in=ids).values_list("match_id", "position").distinct()
    )
    rows = []
    for match in page:
        placed = sorted(seats.get(match.id, []), key=lambda s: s.position)
        own = viewer is not None and any(seat.member_id == viewer.pk for seat in placed)
        scheduled = match.status == Match.Status.SCHEDULED and not own
        rows.append(
            FixtureRow(
                id=match.id,
                name=match_title(match, placed),
                status=match.status,
                status_label=match.get_status_display(),
                kickoff_at=match.kickoff_at,
                tournament_id=match.tournament_id,
                tournament=match.tournament.name if match.tournament else None,
                round_number=match.round_number,
                seats=[
                    SeatRow(
                        position=seat.position,
                        label=seat.get_position_display(),
                        member=str(seat.member) if seat.member else None,
                        has_moved=(match.id, seat.position) in moved,
                    )
                    for seat in placed
                ],
                can_reschedule=scheduled,
                can_cancel=scheduled,
                can_adjudicate=match.status == Match.Status.LIVE and not own,
                own=own,
            )
        )
    return rows


def postponable_rounds(tournament: Tournament) -> list[int]:
    """The tournament's rounds with a fixture still to kick off (what a postponement moves)."""
    rounds = Match.objects.filter(
        tournament=tournament,
        status=Match.Status.SCHEDULED,
        kickoff_at__isnull=False,
        round_number__isnull=False,
    ).values_list("round_number", flat=True)
    return sorted({number for number in rounds if number is not None})


def member_options(prefix: str, *, limit: int = PICKER_LIMIT) -> list[Member]:
    """Approved members whose username or display name starts with ``prefix`` (any case),
    by username: what the organisers' pickers offer. Pending and removed accounts, and the
    computer's (which cannot sign in), are never offered."""
    prefix = prefix.replace("\x00", "").strip()[:PICKER_PREFIX_LENGTH]
    members = Member.objects.filter(is_active=True, membership=Member.Membership.APPROVED)
    if prefix:
        members = members.filter(
            Q(username__istartswith=prefix) | Q(display_name__istartswith=prefix)
        )
    return list(members.order_by("username")[:limit])


@dataclass(frozen=True)
class HeldFixture:
    """A fixture a member holds a seat in, not yet over: what removing them would settle."""

    id: int
    name: str
    status: str
    status_label: str
    kickoff_at: datetime | None
    opponent: str | None
    has_moved: bool


def held_fixtures(member: Member) -> list[HeldFixture]:
    """The member's live and future fixtures, live first, then by kick-off (public facts:
    titles, kick-offs, opponents, whether their seat has moved)."""
    seats = (
        Seat.objects.filter(
            member=member, match__status__in=[Match.Status.LIVE, Match.Status.SCHEDULED]
        )
        .select_related("match")
        .order_by("match__status", "match__kickoff_at", "match_id")
    )
    held = []
    for seat in seats:
        match = seat.match
        both = list(Seat.objects.filter(match=match).select_related("member").order_by("position"))
        other = both[1 - seat.position]
        held.append(
            HeldFixture(
                id=match.id,
                name=match_title(match, both),
                status=match.status,
                status_label=match.get_status_display(),
                kickoff_at=match.kickoff_at,
                opponent=other.member.label if other.member is not None else None,
                has_moved=Turn.objects.filter(match=match, position=seat.position).exists(),
            )
        )
    return held
