"""What Celery beat runs for notifications: forfeit warnings, kick-off reminders, daily
digests, and the deliveries whose time has come. Each selects its work by state (the
matches' deadline indexes, the pending deliveries' index) and records notices under unique
keys, so running it twice, or two at once, sends nothing twice."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from matches import away, selectors
from matches.models import Match, Seat
from notifications import delivery, notices
from notifications.models import Delivery, Kind, Notice, NotificationSettings
from notifications.notices import Spec

#: The furthest a forfeit warning may come before the deadline (a turn lasts 72 hours).
MAX_WARNING_HOURS = 71
KICKOFF_NOTICE = timedelta(hours=1)
#: A notice not dispatched this long after it was written lost its task: the sweep sends it.
LOST_TASK_AFTER = timedelta(seconds=30)
BATCH = 200


def _settings_by_member(member_ids: set[int]) -> dict[int, NotificationSettings]:
    found = {s.member_id: s for s in NotificationSettings.objects.filter(member_id__in=member_ids)}
    return {pk: found.get(pk) or NotificationSettings(member_id=pk) for pk in member_ids}


def warn_forfeits(*, now: datetime | None = None) -> list[str]:
    """Record the forfeit warnings due now: for each live match whose deadline is within
    the warnings' reach (the ``match_due_forfeit`` index), the latest threshold of the
    player to move that has passed, per channel."""
    now = now or timezone.now()
    reach = now + timedelta(hours=MAX_WARNING_HOURS)
    live = list(
        Match.objects.filter(
            # A tournament match whose stored deadline has passed is still live only while
            # its mover's vacation pauses it (vacations/pauses.py): it may be due a warning.
            Q(turn_deadline_at__gt=now) | Q(tournament__isnull=False),
            status=Match.Status.LIVE,
            turn_deadline_at__lte=reach,
        )
        .order_by("turn_deadline_at", "id")
        .only(
            "id",
            "status",
            "tournament_id",
            "turn_number",
            "to_move",
            "turn_started_at",
            "turn_deadline_at",
        )
    )
    if not live:
        return []
    seated: dict[tuple[int, int], int] = {}
    for seat in Seat.objects.filter(match__in=live, member__isnull=False).only(
        "match_id", "position", "member_id"
    ):
        assert seat.member_id is not None
        seated[(seat.match_id, seat.position)] = seat.member_id
    movers = {
        match.id: seated[(match.id, match.to_move)]
        for match in live
        if match.to_move is not None and (match.id, match.to_move) in seated
    }
    prefs = _settings_by_member(set(movers.values()))
    specs = []
    for match in live:
        member_id = movers.get(match.id)
        deadline = away.turn_deadline(match)  # later by the mover's vacation, if any
        if member_id is None or deadline is None or not now < deadline <= reach:
            continue
        thresholds = set()
        for channel in ("email", "push"):
            passed = [
                h
                for h in prefs[member_id].warning_hours(channel)
                if deadline - timedelta(hours=h) <= now
            ]
            if passed:
                thresholds.add(min(passed))
        specs += [
            Spec(
                key=f"forfeit:{match.id}:{match.turn_number}:{hours}:{member_id}",
                member_id=member_id,
                kind=Kind.FORFEIT,
                match_id=match.id,
                turn_number=match.turn_number,
                hours=hours,
            )
            for hours in sorted(thresholds)
        ]
    return _record_new(specs, now=now)


def remind_kickoffs(*, now: datetime | None = None) -> list[str]:
    """Record "kick-off in one hour" for the seated players of each fixture kicking off
    within the hour (the ``match_due_kickoff`` index); not for a fixture scheduled within
    the hour of its kick-off, whose own notice said so."""
    now = now or timezone.now()
    soon = Match.objects.filter(
        status=Match.Status.SCHEDULED, kickoff_at__gt=now, kickoff_at__lte=now + KICKOFF_NOTICE
    ).order_by("kickoff_at", "id")
    specs = []
    for seat in Seat.objects.filter(match__in=soon, member__isnull=False).select_related("match"):
        kickoff = seat.match.kickoff_at
        if seat.member_id is None or kickoff is None:
            continue
        if seat.match.created_at > kickoff - KICKOFF_NOTICE:
            continue  # scheduled within the hour: its fixture notice named the kick-off
        specs.append(
            Spec(
                key=f"kickoff:{seat.match_id}:{seat.member_id}:{int(kickoff.timestamp())}",
                member_id=seat.member_id,
                kind=Kind.KICKOFF,
                match_id=seat.match_id,
            )
        )
    return _record_new(specs, now=now)


def send_digests(*, now: datetime | None = None) -> list[str]:
    """Record today's digest for each member who takes "your move" as a daily digest, in
    the hour they chose (their own time zone), when a match is waiting on them."""
    now = now or timezone.now()
    specs = []
    chosen = NotificationSettings.objects.filter(
        your_move_email=NotificationSettings.EmailMode.DIGEST
    ).select_related("member")
    for prefs in chosen:
        local = now.astimezone(prefs.zone)
        if local.hour != prefs.digest_hour or Kind.YOUR_MOVE not in prefs.email_kinds:
            continue
        if not selectors.matches_waiting_on(prefs.member):
            continue
        specs.append(
            Spec(
                key=f"digest:{prefs.member_id}:{local.date().isoformat()}",
                member_id=prefs.member_id,
                kind=Kind.DIGEST,
            )
        )
    return _record_new(specs, now=now)


def _record_new(specs: list[Spec], *, now: datetime) -> list[str]:
    """Record the notices not recorded before; their delivery is queued after the commit."""
    if not specs:
        return []
    with transaction.atomic():
        known = set(
            Notice.objects.filter(key__in=[s.key for s in specs]).values_list("key", flat=True)
        )
        fresh = [spec for spec in specs if spec.key not in known]
        notices.record(fresh, now=now)
    return [spec.key for spec in fresh]


def send_due(*, now: datetime | None = None) -> list[str]:
    """Dispatch notices whose task was lost, and send deliveries whose time has come
    (after quiet hours, or a retry's wait), off the pending deliveries' index."""
    now = now or timezone.now()
    outcomes = []
    lost = Notice.objects.filter(
        dispatched_at__isnull=True, created_at__lte=now - LOST_TASK_AFTER
    ).order_by("created_at", "id")
    for key in list(lost.values_list("key", flat=True)[:BATCH]):
        outcomes += delivery.dispatch_notice(key=key, now=now)
    due = Delivery.objects.filter(status=Delivery.Status.PENDING, due_at__lte=now).order_by(
        "due_at", "id"
    )
    for pk in list(due.values_list("pk", flat=True)[:BATCH]):
        outcomes.append(delivery.send_delivery(delivery_id=pk, now=now))
    return outcomes


def run_sweep(*, now: datetime | None = None) -> dict[str, list[str]]:
    """Every notification sweep, in one beat task."""
    now = now or timezone.now()
    return {
        "forfeit": warn_forfeits(now=now),
        "kickoff": remind_kickoffs(now=now),
        "digest": send_digests(now=now),
        "sent": send_due(now=now),
    }
