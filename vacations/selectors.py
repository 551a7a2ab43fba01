"""Reads for the vacation pages, and the time away the core reads with a match (no writes)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import QuerySet

from matches.away import AwaySpell, TimeAway
from matches.models import Match, Seat, Tournament
from vacations.models import Vacation, VacationAllowance
from vacations.pauses import turn_deadline_paused

LIVE_OR_SCHEDULED = (Match.Status.SCHEDULED, Match.Status.LIVE)


def time_zone_of(member_id: int) -> str:
    """The member's own zone (notification settings), UTC when they have not set one."""
    from notifications.models import NotificationSettings  # noqa: PLC0415

    zone = (
        NotificationSettings.objects.filter(member_id=member_id)
        .values_list("time_zone", flat=True)
        .first()
    )
    return zone or "UTC"


def today_for(member_id: int, now: datetime) -> date:
    """Today's date where the member lives."""
    return now.astimezone(ZoneInfo(time_zone_of(member_id))).date()


def allowance_of(tournament: Tournament) -> int:
    """Days away each member may declare in ``tournament``."""
    row = VacationAllowance.objects.filter(tournament=tournament).first()
    return row.days if row is not None else settings.VACATION_DAYS_PER_TOURNAMENT


def active_vacations(member_id: int) -> QuerySet[Vacation]:
    return Vacation.objects.filter(member_id=member_id, cancelled_at__isnull=True)


def active_vacations_among(member_ids: Iterable[int]) -> QuerySet[Vacation]:
    return Vacation.objects.filter(member_id__in=list(member_ids), cancelled_at__isnull=True)


def days_used(member_id: int, tournament: Tournament) -> int:
    """Days of the member's active vacations charged to ``tournament``."""
    return sum(v.days for v in active_vacations(member_id).filter(tournaments=tournament))


def tournaments_in_play(member_id: int) -> list[Tournament]:
    """Tournaments in which the member holds a seat of a scheduled or live match."""
    return list(
        Tournament.objects.filter(
            matches__seats__member_id=member_id, matches__status__in=LIVE_OR_SCHEDULED
        )
        .distinct()
        .order_by("name", "id")
    )


@dataclass(frozen=True)
class AllowanceLine:
    tournament: Tournament
    allowance: int
    used: int

    @property
    def remaining(self) -> int:
        return max(self.allowance - self.used, 0)


def allowance_lines(member_id: int) -> list[AllowanceLine]:
    """Each tournament the member plays in now, with its allowance and the days used."""
    return [
        AllowanceLine(t, allowance_of(t), days_used(member_id, t))
        for t in tournaments_in_play(member_id)
    ]


@dataclass(frozen=True)
class VacationLine:
    vacation: Vacation
    tournaments: list[str]
    cancellable: bool
    state: str  # "upcoming", "now" or "over"


def vacation_lines(member_id: int, now: datetime) -> list[VacationLine]:
    """The member's active vacations, most recent last."""
    lines = []
    for vacation in active_vacations(member_id).prefetch_related("tournaments"):
        if vacation.starts_at > now:
            state = "upcoming"
        elif vacation.ends_at > now:
            state = "now"
        else:
            state = "over"
        lines.append(
            VacationLine(
                vacation=vacation,
                tournaments=[t.name for t in vacation.tournaments.all()],
                cancellable=state == "upcoming",
                state=state,
            )
        )
    return lines


def time_away(match: Match, seats: Sequence[Seat], now: datetime) -> TimeAway:
    """The players' vacations as a match's snapshot carries them, in one query: each seated
    member's vacation in this tournament match that has not ended (what every viewer is
    told: a vacation is not secret), and the turn deadline the mover's days away pause
    (:mod:`vacations.pauses`). The core's one reader of time away (``matches.away``),
    registered in :class:`vacations.apps.VacationsConfig`."""
    if match.tournament_id is None or match.status not in LIVE_OR_SCHEDULED:
        return TimeAway(spells=(), turn_deadline_at=match.turn_deadline_at)
    positions = {seat.member_id: seat.position for seat in seats if seat.member_id is not None}
    started = match.turn_started_at
    # Ending after now (a notice) or after the turn began (a pause), whichever is earlier.
    since = min(now, started) if started is not None else now
    vacations = list(
        active_vacations_among(positions).filter(
            tournaments__id=match.tournament_id, ends_at__gt=since
        )
    )
    not_ended = sorted(
        (vacation for vacation in vacations if vacation.ends_at > now),
        key=lambda vacation: (positions[vacation.member_id], vacation.starts_at, vacation.pk),
    )
    mover_away = [
        (vacation.starts_at, vacation.ends_at)
        for vacation in vacations
        if positions[vacation.member_id] == match.to_move
        and started is not None
        and vacation.ends_at > started
    ]
    return TimeAway(
        spells=tuple(
            AwaySpell(
                position=positions[vacation.member_id],
                first_day=vacation.first_day,
                last_day=vacation.last_day,
                away_now=vacation.starts_at <= now,
            )
            for vacation in not_ended
        ),
        turn_deadline_at=turn_deadline_paused(match, mover_away),
    )
