"""What the notices of an organiser's change say: a kick-off moved, a substitution, and the
result of a fixture an organiser ended (cancelled, voided, adjudicated, a player withdrawn).

Built when sent, like every notice (``notifications/content.py``): the match as the member
may see it (``matches.visibility``) and the organiser's action the notice was recorded for
(who, when, why, what changed). Times are written in the member's own zone; a notice the
fixture has since outrun (it kicked off, a later change moved it again, it is over) is
:class:`~notifications.wording.Stale`. An email of a change carries the fixture's ``.ics``
with a higher SEQUENCE (cancelled, for the player who no longer plays it), so a calendar
that imported the first one takes the change.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.urls import reverse

from matches import visibility
from matches.models import Match, OrganiserAction, Seat
from matches.visibility.pages import AuditLine, audit_lines
from notifications.calendar import calendar_sequence
from notifications.models import Kind, Notice
from notifications.schemas import NoticeContent
from notifications.wording import Stale, absolute, local_time, time_left


def _action(notice: Notice) -> OrganiserAction | None:
    if notice.organiser_action_id is None:
        return None
    return (
        OrganiserAction.objects.select_related("organiser", "match__tournament")
        .filter(pk=notice.organiser_action_id)
        .first()
    )


def _when(iso: object, zone: ZoneInfo) -> str:
    if not isinstance(iso, str):
        return "no set time"
    return local_time(datetime.fromisoformat(iso), zone)


def _reason(reason: str) -> str:
    return f"The organiser's reason: {reason}"


def _line(access: visibility.MatchAccess) -> visibility.MatchLine:
    return visibility.match_line(access.match, member_id=access.viewer.member_id)


def _url(match: Match) -> str:
    return absolute(reverse("match", args=[match.id]))


def _against(line: visibility.MatchLine) -> str:
    if not line.your_seat:
        return ""
    if line.opponent:
        return f"You sit {line.your_seat}, against {line.opponent}."
    return f"You sit {line.your_seat}; the other seat is free."


# ---------------------------------------------------------------- a kick-off moved


def _moved(notice: Notice, access: visibility.MatchAccess, zone: ZoneInfo, now: datetime) -> Any:
    action = _action(notice)
    match = access.match
    if action is None:
        return Stale("the change is gone")
    if match.status != Match.Status.SCHEDULED or match.kickoff_at is None:
        return Stale("the fixture has kicked off or is over")
    after = datetime.fromisoformat(action.details["kickoff_after"])
    if match.kickoff_at != after:
        return Stale("a later change moved the kick-off again")
    line = _line(access)
    who = str(action.organiser)
    if action.kind == OrganiserAction.Kind.POSTPONE:
        by = time_left(timedelta(seconds=int(action.details["postponed_by_seconds"])))
        tournament = match.tournament.name if match.tournament else "the tournament"
        first = (
            f"{who} postponed round {action.details['round_number']} of {tournament} by {by}: "
            f"{line.name} kicks off later."
        )
    else:
        first = f"{who} moved the kick-off of {line.name}."
    return NoticeContent(
        kind="moved",
        match_id=match.id,
        subject=f"Kick-off moved: {line.name}",
        headline="A new kick-off time",
        lines=[
            first,
            f"Was: {_when(action.details.get('kickoff_before'), zone)}.",
            f"Now: {local_time(after, zone)}.",
            _against(line),
            _reason(action.reason),
        ],
        url=_url(match),
        action="Open the match",
        kickoff_at=after,
        match_name=line.name,
        calendar_sequence=calendar_sequence(match),
    )


# ---------------------------------------------------------------- a substitution


def _substitute(
    notice: Notice, access: visibility.MatchAccess, zone: ZoneInfo, now: datetime
) -> Any:
    action = _action(notice)
    match = access.match
    if action is None:
        return Stale("the change is gone")
    if match.is_over:
        return Stale("the match is over")
    details = action.details
    seat = Seat.Position(int(details["position"])).label
    before, after = details["member_before"], details["member_after"]
    line = _line(access)
    who = str(action.organiser)
    replaced = notice.member_id == details.get("member_before_id")
    kickoff = (
        f"Kick-off: {local_time(match.kickoff_at, zone)}."
        if match.status == Match.Status.SCHEDULED and match.kickoff_at is not None
        else ""
    )
    if replaced:
        subject = f"You no longer play in {line.name}"
        headline = "Your seat has a new player"
        lines = [
            f"{who} gave your seat ({seat}) in {line.name} to {after}.",
            _reason(action.reason),
            "You can still follow the match on its page.",
        ]
    else:
        subject = f"New opponent: {after} in {line.name}"
        headline = "A new opponent"
        lines = [
            f"{who} put {after} in {before}'s seat ({seat}) in {line.name}.",
            f"You now play {after}.",
            kickoff,
            _reason(action.reason),
        ]
    start = match.kickoff_at if match.status == Match.Status.SCHEDULED else None
    return NoticeContent(
        kind="substitute",
        match_id=match.id,
        subject=subject,
        headline=headline,
        lines=lines,
        url=_url(match),
        action="Open the match",
        kickoff_at=start,
        match_name=line.name,
        calendar_sequence=calendar_sequence(match),
        calendar_cancelled=replaced,  # no longer theirs: out of their calendar
    )


BUILDERS: dict[str, Any] = {
    Kind.MOVED: _moved,
    Kind.SUBSTITUTE: _substitute,
}


# ---------------------------------------------------------------- a fixture an organiser ended


def _ruling(match: Match) -> AuditLine | None:
    """The organiser's decision that ended the match, as every watcher may see it."""
    rulings = [
        line
        for line in audit_lines(match, is_organiser=False)
        if line.kind in OrganiserAction.RESULT_KINDS
    ]
    return rulings[-1] if rulings else None


