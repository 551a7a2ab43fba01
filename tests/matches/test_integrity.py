"""``check_integrity`` passes sound matches and names what is wrong with broken ones."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from matches.integrity import match_problems
from matches.models import Match, Seat, Turn
from tests.matches.helpers import opening_then_pass

pytestmark = pytest.mark.django_db


@pytest.fixture
def played(live_match, alice, bob) -> Match:
    opening_then_pass(live_match, alice, bob, ids=("1", "2"))
    return live_match


def test_a_sound_match_has_no_problems(played, make_fixture) -> None:
    assert played.turn_number == 2
    assert match_problems(played) == []
    assert match_problems(make_fixture()) == []  # scheduled, nobody seated


def test_the_command_exits_zero_when_all_is_sound(played, capsys) -> None:
    call_command("check_integrity")
    assert "0 with problems" in capsys.readouterr().out


def test_a_lost_tile_is_found(played, capsys) -> None:
    seat = Seat.objects.get(match=played, position=0)
    seat.rack = seat.rack[:-1]
    seat.save()
    problems = match_problems(played)
    assert "board + racks + bag is not the ruleset's full set of tiles" in problems
    with pytest.raises(SystemExit) as exit_info:
        call_command("check_integrity")
    assert exit_info.value.code == 1
    assert f"match {played.pk}" in capsys.readouterr().out


def test_a_gap_in_the_log_and_a_wrong_score_are_found(played) -> None:
    Turn.objects.filter(match=played, number=2).update(number=3)
    Seat.objects.filter(match=played, position=1).update(score=99)
    problems = match_problems(played)
    assert "turn numbers are not contiguous from 1" in problems
    assert any(p.startswith("seat 1 scores 99") for p in problems)


def test_a_finished_match_without_a_result_is_found(played) -> None:
    Match.objects.filter(pk=played.pk).update(status=Match.Status.FINISHED)
    played.refresh_from_db()
    assert "finished without a result and how it ended" in match_problems(played)
