"""What a notice says, built when it is sent, from what ``matches.visibility`` lets its
member see (public facts: names, scores, deadlines, results; never a rack or the bag).

A notice that no longer holds (it is not your move any more, the fixture already kicked
off) is :class:`Stale` and is not sent.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from django.urls import reverse

from matches import away, selectors, services, visibility
from matches.models import Match
from notifications import friendlies, organiser_content, round_ready, rounds_result
from notifications.calendar import calendar_sequence
from notifications.models import Kind, Notice, NotificationSettings
from notifications.schemas import NoticeContent
from notifications.wording import Stale, absolute, local_time, place_outcome, time_left

#: Endings an organiser decided: their result notice names the ruling (organiser_content.py).
ORGANISER_ENDINGS = frozenset(
    {
        Match.EndReason.CANCELLED,
        Match.EndReason.VOIDED,
        Match.EndReason.ADJUDICATED,
        Match.EndReason.WITHDRAWN,
    }
)

_REASONS = {
    Match.EndReason.FORFEIT: "by forfeit",
    Match.EndReason.NO_SHOW: "by no-show",
    Match.EndReason.SIX_SCORELESS: "after six scoreless turns",
    Match.EndReason.PLAYED_OUT: "",  # the usual ending: "You won", nothing more to say
    Match.EndReason.RESIGNED: "by resignation",
}


def build(notice: Notice, prefs: NotificationSettings, *, now: datetime) -> NoticeContent | Stale:
    """The content of ``notice`` for its member now, or why it no longer holds."""
    if notice.kind == Kind.DIGEST:
        return _digest(notice.member, prefs, now=now)
    if notice.kind == Kind.CHALLENGE:
        return friendlies.challenge(notice, prefs, now=now)
    if notice.kind == Kind.READY:
        return round_ready.content(notice, prefs, now=now)
    if notice.kind == Kind.RESULT and notice.rounds_match_id is not None:
        return rounds_result.content(notice, prefs, now=now)
    if notice.match_id is None:
        return Stale("no match")
    try:
        access = services.look_at_match(user=notice.member, match_id=notice.match_id, key=None)
    except visibility.MatchNotFound:
        return Stale("the match is gone or hidden from the member")
    kind = Kind(notice.kind)
    builder = _BUILDERS.get(kind)
    if kind == Kind.REMATCH:
        builder = friendlies.rematch
    if builder is None:  # an organiser's change to the fixture
        builder = organiser_content.BUILDERS[kind]
    return builder(notice, access, prefs.zone, now)


def _facts(access: visibility.MatchAccess) -> tuple[Match, visibility.MatchLine, str]:
    """The match row, its list line from the member's seat (public facts, no rack), and
    the match page's address."""
    match = access.match
    line = visibility.match_line(match, member_id=access.viewer.member_id)
    return match, line, absolute(reverse("match", args=[match.id]))


def _your_turn(notice: Notice, access: visibility.MatchAccess) -> bool:
    match = access.match
    return (
        match.status == Match.Status.LIVE
        and match.turn_number == notice.turn_number
        and access.viewer.seat is not None
        and access.viewer.seat == match.to_move
    )


def _score(line: visibility.MatchLine) -> str:
    opponent = line.opponent or "your opponent"
    return f"Score: you {line.your_score}, {opponent} {line.opponent_score}."


def _your_move(notice: Notice, access: visibility.MatchAccess, zone: ZoneInfo, now: datetime):
    if not _your_turn(notice, access):
        return Stale("no longer the member's move")
    match, line, url = _facts(access)
    opponent = line.opponent or "Your opponent"
    # A fixture with no kick-off time (a challenge, a rematch) began when both had agreed.
    begun = "has kicked off" if match.kickoff_at is not None else "has begun"
    first = (
        f"{line.name} {begun}, and you move first."
        if match.turn_number == 0
        else f"{opponent} has moved in {line.name}."
    )
    lines = [first]
    if match.turn_number:
        lines.append(_score(line))
    deadline = away.turn_deadline(match, access.seats)  # a vacation pauses it
    if deadline is not None:
        lines.append(
            f"Move by {local_time(deadline, zone)} "
            f"({time_left(deadline - now)} from now), or you forfeit."
        )
    return NoticeContent(
        kind="your_move",
        match_id=match.id,
        subject=f"Your move: {line.name}",
        headline="It's your move",
        lines=lines,
        url=url,
        action="Open the board",
    )


