"""Challenges through the service: each rule on a phony and on a good play, the refusals,
the window, a game-ending play's window closed by the sweep, and the race with the next
move."""

from __future__ import annotations

import re
import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection

from engine import Pass
from matches import services
from matches.integrity import match_problems
from matches.models import Match, Seat, Turn
from matches.records import verify_bag
from tests.matches.helpers import commit_move, commit_now, game_of, position_of
from tests.matches.table_helpers import (
    challenge_now,
    good_play,
    member_to_move,
    phony_opening,
    play_now,
    table_match,
)

RULES = ["single", "double", "five_point", "ten_point"]
BONUS = {"single": 0, "double": 0, "five_point": 5, "ten_point": 10}


@pytest.fixture
def three(make_member) -> list:
    return [make_member(name) for name in ("ann", "ben", "cat")]


def hidden(match: Match) -> tuple[list[str], str]:
    match.refresh_from_db()
    return [seat.rack for seat in match.seats.order_by("position")], match.game_state["bag"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("rule", RULES)
def test_a_challenged_phony_is_withdrawn_exactly_under_every_rule(organiser, three, rule):
    match = table_match(organiser, three, seed=4, challenge=rule)
    racks_before, bag_before = hidden(match)
    player = match.to_move
    assert player is not None
    play_now(match, three, phony_opening(match))  # a phony stands for now
    match.refresh_from_db()
    assert match.turn_number == 1
    assert match.game_state["open_play"] is not None
    challenger = three[(player + 2) % 3]  # not the next player: anyone else may challenge
    decided = challenge_now(match, challenger)
    assert isinstance(decided, services.ChallengeDecided), decided
    assert decided.answer.challenge.withdrawn
    racks_after, bag_after = hidden(match)
    assert racks_after == racks_before  # the tiles back on the rack ...
    assert sorted(bag_after) == sorted(bag_before)  # ... and the draw back in the bag
    game = game_of(match)
    assert not list(game.board.tiles())  # the board is empty again
    turn = Turn.objects.get(match=match, number=1)
    assert turn.challenge["phonies"]
    assert turn.challenge["points"] == -turn.score
    assert list(turn.totals) == [0, 0, 0]
    assert (match.turn_number, match.to_move) == (1, (player + 1) % 3)
    assert match_problems(match) == []
    # The stream ran on: play goes on and the bag check replays the withdrawal.
    play_now(match, three, good_play(match))
    services.match_resign(match_id=match.pk, member=three[0], client_id="end-it")
    match.refresh_from_db()
    report = verify_bag(match)
    assert report.ok, report.mismatches
    assert match_problems(match) == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("rule", RULES)
def test_a_challenged_good_play_stands_with_its_rule(organiser, three, rule):
    match = table_match(organiser, three, seed=4, challenge=rule)
    player = match.to_move
    assert player is not None
    play_now(match, three, good_play(match))
    score = Turn.objects.get(match=match, number=1).score
    next_seat = (player + 1) % 3
    decided = challenge_now(match, three[next_seat])  # the next player challenges
    assert isinstance(decided, services.ChallengeDecided), decided
    assert not decided.answer.challenge.withdrawn
    assert decided.answer.challenge.points == BONUS[rule]
    match.refresh_from_db()
    assert Seat.objects.get(match=match, position=player).score == score + BONUS[rule]
    if rule == "double":  # the wrong challenger loses their next turn, which is now
        lost = Turn.objects.get(match=match, number=2)
        assert (lost.position, lost.kind, lost.lost_turn) == (next_seat, "pass", True)
        assert (match.turn_number, match.to_move) == (2, (player + 2) % 3)
    else:
        assert (match.turn_number, match.to_move) == (1, next_seat)
    assert match_problems(match) == []


@pytest.mark.django_db(transaction=True)
def test_challenge_refusals_have_stable_codes_and_change_nothing(organiser, three, make_member):
    void = table_match(organiser, three, seed=4)
    play_now(void, three, good_play(void))
    assert challenge_now(void, three[(void.to_move or 0)]).code == "challenges_off"

    match = table_match(organiser, [make_member() for _ in range(3)], seed=4, challenge="single")
    members = [seat.member for seat in match.seats.order_by("position")]
    assert challenge_now(match, members[0]).code == "no_play_to_challenge"
    player = match.to_move
    play_now(match, members, good_play(match))
    assert challenge_now(match, members[player]).code == "own_play"
    other = members[(player + 1) % 3]
    assert challenge_now(match, other, turn=0).code == "stale_turn"
    stranger = challenge_now(match, organiser)
    assert isinstance(stranger, services.NotAllowed)
    assert isinstance(challenge_now(match, other), services.ChallengeDecided)
    assert challenge_now(match, members[(player + 2) % 3]).code == "already_challenged"
    assert match_problems(match) == []


@pytest.mark.django_db(transaction=True)
def test_a_play_cannot_be_challenged_once_its_window_has_passed(organiser, three):
    match = table_match(organiser, three, seed=4, challenge="single", window=timedelta(minutes=5))
    play_now(match, three, phony_opening(match))
    match.refresh_from_db()
    later = match.turn_started_at + timedelta(minutes=6)
    challenger = three[((match.to_move or 0) + 1) % 3]
    with pytest.raises(services.MoveRefused) as refused:
        services.match_challenge(
            match_id=match.pk, member=challenger, client_id="late", expected_turn=1, now=later
        )
    assert refused.value.code == "challenge_window_closed"
    assert Turn.objects.get(match=match, number=1).challenge is None


@pytest.mark.django_db(transaction=True)
def test_the_next_move_closes_the_play_to_a_challenge(organiser, three):
    match = table_match(organiser, three, seed=4, challenge="double")
    play_now(match, three, phony_opening(match))
    play_now(match, three, Pass())
    match.refresh_from_db()
    assert match.game_state.get("open_play") is None
    late = challenge_now(match, three[(match.to_move or 0)], turn=1)
    assert late.code == "stale_turn"


def _race(match: Match, mover: object, challenger: object) -> dict[str, Any]:
    """The next player's pass, made on the position after turn 1 (the phony on the board),
    and another player's challenge of turn 1, sent at once from two threads (two
    connections); their answers."""
    start = threading.Barrier(2)
    results: dict[str, Any] = {}
    on_the_phony = position_of(match)

    def move() -> None:
        start.wait()
        try:
            results["move"] = commit_now(match, mover, Pass(), against=1, after=on_the_phony)
        finally:
            connection.close()

    def challenge() -> None:
        start.wait()
        try:
            results["challenge"] = challenge_now(match, challenger, turn=1)
        finally:
            connection.close()

    threads = [threading.Thread(target=move), threading.Thread(target=challenge)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.mark.django_db(transaction=True)
def test_a_challenge_raced_against_the_next_move_has_one_winner(organiser, three):
    """The challenge and the next player's pass (made on the phony's board) are sent at
    once, again and again: the row lock orders them, and exactly one of them is accepted: a
    pass first closes the play (the challenge is refused as stale), a challenge first
    withdraws it and the pass, made on a position that is gone, is refused as stale."""
    outcomes = set()
    for seed in range(4):
        match = table_match(organiser, three, seed=4 + seed, challenge="single")
        player = match.to_move
        assert player is not None
        play_now(match, three, phony_opening(match))
        results = _race(match, three[(player + 1) % 3], three[(player + 2) % 3])
        turn = Turn.objects.get(match=match, number=1)
        challenged = isinstance(results["challenge"], services.ChallengeDecided)
        moved = results["move"].accepted
        assert challenged != moved, results  # exactly one winner
        assert challenged == (turn.challenge is not None)
        match.refresh_from_db()
        if challenged:
            outcomes.add("challenge first")
            assert turn.challenge is not None
            assert turn.challenge["phonies"]
            assert results["move"].code == "stale_turn"
            assert (match.turn_number, Turn.objects.filter(match=match).count()) == (1, 1)
        else:
            outcomes.add("move first")
            assert results["challenge"].code == "stale_turn"
            assert (match.turn_number, Turn.objects.filter(match=match).count()) == (2, 2)
        assert match_problems(match) == []
    assert outcomes  # (which came first is the scheduler's: either is one winner)


@pytest.mark.django_db(transaction=True)
def test_a_move_made_on_a_withdrawn_phony_is_refused_and_changes_nothing(organiser, three):
    """The challenge first: the next player's move, made on the board with the phony and
    sent with the same turn number (a withdrawn play keeps it), names a position that is
    gone: refused ``stale_turn``; the racks, the bag and the turn stay as the challenge left
    them, and the same move on the position now is accepted."""
    match = table_match(organiser, three, seed=4, challenge="single")
    player = match.to_move
    assert player is not None
    play_now(match, three, phony_opening(match))
    on_the_phony = position_of(match)
    mover = three[(player + 1) % 3]
    assert isinstance(challenge_now(match, three[(player + 2) % 3]), services.ChallengeDecided)
    after_challenge = hidden(match), (match.turn_number, match.to_move), position_of(match)
    assert after_challenge[2] != on_the_phony
    late = commit_now(match, mover, Pass(), against=1, after=on_the_phony)
    assert (late.accepted, late.code) == (False, "stale_turn")
    assert late.message == "A challenge was decided meanwhile. Board updated."
    assert (hidden(match), (match.turn_number, match.to_move), position_of(match)) == (
        after_challenge
    )
    assert Turn.objects.filter(match=match).count() == 1
    assert commit_now(match, mover, Pass(), against=1).accepted  # on the position now
    match.refresh_from_db()
    assert match_problems(match) == []


@pytest.mark.django_db(transaction=True)
def test_a_move_made_before_a_good_play_was_challenged_is_refused_too(organiser, three):
    """A challenge that leaves the board as it was (a good play stands, with its bonus)
    still rewrote the last turn: a move named before it is refused; one winner always."""
    match = table_match(organiser, three, seed=4, challenge="five_point")
    player = match.to_move
    assert player is not None
    play_now(match, three, good_play(match))
    before = position_of(match)
    mover = three[(player + 1) % 3]
    assert isinstance(challenge_now(match, three[(player + 2) % 3]), services.ChallengeDecided)
    late = commit_now(match, mover, Pass(), against=1, after=before)
    assert (late.accepted, late.code) == (False, "stale_turn")
    assert commit_now(match, mover, Pass(), against=1).accepted


@pytest.mark.django_db(transaction=True)
def test_the_next_move_first_refuses_the_challenge_as_stale(organiser, three):
    match = table_match(organiser, three, seed=4, challenge="single")
    player = match.to_move
    assert player is not None
    play_now(match, three, phony_opening(match))
    moved = commit_now(match, three[(player + 1) % 3], Pass())  # on the position now
    assert moved.accepted, moved
    refused = challenge_now(match, three[(player + 2) % 3], turn=1)
    assert refused.code == "stale_turn"
    assert Turn.objects.get(match=match, number=1).challenge is None


@pytest.mark.django_db(transaction=True)
def test_a_move_under_a_challenge_rule_must_name_its_position(organiser, three):
    match = table_match(organiser, three, seed=4, challenge="double")
    before = hidden(match), match.turn_number
    bare = commit_move(
        match_id=match.pk,
        member=member_to_move(match, three),
        move=Pass(),
        against_turn=0,
        client_id="no-position",
    )
    assert (bare.accepted, bare.code) == (False, "position_required")
    assert (hidden(match), match.turn_number) == before
    wrong = commit_now(match, member_to_move(match, three), Pass(), after="0" * 64)
    assert (wrong.accepted, wrong.code) == (False, "stale_turn")
    assert (hidden(match), match.turn_number) == before


@pytest.mark.django_db(transaction=True)
def test_a_void_game_ignores_the_position(organiser, three):
    """Under ``void`` no challenge can change a position the turn number does not name: a
    move without ``after`` (every duel's client) is accepted, and one naming it is too."""
    match = table_match(organiser, three, seed=4)
    bare = commit_move(
        match_id=match.pk,
        member=member_to_move(match, three),
        move=Pass(),
        against_turn=0,
        client_id="no-position",
    )
    assert bare.accepted, bare
    assert commit_now(match, member_to_move(match, three), Pass(), after="0" * 64).accepted
    match.refresh_from_db()
    assert match.turn_number == 2


@pytest.mark.django_db(transaction=True)
def test_a_game_ending_play_waits_for_its_window_then_the_sweep_finishes_it(organiser, three):
    match = table_match(organiser, three, seed=4, challenge="single", finish_line=1)
    play_now(match, three, good_play(match))  # reaches the finish line at once
    match.refresh_from_db()
    assert (match.status, match.to_move) == ("live", None)
    assert match.game_state["open_play"] is not None
    assert match_problems(match) == []
    due = match.turn_deadline_at
    assert services.close_challenge_windows(now=due - timedelta(seconds=1)) == []
    assert services.close_challenge_windows(now=due + timedelta(seconds=1)) == [match.pk]
    assert services.close_challenge_windows(now=due + timedelta(seconds=2)) == []  # rerun
    match.refresh_from_db()
    assert (match.status, match.end_reason, match.result) == ("finished", "finish_line", "table")
    assert sorted(p for p in match.seats.values_list("place", flat=True)) == [1, 2, 2]
    assert match_problems(match) == []
    assert verify_bag(match).ok


@pytest.mark.django_db(transaction=True)
def test_a_withdrawn_game_ending_phony_resumes_the_game(organiser, three):
    match = table_match(organiser, three, seed=4, challenge="ten_point", finish_line=1)
    player = match.to_move
    assert player is not None
    play_now(match, three, phony_opening(match))
    match.refresh_from_db()
    assert match.to_move is None
    decided = challenge_now(match, three[(player + 1) % 3])
    assert isinstance(decided, services.ChallengeDecided)
    assert decided.answer.challenge.withdrawn
    match.refresh_from_db()
    assert (match.status, match.to_move) == ("live", (player + 1) % 3)
    assert match.turn_deadline_at is not None
    assert match_problems(match) == []
    assert member_to_move(match, three) == three[(player + 1) % 3]


@pytest.mark.django_db(transaction=True)
def test_a_lost_turn_tells_the_player_now_to_move(organiser, three):
    from notifications.models import Kind, Notice

    match = table_match(organiser, three, seed=4, challenge="double")
    player = match.to_move
    assert player is not None
    play_now(match, three, good_play(match))
    wrong = three[(player + 1) % 3]  # the next player challenges a good play: loses the turn
    assert isinstance(challenge_now(match, wrong), services.ChallengeDecided)
    told = three[(player + 2) % 3]
    assert Notice.objects.filter(
        member=told, kind=Kind.YOUR_MOVE, match_id=match.pk, turn_number=2
    ).exists()


@pytest.mark.django_db(transaction=True)
def test_a_finished_table_with_a_withdrawn_phony_replays_and_exports(organiser, three):
    from matches import visibility

    match = table_match(organiser, three, seed=4, challenge="five_point")
    player = match.to_move
    assert player is not None
    play_now(match, three, phony_opening(match))
    assert isinstance(challenge_now(match, three[(player + 1) % 3]), services.ChallengeDecided)
    play_now(match, three, good_play(match))
    services.match_resign(match_id=match.pk, member=three[player], client_id="done")
    access = visibility.access_match(user=organiser, match_id=match.pk, key=None)
    record = visibility.gcg_for(access)
    assert record is not None
    assert "#player3" in record
    assert re.search(r"^>\w+: +-- -\d+ ", record, re.MULTILINE)  # a withdrawn phony's line
    label = ("First", "Second", "Third")[player]
    assert f"({label}) resigned." in record  # the resigner, placed last
    assert "No result" not in record
    opening = visibility.replay(access, 1)
    assert opening.moves[0].challenge is not None
    assert opening.moves[0].challenge.withdrawn
    assert all(row == "." * 15 for row in opening.board)  # the phony is off the board
    final = visibility.replay(access, 2)
    assert final.final
    assert [seat.place for seat in final.seats] == [
        seat.place for seat in match.seats.order_by("position")
    ]