def _withdrawn_player(match: Match) -> str:
    """Who was withdrawn, when a withdrawal ended the match (its audit entry names them)."""
    action = (
        OrganiserAction.objects.filter(match=match, kind=OrganiserAction.Kind.WITHDRAW)
        .order_by("-created_at", "-id")
        .first()
    )
    return str(action.details.get("member") or "a player") if action else "a player"


def ruling_result(
    notice: Notice, access: visibility.MatchAccess, zone: ZoneInfo, now: datetime
) -> NoticeContent:
    """The result notice of a match an organiser ended: what was decided, by whom and why,
    the scores as they stood where a game was played, and never a score for a fixture that
    was not."""
    match = access.match
    line = _line(access)
    ruling = _ruling(match)
    who = ruling.who if ruling else "An organiser"
    reason = [_reason(ruling.reason)] if ruling else []
    opponent = line.opponent or "your opponent"
    scores = f"you {line.your_score}, {opponent} {line.opponent_score}"
    calendar: dict[str, Any] = {}
    reason_code = match.end_reason
    withdrawal = ruling is not None and ruling.kind == OrganiserAction.Kind.WITHDRAW
    if reason_code == Match.EndReason.CANCELLED:
        subject, headline = f"Cancelled: {line.name}", "Fixture cancelled"
        what = (
            f"{who} withdrew {_withdrawn_player(match)} from their fixtures, so {line.name} "
            "is cancelled."
            if withdrawal
            else f"{who} cancelled {line.name} before its kick-off."
        )
        lines = [what, "It has no result and counts for nobody.", *reason]
        start = match.kickoff_at
        if start is not None:
            calendar = {
                "kickoff_at": start,
                "match_name": line.name,
                "calendar_sequence": calendar_sequence(match),
                "calendar_cancelled": True,
            }
    elif reason_code == Match.EndReason.VOIDED:
        subject, headline = f"Voided: {line.name}", "Match voided"
        lines = [
            f"{who} voided {line.name}.",
            "It has no result, counts for nobody and is not rated.",
            f"The scores when it was voided: {scores}.",
            *reason,
        ]
    else:  # adjudicated, or a player withdrawn: a result all the same
        outcome = {"won": "You won", "lost": "You lost", "drawn": "A draw"}.get(line.outcome, "")
        how = (
            "by an organiser's ruling"
            if reason_code == Match.EndReason.ADJUDICATED
            else "by a withdrawal"
        )
        headline = f"{outcome} {how}" if outcome else line.result_text
        subject = f"{headline}: {line.name}"
        what = (
            f"{who} adjudicated {line.name}: {line.result_text}."
            if reason_code == Match.EndReason.ADJUDICATED
            else f"{who} withdrew {_withdrawn_player(match)} from {line.name}: {line.result_text}."
        )
        lines = [what, f"The scores when it ended: {scores}.", *reason]
    return NoticeContent(
        kind="result",
        match_id=match.id,
        subject=subject,
        headline=headline,
        lines=lines,
        url=_url(match),
        action="See the match",
        **calendar,
    )
