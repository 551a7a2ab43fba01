"""A match's life under its row lock: dealt and opened, finished, and its deadlines applied.

Helpers of the services (they take the locked match and seats and return the news to
publish after commit); nothing here opens a transaction or publishes by itself.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from common.events import MatchFinished, MatchOpened, emit
from engine import Game
from matches import away, visibility
from matches.models import Match, Seat, Turn
from matches.news import Event, PrivateEvent, PublicEvent
from matches.services.common import seat_facts
from matches.stored_game import salt_of, store_position


def open_match(match: Match, seats: list[Seat], *, at: datetime, now: datetime) -> list[Event]:
    """Deal the racks and go live; the first move's deadline runs from ``at`` (kick-off)."""
    for seat in seats:
        if not seat.contribution:  # the server contributes for a seat that did not
            seat.contribution = secrets.token_hex(16)
            seat.save(update_fields=["contribution"])
    game = Game.new(ruleset=match.ruleset, seed=bytes.fromhex(match.bag_seed), salt=salt_of(seats))
    store_position(match, seats, game)
    match.status = Match.Status.LIVE
    match.opened_at = now
    match.turn_started_at = at
    match.turn_deadline_at = at + match.time_per_move
    match.save()
    assert match.to_move is not None, "a dealt game has a player to move"
    emit(
        MatchOpened(
            match_id=match.id,
            turn_number=match.turn_number,
            to_move=match.to_move,
            seats=seat_facts(seats),
        )
    )
    events: list[Event] = [
        PublicEvent(match.id, "opened", visibility.public_match(match, seats, turns=[])),
    ]
    events += [
        PrivateEvent(match.id, seat.member_id, "rack", visibility.rack_news(match, seat))
        for seat in seats
        if seat.member_id is not None
    ]
    return events


def finish_match(
    match: Match,
    seats: list[Seat],
    *,
    result: str,
    reason: str,
    now: datetime,
    status: str = Match.Status.FINISHED,
) -> list[Event]:
    match.status = status
    match.result = result
    match.end_reason = reason
    match.finished_at = now
    match.to_move = None
    match.turn_deadline_at = None
    match.save()
    # Under the lock, in this transaction: a rated result moves both ratings (once), and
    # each player's result notice is recorded (ratings and notifications subscribe).
    emit(
        MatchFinished(
            match_id=match.id,
            result=result,
            reason=reason,
            rated=match.rated,
            seats=seat_facts(seats),
        )
    )
    events: list[Event] = [PublicEvent(match.id, "ended", visibility.result_news(match, seats))]
    return events + _bag_check_news(match, seats)


def _bag_check_news(match: Match, seats: list[Seat]) -> list[Event]:
    """The bag check's record, now the seed and the whole record are public, to every
    watcher, so an open page can check the game without a reload. The whole log is read
    once, at the end."""
    turns = list(Turn.objects.filter(match=match).order_by("number"))
    record = visibility.finished_record(match, seats, turns)
    return [] if record is None else [PublicEvent(match.id, "fairness", record)]


def after_seating(match: Match, seats: list[Seat], *, now: datetime) -> list[Event]:
    """Open a match whose seats are now full: at once after kick-off, or with no kick-off."""
    if match.status != Match.Status.SCHEDULED or not all(seat.member_id for seat in seats):
        return []
    if match.kickoff_at is None:
        return open_match(match, seats, at=now, now=now)
    if match.kickoff_at <= now:
        return open_match(match, seats, at=match.kickoff_at, now=now)
    return []


def deadline_passed(match: Match, now: datetime) -> bool:
    """Whether :func:`apply_deadlines` could change ``match`` at ``now`` (read without a lock)."""
    if match.status == Match.Status.SCHEDULED:
        return match.kickoff_at is not None and match.kickoff_at <= now
    if (
        match.status != Match.Status.LIVE
        or match.turn_deadline_at is None
        or match.turn_deadline_at > now
    ):
        return False
    # Vacation: the stored deadline has passed, but the mover's declared days away may have
    # paused it (the one registered reader of time away, matches/away.py).
    deadline = away.turn_deadline(match)
    return deadline is not None and deadline <= now


def apply_deadlines(match: Match, seats: list[Seat], *, now: datetime) -> list[Event]:
    """Make every deadline that has passed by ``now`` happen, from stored timestamps.

    Called under the match lock by every service and sweep, so the outcome never depends
    on when a sweep last ran. Kick-off opens a full match; an empty seat at the no-show
    deadline loses by default (both empty: abandoned); a turn past its deadline forfeits.
    """
    events: list[Event] = []
    if match.status == Match.Status.SCHEDULED and match.kickoff_at and match.kickoff_at <= now:
        filled = [seat for seat in seats if seat.member_id]
        if len(filled) == 2:
            events += open_match(match, seats, at=match.kickoff_at, now=now)
        elif match.no_show_at and match.no_show_at <= now:
            if filled:
                winner = "first" if filled[0].position == 0 else "second"
                events += finish_match(
                    match, seats, result=winner, reason=Match.EndReason.NO_SHOW, now=now
                )
            else:
                events += finish_match(
                    match,
                    seats,
                    result=Match.Result.NONE,
                    reason=Match.EndReason.ABANDONED,
                    now=now,
                    status=Match.Status.ABANDONED,
                )
    if (
        match.status == Match.Status.LIVE
        and match.turn_deadline_at
        and match.turn_deadline_at <= now
        # Vacation: the mover's declared days away within the turn move the deadline later
        # (matches/away.py); the stored one is never later than this, so the sweep that
        # selected this match by it re-checks here, as every lazy check does.
        and (away.turn_deadline(match, seats) or now) <= now
    ):
        winner = "second" if match.to_move == 0 else "first"
        events += finish_match(match, seats, result=winner, reason=Match.EndReason.FORFEIT, now=now)
    return events
