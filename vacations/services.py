"""Every change to vacations: declare, cancel, and a tournament's allowance.

Keyword-only functions that lock what they decide on (the member's row, so two declarations
of one member cannot both pass the overlap and allowance checks), check, write, and raise a
``ServiceError`` that changes nothing. The turn clock reads the result through
``vacations/pauses.py``; nothing here writes a match.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.db import transaction
from django.utils import timezone

from accounts.models import Member
from matches.models import Tournament
from vacations import selectors
from vacations.errors import (
    AllowanceNotAllowed,
    AllowanceRefused,
    VacationMissing,
    VacationRefused,
)
from vacations.models import Vacation, VacationAllowance

#: The furthest ahead a vacation's last day may be.
MAX_DAYS_AHEAD = 365
#: The largest allowance an organiser may set.
MAX_ALLOWANCE = 60


def _midnight(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time.min, tzinfo=zone)


def declare_vacation(
    *, member: Member, first_day: date, last_day: date, now: datetime | None = None
) -> Vacation:
    """Declare days away, first to last inclusive, in the member's own time zone.

    Charged to every tournament in which the member holds a seat of a scheduled or live
    match; each must have the days left. Refuses (changing nothing) a non-member, days out
    of order, a first day that is not tomorrow or later, a last day over a year ahead, days
    overlapping another active vacation, no tournament to take it from, and too few days left.
    """
    now = now or timezone.now()
    if not member.is_club_member:
        raise VacationRefused("Only approved club members can declare a vacation.")
    if last_day < first_day:
        raise VacationRefused("The last day away cannot be before the first.")
    zone_name = selectors.time_zone_of(member.pk)
    zone = ZoneInfo(zone_name)
    today = now.astimezone(zone).date()
    if first_day <= today:
        raise VacationRefused(
            "Declare a vacation ahead of time: the first day away must be tomorrow or later."
        )
    if last_day > today + timedelta(days=MAX_DAYS_AHEAD):
        raise VacationRefused(f"A vacation can end at most {MAX_DAYS_AHEAD} days from today.")
    days = (last_day - first_day).days + 1
    with transaction.atomic():
        Member.objects.select_for_update().get(pk=member.pk)  # one declaration at a time
        active = selectors.active_vacations(member.pk)
        if active.filter(first_day__lte=last_day, last_day__gte=first_day).exists():
            raise VacationRefused("You are already away on some of those days.")
        tournaments = selectors.tournaments_in_play(member.pk)
        if not tournaments:
            raise VacationRefused(
                "A vacation pauses your tournament matches, and you have none scheduled or live."
            )
        for tournament in tournaments:
            allowance = selectors.allowance_of(tournament)
            left = max(allowance - selectors.days_used(member.pk, tournament), 0)
            if days > left:
                raise VacationRefused(
                    f"Not enough vacation days: {tournament.name} allows {allowance} a season, "
                    f"you have {left} left, and this vacation needs {days}."
                )
        vacation = Vacation.objects.create(
            member=member,
            first_day=first_day,
            last_day=last_day,
            time_zone=zone_name,
            starts_at=_midnight(first_day, zone),
            ends_at=_midnight(last_day + timedelta(days=1), zone),
            declared_at=now,
        )
        vacation.tournaments.set(tournaments)
    return vacation


def cancel_vacation(*, member: Member, vacation_id: int, now: datetime | None = None) -> Vacation:
    """Cancel one's own vacation before its first day begins (its days are given back)."""
    now = now or timezone.now()
    with transaction.atomic():
        vacation = (
            Vacation.objects.select_for_update()
            .filter(pk=vacation_id, member=member, cancelled_at__isnull=True)
            .first()
        )
        if vacation is None:
            raise VacationMissing(VacationMissing.MESSAGE)
        if vacation.starts_at <= now:
            raise VacationRefused("A vacation can be cancelled only before its first day.")
        vacation.cancelled_at = now
        vacation.save(update_fields=["cancelled_at"])
    return vacation


def set_allowance(
    *, organiser: Member, tournament_id: int, days: int, now: datetime | None = None
) -> VacationAllowance:
    """Set a tournament's allowance (for declarations from now on; none already made moves)."""
    now = now or timezone.now()
    if not organiser.is_organiser:
        raise AllowanceNotAllowed(AllowanceNotAllowed.MESSAGE)
    if not 0 <= days <= MAX_ALLOWANCE:
        raise AllowanceRefused(
            f"A vacation allowance is a whole number of days from 0 to {MAX_ALLOWANCE}."
        )
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None:
            raise AllowanceRefused("There is no such tournament.")
        row, _ = VacationAllowance.objects.update_or_create(
            tournament=tournament,
            defaults={"days": days, "changed_by": organiser, "changed_at": now},
        )
    return row
