"""An organiser's control of a fixture once it is scheduled: reschedule, cancel, adjudicate.

Each is one function: it locks the match row (and its seats), applies any deadline that has
passed (so a kick-off that came first stands), checks, writes the change and its
:class:`OrganiserAction` (the audit trail: who, what, when, why) in one transaction, and
publishes its news after commit. A ruling on a result ends the match through
``finish_match``, so a rated adjudication moves the ratings and the players are told; a
voided or cancelled match has no result and is rated by nobody.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction

from matches import visibility
from matches.events import PublicEvent, publish_on_commit
from matches.models import Match, OrganiserAction, Seat
from matches.services.common import locked_match, locked_seats, require_organiser
from matches.services.common import now as _now
from matches.services.errors import FixtureUnchangeable, InvalidFixture
from matches.services.lifecycle import apply_deadlines, finish_match

#: The longest reason kept with an organiser's action.
MAX_REASON_LENGTH = 500
NEEDS_A_REASON = "Give a reason: it is kept with the fixture's record."
REASON_TOO_LONG = f"A reason can be at most {MAX_REASON_LENGTH} characters."
ALREADY_KICKED_OFF = "This fixture has kicked off, so its kick-off can no longer be changed."
KICKOFF_NOT_AHEAD = "The new kick-off must be in the future."
CANCEL_TOO_LATE = "Only a fixture that has not kicked off can be cancelled."
NOT_LIVE = "Only a live match can be adjudicated or voided."
NO_SUCH_RULING = "A ruling is a win for First, a win for Second, a draw, or void."

#: What an adjudication may award: a result, or "void" (no result, unrated).
RULINGS = ("first", "second", "draw", "void")


def _reason(reason: str) -> str:
    """The reason, trimmed, or the refusal of a missing or overlong one."""
    reason = " ".join((reason or "").split())
    if not reason:
        raise InvalidFixture(NEEDS_A_REASON)
    if len(reason) > MAX_REASON_LENGTH:
        raise InvalidFixture(REASON_TOO_LONG)
    return reason


def _record(
    match: Match, organiser: Any, kind: str, reason: str, now: datetime, **details: Any
) -> None:
    OrganiserAction.objects.create(
        match=match,
        organiser=organiser,
        kind=kind,
        reason=reason,
        details=details,
        created_at=now,
    )


def fixture_reschedule(
    *,
    organiser: Any,
    match_id: int,
    kickoff_at: datetime,
    reason: str,
    now: datetime | None = None,
) -> Match:
    """Move a fixture's kick-off (and its no-show deadline with it) before it has passed.

    Locks the match row. Refused once the kick-off has come (a kick-off passed is applied
    first and stands) or when the new time is not ahead. Watchers get ``fixture_changed``.
    """
    require_organiser(organiser)
    reason = _reason(reason)
    refusal: Exception | None = None
    with transaction.atomic():
        match = locked_match(match_id)
        now = now or _now()
        seats = locked_seats(match)
        events = apply_deadlines(match, seats, now=now)
        started = match.kickoff_at is not None and match.kickoff_at <= now
        if match.status != Match.Status.SCHEDULED or started:
            refusal = FixtureUnchangeable(ALREADY_KICKED_OFF)
        elif kickoff_at <= now:
            refusal = InvalidFixture(KICKOFF_NOT_AHEAD)
        else:
            before = match.kickoff_at
            match.kickoff_at = kickoff_at
            match.no_show_at = kickoff_at + match.no_show_window
            match.save(update_fields=["kickoff_at", "no_show_at"])
            _record(
                match,
                organiser,
                OrganiserAction.Kind.RESCHEDULE,
                reason,
                now,
                kickoff_before=before.isoformat() if before else None,
                kickoff_after=kickoff_at.isoformat(),
            )
            events.append(PublicEvent(match.id, "fixture_changed", visibility.no_news()))
        publish_on_commit(events)
    if refusal is not None:
        raise refusal
    return match


def fixture_cancel(
    *, organiser: Any, match_id: int, reason: str, now: datetime | None = None
) -> Match:
    """Cancel a fixture before its kick-off: it ends with no result (``cancelled``).

    Locks the match and its seats. Refused once the match has kicked off or is over.
    """
    require_organiser(organiser)
    reason = _reason(reason)
    refusal: Exception | None = None
    with transaction.atomic():
        match = locked_match(match_id)
        now = now or _now()
        seats = locked_seats(match)
        events = apply_deadlines(match, seats, now=now)
        if match.status != Match.Status.SCHEDULED:
            refusal = FixtureUnchangeable(CANCEL_TOO_LATE)
        else:
            events += finish_match(
                match,
                seats,
                result=Match.Result.NONE,
                reason=Match.EndReason.CANCELLED,
                now=now,
                status=Match.Status.ABANDONED,
            )
            _record(match, organiser, OrganiserAction.Kind.CANCEL, reason, now)
        publish_on_commit(events)
    if refusal is not None:
        raise refusal
    return match


def match_adjudicate(
    *, organiser: Any, match_id: int, ruling: str, reason: str, now: datetime | None = None
) -> Match:
    """End a live (or stalled) match by an organiser's ruling: a win for either seat, a
    draw, or ``void`` (no result, unrated). The reason is shown on the match page.

    Locks the match and its seats. The scores stay as they stood; an awarded result goes
    through ``finish_match`` like any other (a rated one moves both ratings).
    """
    require_organiser(organiser)
    reason = _reason(reason)
    if ruling not in RULINGS:
        raise InvalidFixture(NO_SUCH_RULING)
    refusal: Exception | None = None
    with transaction.atomic():
        match = locked_match(match_id)
        now = now or _now()
        seats: list[Seat] = locked_seats(match)
        events = apply_deadlines(match, seats, now=now)
        if match.status != Match.Status.LIVE:
            refusal = FixtureUnchangeable(NOT_LIVE)
        elif ruling == "void":
            events += finish_match(
                match,
                seats,
                result=Match.Result.NONE,
                reason=Match.EndReason.VOIDED,
                now=now,
                status=Match.Status.ABANDONED,
            )
            _record(match, organiser, OrganiserAction.Kind.VOID, reason, now)
        else:
            events += finish_match(
                match, seats, result=ruling, reason=Match.EndReason.ADJUDICATED, now=now
            )
            _record(match, organiser, OrganiserAction.Kind.ADJUDICATE, reason, now, result=ruling)
        publish_on_commit(events)
    if refusal is not None:
        raise refusal
    return match
