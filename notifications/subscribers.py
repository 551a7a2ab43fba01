"""What the notifications app hears of the core (common/events.py), and the notices it records.

Each runs in the emitting service's transaction (``Phase.IN_TRANSACTION``): a notice is
recorded with the change it tells of, or not at all, and its delivery is queued after commit
(notifications/batching.py). The facts of the event are all a notice needs.
"""

from __future__ import annotations

from typing import Any

from accounts import time_zones
from common.events import (
    ChallengePosted,
    FixtureScheduled,
    KickoffMoved,
    MatchFinished,
    MatchOpened,
    MemberForgotten,
    Phase,
    PlayChallenged,
    RematchOffered,
    RoundDealt,
    RoundPaired,
    RoundsMatchEnded,
    SeatFacts,
    SeatSubstituted,
    TurnRecorded,
    subscribe,
)
from notifications import friendlies, notices, organiser_changes, round_ready, rounds, rounds_result
from notifications.models import CalendarFeed, Notice, NotificationSettings, PushSubscription
from notifications.services import settings_of, update_notification_settings


def _to_move(seats: tuple[SeatFacts, ...], position: int | None) -> SeatFacts | None:
    seat = next((seat for seat in seats if seat.position == position), None)
    return seat if seat is not None and seat.member_id is not None and seat.told else None


def your_move_at_kickoff(event: MatchOpened) -> None:
    """The first player's turn has come."""
    seat = _to_move(event.seats, event.to_move)
    if seat is not None and seat.member_id is not None:
        notices.your_move(
            match_id=event.match_id, turn_number=event.turn_number, member_id=seat.member_id
        )


def your_move_after_a_turn(event: TurnRecorded) -> None:
    """The next player's turn has come: its notice is written with the move's own rows."""
    seat = _to_move(event.seats, event.to_move)
    if seat is None or seat.member_id is None or event.rows is None:
        return
    for notice in notices.your_move_rows(
        match_id=event.match_id, turn_number=event.turn_number, member_id=seat.member_id
    ):
        event.rows.insert(notice, ignore_conflicts=True)


def your_move_after_a_challenge(event: PlayChallenged) -> None:
    """A challenge moved the turn on (a lost turn, or a game-ending play withdrawn): the
    player now to move is told, as after a move."""
    seat = _to_move(event.seats, event.to_move)
    if not event.moved_on or seat is None or seat.member_id is None:
        return
    notices.your_move(match_id=event.match_id, turn_number=event.turn_now, member_id=seat.member_id)


def result_to_each_player(event: MatchFinished) -> None:
    """Each player seated and told hears the result."""
    notices.match_finished(
        match_id=event.match_id,
        member_ids=[seat.member_id for seat in event.seats if seat.member_id and seat.told],
    )


def fixture_to_each_player(event: FixtureScheduled) -> None:
    """Each member seated in a new fixture hears of it."""
    notices.fixture_scheduled(event.match_id, event.member_ids)


def forget_their_rows(event: MemberForgotten) -> None:
    """A deleted member's settings, push subscriptions, calendar feed and notices go."""
    # A worker deciding one of these notices' deliveries holds its row: wait for it to commit
    # before looking for the deliveries to delete, and keep the rest from adding any since
    # (the worker then finds its notice gone and sends nothing).
    member_id = event.member_id
    list(
        Notice.objects.select_for_update().filter(member_id=member_id).values_list("pk", flat=True)
    )
    for model in (NotificationSettings, PushSubscription, CalendarFeed, Notice):
        model.objects.filter(member_id=member_id).delete()


class TimeZoneKeeper:
    """The member's time zone lives in their notification settings (every email reads it)."""

    def time_zone_of(self, member: Any) -> str:
        return settings_of(member).time_zone

    def set_time_zone(self, member: Any, time_zone: str) -> None:
        update_notification_settings(member=member, values={"time_zone": time_zone})


def subscribe_all() -> None:
    """Called once, from ``NotificationsConfig.ready()``."""
    time_zones.register(TimeZoneKeeper())
    subscribe(MemberForgotten, forget_their_rows, phase=Phase.IN_TRANSACTION)
    subscribe(MatchOpened, your_move_at_kickoff, phase=Phase.IN_TRANSACTION)
    subscribe(TurnRecorded, your_move_after_a_turn, phase=Phase.IN_TRANSACTION)
    subscribe(PlayChallenged, your_move_after_a_challenge, phase=Phase.IN_TRANSACTION)
    subscribe(MatchFinished, result_to_each_player, phase=Phase.IN_TRANSACTION)
    subscribe(FixtureScheduled, fixture_to_each_player, phase=Phase.IN_TRANSACTION)
    subscribe(RoundPaired, rounds.round_paired, phase=Phase.IN_TRANSACTION)
    subscribe(RoundDealt, round_ready.round_dealt, phase=Phase.IN_TRANSACTION)
    subscribe(RoundsMatchEnded, rounds_result.rounds_match_ended, phase=Phase.IN_TRANSACTION)
    subscribe(KickoffMoved, organiser_changes.kickoff_moved, phase=Phase.IN_TRANSACTION)
    subscribe(ChallengePosted, friendlies.challenge_posted, phase=Phase.IN_TRANSACTION)
    subscribe(RematchOffered, friendlies.rematch_offered, phase=Phase.IN_TRANSACTION)
    subscribe(SeatSubstituted, organiser_changes.seat_substituted, phase=Phase.IN_TRANSACTION)
