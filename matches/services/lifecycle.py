"""A match's life under its row lock: dealt and opened, finished, and its deadlines applied.

Helpers of the services (they take the locked match and seats and return the news to
publish after commit); nothing here opens a transaction or publishes by itself.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from common.events import MatchFinished, MatchOpened, emit
from engine import Game
from matches import away, visibility
from matches.challenge_window import window_of
from matches.models import Match, Seat, Turn
from matches.news import Event, PrivateEvent, PublicEvent
from matches.places import places_of_game, places_of_result, places_with_last, result_of
from matches.services.common import seat_facts
from matches.stored_game import game_of, salt_of, store_position


def open_match(match: Match, seats: list[Seat], *, at: datetime, now: datetime) -> list[Event]:
    """Deal the racks and go live; the first move's deadline runs from ``at`` (kick-off)."""
    for seat in seats:
        if not seat.contribution:  # the server contributes for a seat that did not
            seat.contribution = secrets.token_hex(16)
            seat.save(update_fields=["contribution"])
    game = Game.new(
        ruleset=match.ruleset,
        seed=bytes.fromhex(match.bag_seed),
        salt=salt_of(seats),
        players=match.seat_count,
        challenge=match.challenge_rule,  # type: ignore[arg-type]
        finish_line=match.finish_line,
    )
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
    places: Sequence[int] | None = None,
) -> list[Event]:
    """End the match with ``result`` and each seat's place (``places`` in seat order; at two
    seats derived from the result when not given; none for a match with no result)."""
    if places is None:
        places = places_of_result(result, len(seats))
    for seat in seats:
        place = None if places is None else places[seat.position]
        if seat.place != place:
            seat.place = place
            seat.save(update_fields=["place"])
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
        # (every seat of the table: a table of four opens when its fourth player sits)
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
    deadline loses by default (at a table: the empty seats share the last place; every seat
    empty: abandoned); a turn past its deadline forfeits (at a table the forfeiter is placed
    last and the game ends); a game-ending play's challenge window that has passed ends the
    game as it stands (:func:`close_open_ending`).
    """
    events: list[Event] = []
    if match.status == Match.Status.SCHEDULED and match.kickoff_at and match.kickoff_at <= now:
        filled = [seat for seat in seats if seat.member_id]
        if len(filled) == len(seats):
            events += open_match(match, seats, at=match.kickoff_at, now=now)
        elif match.no_show_at and match.no_show_at <= now:
            if filled:
                empty = [seat.position for seat in seats if not seat.member_id]
                places = places_with_last([0] * len(seats), empty)
                events += finish_match(
                    match,
                    seats,
                    result=result_of(places),
                    reason=Match.EndReason.NO_SHOW,
                    now=now,
                    places=places,
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
        if match.to_move is None:  # a game-ending play whose challenge window has passed
            return events + close_open_ending(match, seats, now=now)
        events += finish_match_given_up(
            match, seats, loser=match.to_move, reason=Match.EndReason.FORFEIT, now=now
        )
    return events


def finish_match_given_up(
    match: Match, seats: list[Seat], *, loser: int, reason: str, now: datetime
) -> list[Event]:
    """End the match because seat ``loser`` gave it up (a forfeit, a resignation): at two
    seats the other wins; at a table ``loser`` is placed last, the others by score."""
    places = places_with_last([seat.score for seat in seats], [loser])
    return finish_match(
        match, seats, result=result_of(places), reason=reason, now=now, places=places
    )


def finish_played_game(
    match: Match, seats: list[Seat], game: Game, *, now: datetime
) -> list[Event]:
    """End the match as its game ended (played out, scoreless rounds, Finish Line)."""
    places = places_of_game(game)
    return finish_match(
        match, seats, result=result_of(places), reason=game.end_reason or "", now=now, places=places
    )


def close_open_ending(match: Match, seats: list[Seat], *, now: datetime) -> list[Event]:
    """The challenge window of the play that ended the game has closed unchallenged: the
    play stands and the game ends as it stood (the position keeps no open play)."""
    game = game_of(match, seats)
    if not game.is_over:
        return []
    game = replace(game, open_play=None)
    store_position(match, seats, game)
    return finish_played_game(match, seats, game, now=now)


def open_ending_deadline(match: Match, *, now: datetime) -> datetime:
    """When the window of a game-ending play made ``now`` closes (the match's challenge
    window, or by default a turn's time)."""
    return now + window_of(match)