def _forfeit(notice: Notice, access: visibility.MatchAccess, zone: ZoneInfo, now: datetime):
    if not _your_turn(notice, access):
        return Stale("no longer the member's move")
    match, line, url = _facts(access)
    deadline = away.turn_deadline(match, access.seats)  # a vacation pauses it
    if deadline is None or deadline <= now:
        return Stale("the deadline has passed")
    left = time_left(deadline - now)
    opponent = line.opponent or "your opponent"
    return NoticeContent(
        kind="forfeit",
        match_id=match.id,
        subject=f"{left} left to move: {line.name}",
        headline=f"{left} left to move",
        lines=[
            f"It is still your move in {line.name}.",
            f"Move by {local_time(deadline, zone)}, or you forfeit and {opponent} wins.",
            _score(line),
        ],
        url=url,
        action="Move now",
    )


def _kickoff(notice: Notice, access: visibility.MatchAccess, zone: ZoneInfo, now: datetime):
    match, line, url = _facts(access)
    if match.status != Match.Status.SCHEDULED or match.kickoff_at is None:
        return Stale("the fixture is no longer waiting for its kick-off")
    if match.kickoff_at <= now:
        return Stale("the fixture has kicked off")
    against = f" against {line.opponent}" if line.opponent else ""
    return NoticeContent(
        kind="kickoff",
        match_id=match.id,
        subject=f"Kick-off in {time_left(match.kickoff_at - now)}: {line.name}",
        headline="Kick-off soon",
        lines=[
            f"{line.name} kicks off at {local_time(match.kickoff_at, zone)}{against}.",
            f"You sit {line.your_seat}." if line.your_seat else "",
        ],
        url=url,
        action="Open the match",
    )


def fixture_content(
    notice: Notice, access: visibility.MatchAccess, zone: ZoneInfo, now: datetime
) -> NoticeContent | Stale:
    """A fixture's notice (a new round's builds on it: notifications/rounds.py)."""
    match, line, url = _facts(access)
    if match.is_over:
        return Stale("the match is over")
    lines = [f"You have a fixture: {line.name}."]
    if line.your_seat:
        against = f", against {line.opponent}" if line.opponent else " (the other seat is free)"
        lines.append(f"You sit {line.your_seat}{against}.")
    if match.kickoff_at is not None:
        lines.append(f"Kick-off: {local_time(match.kickoff_at, zone)}.")
    elif match.status == Match.Status.LIVE:  # begun at once (a rematch): no kick-off to tell
        you_first = access.viewer.seat == 0
        who = "you move" if you_first else f"{line.opponent or 'your opponent'} moves"
        lines.append(f"{line.name} has begun: {who} first.")
    else:
        lines.append("It has no kick-off time: it starts as soon as both seats are filled.")
    return NoticeContent(
        kind="fixture",
        match_id=match.id,
        subject=f"Fixture scheduled: {line.name}",
        headline="A fixture for you",
        lines=lines,
        url=url,
        action="Open the match",
        kickoff_at=match.kickoff_at,
        match_name=line.name,
        calendar_sequence=calendar_sequence(match),
    )


