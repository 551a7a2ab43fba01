"""The clock: deadlines applied when someone looks, and the sweeps Celery beat runs.

Time is data (docs/DESIGN.md): kick-off, no-show and forfeit are decided from stored times;
a sweep only makes them happen on time and pushes the news. Sweeps are idempotent and share
the work when two run at once.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet

from matches.models import Match
from matches.news import Event, publish_on_commit
from matches.services.common import locked_match, locked_seats
from matches.services.common import now as _now
from matches.services.lifecycle import apply_deadlines, deadline_passed
from matches.visibility import MatchAccess, MatchNotFound, access_match

SWEEP_BATCH = 50


def match_apply_deadlines(*, match_id: int, now: datetime | None = None) -> Match:
    """Apply any passed deadline (used by page loads, API reads and connects).

    Locks the match only when a deadline has passed: a plain read answers the usual case,
    so viewers arriving together (a thousand spectators of one match) do not queue on the
    row lock and a commit each. What was not due at the read is treated as a moment earlier.
    Raises ``Match.DoesNotExist`` for an unknown match.
    """
    now = now or _now()
    match = Match.objects.get(pk=match_id)
    if not deadline_passed(match, now):
        return match
    with transaction.atomic():
        match = locked_match(match_id)
        if match.is_over:
            return match
        publish_on_commit(apply_deadlines(match, locked_seats(match), now=now))
        return match


def look_at_match(*, user: Any, match_id: int, key: str | None) -> MatchAccess:
    """The match ``user`` (holding ``key``) may watch, as it stands now: any deadline that
    has passed is applied first (time is data: kick-off, no-show and forfeit happen when
    someone looks), then the match is read through ``visibility.access_match``. Raises
    ``MatchNotFound`` for no such match and ``MatchHidden`` for one this viewer may not watch.
    Pages, the API, the socket and the computer all look this way."""
    try:
        match_apply_deadlines(match_id=match_id)
    except Match.DoesNotExist:
        raise MatchNotFound(match_id) from None
    return access_match(user=user, match_id=match_id, key=key)


def due_batch(
    *,
    status: str,
    deadline: str,
    now: datetime,
    after: tuple[datetime, int] | None = None,
    only: Q | None = None,
) -> QuerySet[Match]:
    """The next batch of due rows after the cursor ``after``, locked, skipping locked ones
    (``only``: a further condition on the rows)."""
    due = Match.objects.select_for_update(skip_locked=True).filter(
        status=status, **{f"{deadline}__lte": now}
    )
    if only is not None:
        due = due.filter(only)
    if after is not None:
        due = due.filter(
            Q(**{f"{deadline}__gt": after[0]}) | Q(**{deadline: after[0], "pk__gt": after[1]})
        )
    return due.order_by(deadline, "pk")[:SWEEP_BATCH]


def _sweep(
    *, status: str, deadline: str, now: datetime, limit: int, only: Q | None = None
) -> list[int]:
    """Apply deadlines to due matches, a batch per transaction; return the changed ids.

    Due rows come off the partial deadline index in deadline order, claimed with
    ``skip_locked`` so two sweeps running at once share the work instead of waiting on each
    other. The condition is re-checked under the lock, so a match changes once however many
    sweeps see it; a row that is due but cannot change yet (a kick-off with a seat still
    empty) is passed over by the (deadline, id) cursor.
    """
    changed: list[int] = []
    cursor: tuple[datetime, int] | None = None
    while len(changed) < limit:
        with transaction.atomic():
            batch = list(
                due_batch(status=status, deadline=deadline, now=now, after=cursor, only=only)
            )
            if not batch:
                break
            last_due = getattr(batch[-1], deadline)
            cursor = (last_due, batch[-1].pk)
            events: list[Event] = []
            for match in batch:
                status_before = match.status
                events += apply_deadlines(match, locked_seats(match), now=now)
                if match.status != status_before:
                    changed.append(match.pk)
            publish_on_commit(events)
    return changed


def open_due_matches(*, now: datetime | None = None, limit: int = 500) -> list[int]:
    """Open every scheduled, full match whose kick-off has come."""
    return _sweep(
        status=Match.Status.SCHEDULED, deadline="kickoff_at", now=now or _now(), limit=limit
    )


def default_no_shows(*, now: datetime | None = None, limit: int = 500) -> list[int]:
    """Settle every scheduled match whose no-show deadline passed with a seat empty."""
    return _sweep(
        status=Match.Status.SCHEDULED, deadline="no_show_at", now=now or _now(), limit=limit
    )


def forfeit_stalled_matches(*, now: datetime | None = None, limit: int = 500) -> list[int]:
    """Forfeit every live match whose player to move has let their turn deadline pass."""
    return _sweep(
        status=Match.Status.LIVE, deadline="turn_deadline_at", now=now or _now(), limit=limit
    )


def close_challenge_windows(
    *, now: datetime | None = None, limit: int = 500, match_ids: list[int] | None = None
) -> list[int]:
    """Finish every game whose last play ended it and whose challenge window has passed
    unchallenged (a live match with nobody to move: its deadline is the window's end).
    ``match_ids``: only these matches (still selected by state and deadline)."""
    only = Q(to_move__isnull=True)
    if match_ids is not None:
        only &= Q(pk__in=match_ids)
    return _sweep(
        status=Match.Status.LIVE,
        deadline="turn_deadline_at",
        now=now or _now(),
        limit=limit,
        only=only,
    )


def run_clock(*, now: datetime | None = None) -> dict[str, list[int]]:
    """All the sweeps, in the order the rules apply them."""
    now = now or _now()
    return {
        "opened": open_due_matches(now=now),
        "no_shows": default_no_shows(now=now),
        "windows": close_challenge_windows(now=now),
        "forfeits": forfeit_stalled_matches(now=now),
    }
