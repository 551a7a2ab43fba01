"""The rounds services on real PostgreSQL: opening, joining, starting, rounds and closes.

Transactional (``transaction=True``): Gramma Ana plays after a commit, as in the server.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from engine import Pass, Play
from engine.gramma_ana import cap_for_rating
from engine.rounds import ABSENT, BY_ORDER, BY_SPEED, PASSED, PLAYED, TIMED_OUT
from lexicon.difficulty import word_difficulty
from lexicon.lexicon import get_lexicon
from rounds import services
from rounds.models import ClosedRound, RoundsMatch
from tests.rounds.helpers import TURN, best_move, game, open_match, record, run_task

pytestmark = pytest.mark.django_db(transaction=True)

T0 = datetime(2026, 12, 6, 20, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)


def test_the_start_needs_two_players(make_member) -> None:
    alice = make_member("alice")
    match = open_match(alice, start=False)
    with pytest.raises(services.NotEnoughPlayers) as refused:
        services.rounds_start(match_id=match.pk, member=alice)
    assert refused.value.code == "not_enough_players"
    match.refresh_from_db()
    assert match.status == RoundsMatch.Status.OPEN
    assert match.game_state is None


def test_only_the_host_starts_and_only_once(make_member) -> None:
    alice, bob = make_member("alice"), make_member("bob")
    match = open_match(alice, bob, start=False)
    with pytest.raises(services.HostOnly) as refused:
        services.rounds_start(match_id=match.pk, member=bob)
    assert refused.value.code == "host_only"
    services.rounds_start(match_id=match.pk, member=alice)
    match.refresh_from_db()
    assert (match.status, match.round_number) == (RoundsMatch.Status.LIVE, 1)
    with pytest.raises(services.NotOpen):
        services.rounds_start(match_id=match.pk, member=alice)
    with pytest.raises(services.JoinRefused):
        services.rounds_join(match_id=match.pk, member=make_member("carol"))


def test_a_play_before_the_start_of_the_round_is_refused(make_member) -> None:
    alice, bob = make_member("alice"), make_member("bob")
    match = open_match(alice, bob)
    with pytest.raises(services.RoundRefused) as refused:
        services.rounds_submit(match_id=match.pk, member=alice, round_number=1, move=Pass())
    assert (refused.value.code, refused.value.message) == (
        "round_not_started",
        "Start the round first.",
    )
    with pytest.raises(services.StaleRound):
        services.rounds_start_round(match_id=match.pk, member=alice, round_number=2)
    assert game(match).current.started == (None, None)  # type: ignore[union-attr]


def test_a_submission_after_the_players_own_time_is_refused(make_member) -> None:
    alice, bob = make_member("alice"), make_member("bob")
    with time_machine.travel(T0, tick=False):
        match = open_match(alice, bob)
        services.rounds_start_round(match_id=match.pk, member=alice, round_number=1)
    with (
        time_machine.travel(T0 + TURN + SECOND, tick=False),
        pytest.raises(services.RoundRefused) as refused,
    ):
        services.rounds_submit(match_id=match.pk, member=alice, round_number=1, move=Pass())
    assert refused.value.code == "round_time_up"
    assert game(match).current.submissions == ()  # type: ignore[union-attr]


def test_the_round_closes_when_every_player_has_submitted(make_member) -> None:
    alice, bob = make_member("alice"), make_member("bob")
    match = open_match(alice, bob)
    for member in (alice, bob):
        services.rounds_start_round(match_id=match.pk, member=member, round_number=1)
    play = best_move(match)
    assert isinstance(play, Play)
    services.rounds_submit(match_id=match.pk, member=alice, round_number=1, move=Pass())
    services.rounds_submit(match_id=match.pk, member=bob, round_number=1, move=play)
    match.refresh_from_db()
    closed = record(match, 1)
    assert match.round_number == 2
    assert closed.placed == 1
    assert [closed.status_of(p) for p in (0, 1)] == [PASSED, PLAYED]
    assert closed.scores[1] > 0
    assert [p.total for p in match.players.order_by("position")] == list(closed.totals)
    assert game(match).board.rows() != tuple("." * 15 for _ in range(15))


def test_the_sweep_closes_a_round_at_its_deadline_and_the_absent_score_nothing(
    make_member,
) -> None:
    alice, bob, carol = make_member("alice"), make_member("bob"), make_member("carol")
    with time_machine.travel(T0, tick=False):
        match = open_match(alice, bob, carol)
        for member in (alice, bob):
            services.rounds_start_round(match_id=match.pk, member=member, round_number=1)
        play = best_move(match)
        services.rounds_submit(match_id=match.pk, member=alice, round_number=1, move=play)
        services.rounds_submit(match_id=match.pk, member=bob, round_number=1, move=play)
        assert services.close_due_rounds() == []  # carol has not started: not due
    deadline = T0 + timedelta(hours=24)
    with time_machine.travel(deadline - SECOND, tick=False):
        assert services.close_due_rounds() == []
    with time_machine.travel(deadline, tick=False):
        assert services.close_due_rounds() == [match.pk]
        assert services.close_due_rounds() == []  # safe to rerun
    closed = record(match, 1)
    assert closed.status_of(2) == ABSENT
    assert closed.scores[2] == 0
    assert closed.scores[0] == closed.scores[1] > 0  # both scored what they played
    match.refresh_from_db()
    assert match.round_number == 2
    assert match.actions[-1] == {"kind": "close"}


def test_a_started_player_whose_time_ran_out_finishes_the_round_with_nothing(
    make_member,
) -> None:
    alice, bob = make_member("alice"), make_member("bob")
    with time_machine.travel(T0, tick=False):
        match = open_match(alice, bob)
        services.rounds_start_round(match_id=match.pk, member=alice, round_number=1)
    with time_machine.travel(T0 + 10 * SECOND, tick=False):
        services.rounds_start_round(match_id=match.pk, member=bob, round_number=1)
        services.rounds_submit(match_id=match.pk, member=bob, round_number=1, move=Pass())
    match.refresh_from_db()
    assert match.closes_at == T0 + TURN + timedelta(milliseconds=1)  # alice's time is over
    with time_machine.travel(T0 + TURN, tick=False):
        assert services.close_due_rounds() == []  # a submission now would still stand
    with time_machine.travel(T0 + TURN + timedelta(milliseconds=1), tick=False):
        assert services.close_due_rounds() == [match.pk]
    closed = record(match, 1)
    assert [closed.status_of(0), closed.status_of(1)] == [TIMED_OUT, PASSED]
    assert closed.scores == (0, 0)
    assert closed.placed is None


def test_a_tie_on_score_goes_to_the_faster_then_to_the_earlier(make_member) -> None:
    alice, bob = make_member("alice"), make_member("bob")
    with time_machine.travel(T0, tick=False):
        match = open_match(alice, bob)
        for member in (alice, bob):
            services.rounds_start_round(match_id=match.pk, member=member, round_number=1)
        play = best_move(match)
    with time_machine.travel(T0 + 10 * SECOND, tick=False):
        services.rounds_submit(match_id=match.pk, member=alice, round_number=1, move=play)
    with time_machine.travel(T0 + 5 * SECOND, tick=False):  # bob's clock: 5 s, the faster
        services.rounds_submit(match_id=match.pk, member=bob, round_number=1, move=play)
    first = record(match, 1)
    assert (first.placed, first.decided_by) == (1, BY_SPEED)

    # Round 2: the same time on each clock, alice submitted first.
    with time_machine.travel(T0 + 20 * SECOND, tick=False):
        services.rounds_start_round(match_id=match.pk, member=alice, round_number=2)
    with time_machine.travel(T0 + 21 * SECOND, tick=False):
        services.rounds_start_round(match_id=match.pk, member=bob, round_number=2)
        play = best_move(match)
    with time_machine.travel(T0 + 30 * SECOND, tick=False):
        services.rounds_submit(match_id=match.pk, member=alice, round_number=2, move=play)
    with time_machine.travel(T0 + 31 * SECOND, tick=False):
        services.rounds_submit(match_id=match.pk, member=bob, round_number=2, move=play)
    second = record(match, 2)
    assert (second.placed, second.decided_by) == (0, BY_ORDER)


def test_gramma_ana_plays_right_after_the_member_within_her_cap(make_member) -> None:
    alice = make_member("alice")
    match = services.rounds_play_gramma_ana(member=alice, turn_time=TURN)
    assert (match.status, match.rated, match.gramma_rating) == ("live", True, 1200)
    services.rounds_start_round(match_id=match.pk, member=alice, round_number=1)
    services.rounds_submit(match_id=match.pk, member=alice, round_number=1, move=Pass())
    closed = record(match, 1)  # she played at once: the round closed with her play
    ana = closed.submission_of(1)
    assert ana is not None
    assert ana.elapsed_ms >= 0
    difficulty = word_difficulty(get_lexicon("enable", max_len=15))
    assert all(difficulty[w.word] <= cap_for_rating(1200) == 50 for w in ana.words)
    assert ClosedRound.objects.filter(match=match).count() == 1
    assert services.gramma_ana_play(match_id=match.pk, round_number=1) is False  # once


def test_the_beat_task_is_scheduled_and_closes_what_is_due(make_member) -> None:
    from rounds import tasks
    from wordduel.celery import app

    entry = app.conf.beat_schedule["rounds.close_due_rounds"]
    assert entry["task"] == tasks.close_due_rounds.name == "rounds.close_due_rounds"
    alice, bob = make_member("alice"), make_member("bob")
    with time_machine.travel(T0, tick=False):
        match = open_match(alice, bob)
        services.rounds_start_round(match_id=match.pk, member=alice, round_number=1)
    with time_machine.travel(T0 + timedelta(hours=24), tick=False):
        assert run_task(tasks.close_due_rounds, match_ids=[match.pk + 1]) == []
        assert run_task(tasks.close_due_rounds, match_ids=[match.pk]) == [match.pk]
        assert run_task(tasks.close_due_rounds) == []
    first = record(match, 1)
    assert [first.status_of(0), first.status_of(1)] == [TIMED_OUT, ABSENT]
