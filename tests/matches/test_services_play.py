"""Commits through ``services.match_commit``: accepted, refused, repeated, racing, ending."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from matches import services
from matches.models import CommitReceipt, Match, Seat, Turn
from tests.matches.helpers import (
    assert_tiles_conserved,
    commit_move,
    commit_now,
    game_of,
    opening_play,
    rack_of,
)

pytestmark = pytest.mark.django_db


def snapshot_state(match: Match) -> tuple:
    match.refresh_from_db()
    seats = tuple(Seat.objects.filter(match=match).values_list("rack", "score"))
    return (match.game_state, match.turn_number, match.to_move, seats, Turn.objects.count())


def test_an_accepted_opening_scores_draws_and_passes_the_turn(live_match, alice) -> None:
    move = opening_play(rack_of(live_match, 0))
    outcome = commit_now(live_match, alice, move, client_id="open-1")
    assert outcome.accepted, outcome.message
    live_match.refresh_from_db()
    assert live_match.turn_number == 1
    assert live_match.to_move == 1
    turn = Turn.objects.get(match=live_match)
    assert turn.kind == "play"
    assert turn.placement == move["tiles"]
    assert turn.score == outcome.ack["score"] > 0
    assert outcome.ack["rack"] == list(rack_of(live_match, 0))
    assert len(outcome.ack["rack"]) == 7
    assert live_match.bag_count == 101 - 14 - 2
    assert_tiles_conserved(live_match)


@pytest.mark.parametrize(
    ("who", "move", "message"),
    [
        ("bob", {"kind": "pass"}, "It is not your turn."),
        ("carol", {"kind": "pass"}, "It is not your turn."),
        (
            "alice",
            {
                "kind": "play",
                "tiles": [
                    {"row": 0, "col": 0, "letter": "A", "blank": False},
                    {"row": 0, "col": 1, "letter": "T", "blank": False},
                ],
            },
            None,  # either tiles missing or star missed, depending on the rack
        ),
        ("alice", {"kind": "swap", "tiles": ["Q", "Q"]}, "You do not have those tiles."),
    ],
)
def test_a_refused_commit_changes_nothing(
    live_match, alice, bob, make_member, who, move, message
) -> None:
    member = {"alice": alice, "bob": bob}.get(who) or make_member(who)
    before = snapshot_state(live_match)
    outcome = commit_now(live_match, member, move, client_id="x")
    assert not outcome.accepted
    if message:
        assert outcome.message == message
    else:
        assert outcome.message in {
            "You do not have those tiles.",
            "The first word has to cover the star.",
        }
    assert snapshot_state(live_match) == before


def test_a_stale_commit_is_refused_in_the_rules_words(live_match, alice, bob) -> None:
    assert commit_now(live_match, alice, {"kind": "pass"}, client_id="a1").accepted
    before = snapshot_state(live_match)
    outcome = commit_now(live_match, bob, {"kind": "pass"}, client_id="b1", against=0)
    assert not outcome.accepted
    assert outcome.code == "stale_turn"
    assert outcome.message == "Your opponent moved. Board updated."
    assert snapshot_state(live_match) == before


def test_the_same_client_id_applies_once_and_answers_the_same(live_match, alice) -> None:
    move = opening_play(rack_of(live_match, 0))
    first = commit_now(live_match, alice, move, client_id="same", against=0)
    second = commit_now(live_match, alice, move, client_id="same", against=0)
    assert first.accepted
    assert second.accepted
    assert second.replayed
    assert second.ack == first.ack
    assert Turn.objects.filter(match=live_match).count() == 1
    assert CommitReceipt.objects.filter(match=live_match, client_id="same").count() == 1


def test_a_swap_returns_tiles_and_tells_others_only_the_count(live_match, alice) -> None:
    rack = rack_of(live_match, 0)
    outcome = commit_now(
        live_match, alice, {"kind": "swap", "tiles": list(rack[:3])}, client_id="s"
    )
    assert outcome.accepted, outcome.message
    turn = Turn.objects.get(match=live_match)
    assert (turn.kind, turn.swap_count, turn.swapped, turn.score) == ("swap", 3, rack[:3], 0)
    assert turn.placement == []
    assert_tiles_conserved(live_match)


def test_six_scoreless_turns_end_the_game_with_racks_deducted(live_match, alice, bob) -> None:
    for n in range(6):
        member = alice if n % 2 == 0 else bob
        assert commit_now(live_match, member, {"kind": "pass"}, client_id=f"p{n}").accepted
    live_match.refresh_from_db()
    assert live_match.status == Match.Status.FINISHED
    assert live_match.end_reason == Match.EndReason.SIX_SCORELESS
    game = game_of(live_match)
    expected = [-game.ruleset.rack_value(rack_of(live_match, p)) for p in (0, 1)]
    assert [s.score for s in live_match.seats.all()] == expected
    expected_result = (
        "draw"
        if expected[0] == expected[1]
        else ("first" if expected[0] > expected[1] else "second")
    )
    assert live_match.result == expected_result
    assert live_match.turn_deadline_at is None
    outcome = commit_now(live_match, bob, {"kind": "pass"}, client_id="after")
    assert outcome.message == "This match is over."
    assert_tiles_conserved(live_match)


@pytest.mark.django_db(transaction=True)
def test_racing_commits_from_both_tabs_of_one_seat_apply_exactly_once(live_match, alice) -> None:
    rounds = 5  # five passes: the sixth scoreless turn would end the game
    for n in range(rounds):
        live_match.refresh_from_db()
        turn_seen = live_match.turn_number
        mover = alice if live_match.to_move == 0 else live_match.seats.get(position=1).member
        outcomes: list[services.CommitOutcome] = []
        barrier = threading.Barrier(2)

        def send(
            tab: int, mover=mover, turn_seen=turn_seen, outcomes=outcomes, barrier=barrier, n=n
        ) -> None:
            try:
                barrier.wait()
                outcomes.append(
                    commit_move(
                        match_id=live_match.id,
                        member=mover,
                        move={"kind": "pass"},
                        against_turn=turn_seen,
                        client_id=f"r{n}-tab{tab}",
                    )
                )
            finally:
                connection.close()

        threads = [threading.Thread(target=send, args=(tab,)) for tab in (1, 2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert sorted(o.accepted for o in outcomes) == [False, True]
        refused = next(o for o in outcomes if not o.accepted)
        assert refused.message in {"Your opponent moved. Board updated.", "It is not your turn."}
        if live_match.status != Match.Status.LIVE:
            break
    assert Turn.objects.filter(match=live_match).count() <= rounds


def _behind_the_match_lock(match: Match, *commits) -> list:
    """Run ``commits`` (callables) in threads of their own while another transaction holds
    the match's row lock, release it once all of them wait for it, and return their
    outcomes in order: each then reads what the one before it committed, as it must."""
    import concurrent.futures
    import time

    import psycopg

    dsn = connection.get_connection_params()
    holder = psycopg.connect(
        **{key: dsn[key] for key in ("dbname", "user", "host", "port") if dsn.get(key)}
    )
    try:
        holder.execute("SELECT 1 FROM matches_match WHERE id = %s FOR UPDATE", [match.pk])

        def run(commit):
            try:
                return commit()
            finally:
                connection.close()

        with concurrent.futures.ThreadPoolExecutor(len(commits)) as pool:
            outcomes = []
            for commit in commits:  # one at a time into the lock's queue, in this order
                outcomes.append(pool.submit(run, commit))
                waiting = len(outcomes)
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    (count,) = holder.execute(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND wait_event_type = 'Lock'"
                    ).fetchone()
                    if count >= waiting:
                        break
                    time.sleep(0.01)
                else:
                    raise AssertionError(f"{waiting} commits never waited for the lock")
            holder.rollback()  # the lock goes; the queued commits take it in turn
            return [outcome.result(timeout=30) for outcome in outcomes]
    finally:
        holder.close()


@pytest.mark.django_db(transaction=True)
def test_a_commit_that_waited_for_the_lock_sees_the_receipt_of_the_one_before_it(
    live_match, alice
) -> None:
    """The same client id sent twice at once (a resend racing the original): the second,
    queued behind the first's lock, answers the first's answer; it is not refused as stale."""
    move = opening_play(rack_of(live_match, 0))

    def send():
        return commit_move(
            match_id=live_match.id, member=alice, move=move, against_turn=0, client_id="twice"
        )

    first, second = _behind_the_match_lock(live_match, send, send)

    assert (first.accepted, first.replayed) == (True, False)
    assert (second.accepted, second.replayed) == (True, True)
    assert second.ack == first.ack
    assert Turn.objects.filter(match=live_match).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_turn_made_behind_the_lock_chains_to_the_turn_committed_before_it(
    live_match, alice, bob
) -> None:
    """Bob's pass waits while Alice's opening commits: it chains to her turn's hash."""
    from matches.chain import record_hash
    from matches.integrity import match_problems

    opening = opening_play(rack_of(live_match, 0))
    alice_first, bob_next = _behind_the_match_lock(
        live_match,
        lambda: commit_move(
            match_id=live_match.id, member=alice, move=opening, against_turn=0, client_id="a1"
        ),
        lambda: commit_move(
            match_id=live_match.id,
            member=bob,
            move={"kind": "pass"},
            against_turn=1,
            client_id="b1",
        ),
    )

    assert (alice_first.accepted, bob_next.accepted) == (True, True), (alice_first, bob_next)
    first, second = Turn.objects.filter(match=live_match).order_by("number")
    assert second.record_hash == record_hash(second, first.record_hash)
    live_match.refresh_from_db()
    assert match_problems(live_match) == []


