"""The clock: kick-off, no-show and forfeit, decided from stored timestamps.

Each deadline is tested on both sides of its boundary second, through the sweep and through
the lazy path (a commit or page load with no sweep at all), and late sweeps are shown to
give the same outcome as timely ones.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection

from matches import services
from matches.models import Match, Seat, Turn
from matches.news import match_group, news_items
from tests.matches.helpers import commit_now

KICKOFF = datetime(2031, 5, 4, 18, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)
pytestmark = pytest.mark.django_db


def _pass(match: Match, member, *, client_id: str = "c1") -> services.CommitOutcome:
    return commit_now(match, member, {"kind": "pass"}, client_id=client_id)


@pytest.fixture
def scheduled(make_fixture, alice, bob) -> Match:
    with time_machine.travel(KICKOFF - timedelta(days=1), tick=False):
        return make_fixture(first=alice, second=bob, kickoff_at=KICKOFF)


# ------------------------------------------------------------------ kick-off


def test_no_move_is_accepted_a_second_before_kick_off(scheduled, alice) -> None:
    with time_machine.travel(KICKOFF - SECOND, tick=False):
        assert services.open_due_matches() == []
        outcome = _pass(scheduled, alice)
    assert not outcome.accepted
    assert outcome.message == "This match has not kicked off yet."
    scheduled.refresh_from_db()
    assert scheduled.status == Match.Status.SCHEDULED
    assert scheduled.game_state is None
    assert Seat.objects.get(match=scheduled, position=0).rack == ""


def test_the_sweep_opens_the_match_at_kick_off(scheduled) -> None:
    with time_machine.travel(KICKOFF, tick=False):
        assert services.open_due_matches() == [scheduled.id]
        assert services.open_due_matches() == []  # idempotent
    scheduled.refresh_from_db()
    assert scheduled.status == Match.Status.LIVE
    assert scheduled.to_move == 0
    assert scheduled.turn_started_at == KICKOFF
    assert scheduled.turn_deadline_at == KICKOFF + timedelta(days=3)
    racks = [seat.rack for seat in scheduled.seats.all()]
    assert [len(rack) for rack in racks] == [7, 7]
    assert scheduled.bag_count == 101 - 14


def test_a_commit_at_kick_off_opens_the_match_lazily_without_any_sweep(scheduled, alice) -> None:
    with time_machine.travel(KICKOFF, tick=False):
        outcome = _pass(scheduled, alice)
    assert outcome.accepted, outcome.message
    scheduled.refresh_from_db()
    assert scheduled.status == Match.Status.LIVE
    assert scheduled.turn_number == 1
    assert scheduled.to_move == 1


def test_a_late_sweep_still_times_the_first_move_from_kick_off(scheduled) -> None:
    with time_machine.travel(KICKOFF + timedelta(hours=5), tick=False):
        services.open_due_matches()
    scheduled.refresh_from_db()
    assert scheduled.turn_deadline_at == KICKOFF + timedelta(days=3)


# ------------------------------------------------------------------ no-show


@pytest.fixture
def half_seated(make_fixture, alice) -> Match:
    with time_machine.travel(KICKOFF - timedelta(days=1), tick=False):
        return make_fixture(first=alice, kickoff_at=KICKOFF)


def test_an_empty_seat_a_second_before_the_no_show_deadline_can_still_be_taken(
    half_seated, bob
) -> None:
    with time_machine.travel(KICKOFF + timedelta(minutes=15) - SECOND, tick=False):
        assert services.default_no_shows() == []
        assert services.open_due_matches() == []  # kick-off passed, but a seat is empty
        services.match_take_seat(match_id=half_seated.id, member=bob)
    half_seated.refresh_from_db()
    assert half_seated.status == Match.Status.LIVE  # opened the moment the seat filled
    assert half_seated.turn_deadline_at == KICKOFF + timedelta(days=3)


def test_the_present_player_wins_by_default_at_the_no_show_deadline(half_seated, bob) -> None:
    with time_machine.travel(KICKOFF + timedelta(minutes=15), tick=False):
        assert services.default_no_shows() == [half_seated.id]
        assert services.default_no_shows() == []
        with pytest.raises(services.SeatUnavailable):
            services.match_take_seat(match_id=half_seated.id, member=bob)
    half_seated.refresh_from_db()
    assert half_seated.status == Match.Status.FINISHED
    assert half_seated.result == Match.Result.FIRST
    assert half_seated.end_reason == Match.EndReason.NO_SHOW


def test_the_no_show_window_is_the_organisers_choice(make_fixture, alice) -> None:
    match = make_fixture(second=alice, kickoff_at=KICKOFF, no_show_window=timedelta(minutes=5))
    with time_machine.travel(KICKOFF + timedelta(minutes=5) - SECOND, tick=False):
        assert services.default_no_shows() == []
    with time_machine.travel(KICKOFF + timedelta(minutes=5), tick=False):
        assert services.default_no_shows() == [match.id]
    match.refresh_from_db()
    assert match.result == Match.Result.SECOND


def test_a_late_seat_is_refused_lazily_without_any_sweep(half_seated, bob) -> None:
    with (
        time_machine.travel(KICKOFF + timedelta(days=2), tick=False),
        pytest.raises(services.SeatUnavailable, match=r"This match is over\."),
    ):
        services.match_take_seat(match_id=half_seated.id, member=bob)
    half_seated.refresh_from_db()
    assert half_seated.end_reason == Match.EndReason.NO_SHOW
    assert half_seated.result == Match.Result.FIRST


def test_both_seats_empty_at_the_deadline_abandons_the_match(make_fixture) -> None:
    match = make_fixture(kickoff_at=KICKOFF)
    with time_machine.travel(KICKOFF + timedelta(minutes=15), tick=False):
        assert services.default_no_shows() == [match.id]
    match.refresh_from_db()
    assert match.status == Match.Status.ABANDONED
    assert match.result == Match.Result.NONE


# ------------------------------------------------------------------ forfeit


@pytest.fixture
def live_at_kickoff(scheduled) -> Match:
    with time_machine.travel(KICKOFF, tick=False):
        services.open_due_matches()
    scheduled.refresh_from_db()
    return scheduled


def test_a_move_a_second_before_the_deadline_is_accepted(live_at_kickoff, alice) -> None:
    deadline = KICKOFF + timedelta(days=3)
    with time_machine.travel(deadline - SECOND, tick=False):
        assert services.forfeit_stalled_matches() == []
        outcome = _pass(live_at_kickoff, alice)
    assert outcome.accepted
    live_at_kickoff.refresh_from_db()
    # The turn moved on, and so did the deadline: three days from that move.
    assert live_at_kickoff.turn_deadline_at == deadline - SECOND + timedelta(days=3)


def test_a_move_at_the_deadline_is_refused_as_the_forfeit_it_is(live_at_kickoff, alice) -> None:
    with time_machine.travel(KICKOFF + timedelta(days=3), tick=False):
        outcome = _pass(live_at_kickoff, alice)
    assert not outcome.accepted
    assert outcome.message == "This match is over."
    live_at_kickoff.refresh_from_db()
    assert live_at_kickoff.status == Match.Status.FINISHED
    assert live_at_kickoff.end_reason == Match.EndReason.FORFEIT
    assert live_at_kickoff.result == Match.Result.SECOND
    assert Turn.objects.filter(match=live_at_kickoff).count() == 0


def test_the_sweep_forfeits_the_player_to_move_whatever_the_scores(live_at_kickoff, alice) -> None:
    moved_at = KICKOFF + timedelta(hours=1)
    with time_machine.travel(moved_at, tick=False):
        assert _pass(live_at_kickoff, alice).accepted  # now bob (Second) is to move
    with time_machine.travel(moved_at + timedelta(days=3) - SECOND, tick=False):
        assert services.forfeit_stalled_matches() == []
    with time_machine.travel(moved_at + timedelta(days=3), tick=False):
        assert services.forfeit_stalled_matches() == [live_at_kickoff.id]
    live_at_kickoff.refresh_from_db()
    assert live_at_kickoff.result == Match.Result.FIRST
    assert live_at_kickoff.end_reason == Match.EndReason.FORFEIT


def test_a_sweep_ten_days_late_gives_the_same_result_as_one_on_time(
    live_at_kickoff, alice, bob
) -> None:
    with time_machine.travel(KICKOFF + timedelta(days=1), tick=False):
        assert _pass(live_at_kickoff, alice).accepted
    with time_machine.travel(KICKOFF + timedelta(days=30), tick=False):
        # bob's late move arrives before any sweep: it is the forfeit it is.
        outcome = _pass(live_at_kickoff, bob, client_id="late")
        assert outcome.message == "This match is over."
        assert services.forfeit_stalled_matches() == []
    live_at_kickoff.refresh_from_db()
    assert live_at_kickoff.result == Match.Result.FIRST
    assert live_at_kickoff.end_reason == Match.EndReason.FORFEIT


def test_a_page_load_applies_a_passed_deadline(live_at_kickoff) -> None:
    with time_machine.travel(KICKOFF + timedelta(days=4), tick=False):
        services.match_apply_deadlines(match_id=live_at_kickoff.id)
    live_at_kickoff.refresh_from_db()
    assert live_at_kickoff.end_reason == Match.EndReason.FORFEIT
    assert live_at_kickoff.result == Match.Result.SECOND


# ------------------------------------------------------------------ concurrency


def _listen(match_ids: list[int]):
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    for match_id in match_ids:
        async_to_sync(layer.group_add)(match_group(match_id), channel)
    return layer, channel


def _drain(layer, channel) -> list[dict]:
    """Every item of news the channel holds (a change's news travel as one message)."""

    async def drain() -> list[dict]:
        import asyncio

        messages = []
        while True:
            try:
                message = await asyncio.wait_for(layer.receive(channel), timeout=1.0)
                messages += news_items(message)
            except TimeoutError:
                return messages

    return async_to_sync(drain)()


@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_change_each_match_exactly_once(make_fixture, make_member) -> None:
    members = [make_member() for _ in range(40)]
    matches = [
        make_fixture(first=members[2 * i], second=members[2 * i + 1], kickoff_at=KICKOFF)
        for i in range(20)
    ]
    ids = [match.id for match in matches]
    layer, channel = _listen(ids)
    results: list[list[int]] = []
    barrier = threading.Barrier(2)

    def sweep() -> None:
        try:
            barrier.wait()
            results.append(services.open_due_matches(now=KICKOFF + SECOND))
        finally:
            connection.close()

    threads = [threading.Thread(target=sweep) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(results) == 2
    first, second = results
    assert sorted(first + second) == sorted(ids), "every match opened, none twice"
    assert Match.objects.filter(id__in=ids, status=Match.Status.LIVE).count() == 20
    opened = [m["match_id"] for m in _drain(layer, channel) if m.get("kind") == "opened"]
    assert sorted(opened) == sorted(ids), "one opened event per match"