def round_content(
    notice: Notice, access: visibility.MatchAccess, zone: ZoneInfo, now: datetime
) -> NoticeContent | Stale:
    """A new round's match (notifications/rounds.py): the fixture's notice (its subject
    too, so a mailbox files it with the fixture's other notices), its text opening with the
    round, "Round 2 of Club Swiss is paired."."""
    fixture = fixture_content(notice, access, zone, now)
    match = access.match
    tournament = match.tournament
    if isinstance(fixture, Stale) or tournament is None or match.round_number is None:
        return fixture  # not a round's match after all: told as the fixture it is
    round_words = f"Round {match.round_number} of {tournament.name}"
    return fixture.model_copy(
        update={
            "kind": "round",
            "headline": "A new round for you",
            "lines": [f"{round_words} is paired.", *fixture.lines],
        }
    )


def _result(notice: Notice, access: visibility.MatchAccess, zone: ZoneInfo, now: datetime):
    match, line, url = _facts(access)
    if not match.is_over:
        return Stale("the match is not over")
    if match.end_reason in ORGANISER_ENDINGS:  # a ruling: notifications/organiser_content.py
        return organiser_content.ruling_result(notice, access, zone, now)
    outcome = {"won": "You won", "lost": "You lost", "drawn": "A draw"}.get(line.outcome, "")
    if match.seat_count > 2:
        outcome = _table_outcome(access)
    reason = _REASONS.get(match.end_reason, "")  # type: ignore[call-overload]
    headline = f"{outcome} {reason}".strip() if outcome else line.result_text
    lines = [f"{line.name} is over: {line.result_text}."]
    if match.seat_count > 2:
        scores = ", ".join(
            f"{seat.member.label if seat.member else seat.get_position_display()} {seat.score}"
            for seat in sorted(access.seats, key=lambda seat: (seat.place or 9, seat.position))
        )
        lines.append(f"Final scores: {scores}.")
    elif match.end_reason not in (Match.EndReason.NO_SHOW, Match.EndReason.ABANDONED):
        opponent = line.opponent or "your opponent"
        lines.append(f"Final score: you {line.your_score}, {opponent} {line.opponent_score}.")
    return NoticeContent(
        kind="result",
        match_id=match.id,
        subject=f"{headline}: {line.name}",
        headline=headline,
        lines=lines,
        url=url,
        action="See the final board",
    )


def _table_outcome(access: visibility.MatchAccess) -> str:
    """The viewer's place at a table of 3-4: "You won", "You shared first place", "You came
    third of 4" (empty for a viewer without a place)."""
    seat = next((s for s in access.seats if s.position == access.viewer.seat), None)
    if seat is None or seat.place is None:
        return ""
    shared = sum(1 for other in access.seats if other.place == seat.place) > 1
    return place_outcome(seat.place, shared=shared, count=len(access.seats))


_BUILDERS: dict[str, Any] = {
    Kind.YOUR_MOVE: _your_move,
    Kind.FORFEIT: _forfeit,
    Kind.KICKOFF: _kickoff,
    Kind.FIXTURE: fixture_content,
    Kind.ROUND: round_content,
    Kind.RESULT: _result,
}


def _digest(member: Any, prefs: NotificationSettings, *, now: datetime):
    """Every match waiting on the member, most urgent first (matches.selectors)."""
    waiting = selectors.matches_waiting_on(member)
    if not waiting:
        return Stale("no match is waiting on the member")
    lines = []
    for line in waiting:
        against = f" against {line.opponent}" if line.opponent else ""
        due = (
            f": move by {local_time(line.turn_deadline_at, prefs.zone)} "
            f"({time_left(line.turn_deadline_at - now)} left)"
            if line.turn_deadline_at
            else ""
        )
        lines.append(f"{line.name}{against}{due}.")
    count = len(waiting)
    return NoticeContent(
        kind="digest",
        subject=f"{count} match{'es' if count != 1 else ''} waiting for your move",
        headline="Your moves today",
        lines=lines,
        url=absolute(reverse("match", args=[waiting[0].id])),
        action="Open the most urgent board",
    )