def test_an_accepted_move_writes_its_rows_in_one_statement(live_match, alice) -> None:
    """The turn, the mover's seat, the match, the opponent's notice and the receipt: one
    statement for the five after the two reads (a WITH of data-modifying statements,
    matches/services/rows_at_once.py), each row as it should be."""
    from notifications.models import Notice

    statements: list[str] = []

    def sent(execute, sql, params, many, context):
        if not sql.startswith(("SAVEPOINT", "RELEASE SAVEPOINT")):  # (the test's transaction)
            statements.append(sql)
        return execute(sql, params, many, context)

    move = opening_play(rack_of(live_match, 0))
    with connection.execute_wrapper(sent):
        outcome = commit_now(live_match, alice, move, client_id="together-1")
    assert outcome.accepted, outcome.message
    writes = [sql for sql in statements if not sql.lstrip().startswith("SELECT")]
    assert [sql.split()[0] for sql in writes] == ["WITH"]
    assert [sql.count(" AS (") for sql in writes] == [5]  # the five rows' writes
    # the test helper's read, the match locked, its seats (and the receipt), the writes
    assert len(statements) == 4
    live_match.refresh_from_db()
    assert (live_match.turn_number, live_match.to_move) == (1, 1)
    turn = Turn.objects.get(match=live_match)
    assert turn.placement == move["tiles"]
    receipt = CommitReceipt.objects.get(client_id="together-1")
    assert receipt.accepted
    assert receipt.response["turn_number"] == 1
    assert Seat.objects.get(match=live_match, position=0).score == turn.score
    assert Notice.objects.filter(match=live_match, turn_number=1, kind="your_move").count() == 1
    assert_tiles_conserved(live_match)
