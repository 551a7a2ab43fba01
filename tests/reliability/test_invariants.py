"""The invariants ``check_integrity`` gained for the fault tests, each caught when broken.

* every move is the one accepted request that made it (a retry that applied twice, or a
  move whose receipt vanished, is found);
* seats take turns;
* a match that is over has nobody to move, no running deadline, and a finish time.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from matches.integrity import match_problems
from matches.models import CommitReceipt, Match, Turn
from tests.matches.helpers import commit_move, opening_then_pass

pytestmark = [pytest.mark.django_db, pytest.mark.corrupts_on_purpose]

DIFFER = "moves and accepted requests differ"


@pytest.fixture
def played(live_match, alice, bob) -> Match:
    opening_then_pass(live_match, alice, bob, ids=("a-1", "b-1"))
    assert match_problems(live_match) == []
    return live_match


def test_a_move_without_its_receipt_is_found(played) -> None:
    CommitReceipt.objects.filter(match=played, client_id="b-1").delete()
    problems = match_problems(played)
    assert any(p.startswith(DIFFER) and "1 moves without their receipt" in p for p in problems)


def test_an_accepted_request_that_logged_no_move_is_found(played, bob) -> None:
    CommitReceipt.objects.create(
        match=played, member=bob, client_id="b-2", accepted=True, response={}
    )
    problems = match_problems(played)
    assert any("1 accepted requests without exactly one move" in p for p in problems)


def test_a_request_logged_twice_is_found(played) -> None:
    Turn.objects.filter(match=played, number=2).update(client_id="a-1", position=0)
    problems = match_problems(played)
    assert "turn 2 was made by seat 0 out of turn" in problems
    assert any(p.startswith(DIFFER) for p in problems)


def test_a_refused_request_needs_no_move(played, alice) -> None:
    commit_move(
        match_id=played.id, member=alice, move={"kind": "pass"}, against_turn=0, client_id="a-2"
    )
    assert CommitReceipt.objects.filter(match=played, accepted=False).count() == 1
    assert match_problems(played) == []


def test_a_match_over_with_a_player_to_move_is_found(played, capsys) -> None:
    Match.objects.filter(pk=played.pk).update(
        status=Match.Status.FINISHED, result="first", end_reason="forfeit"
    )
    played.refresh_from_db()
    problems = match_problems(played)
    assert "over, yet with a player to move, a running deadline or no finish time" in problems
    with pytest.raises(SystemExit):
        call_command("check_integrity")
    assert f"match {played.pk}" in capsys.readouterr().out
