"""The computer's seat on the server: it is given its seat's view and nothing else.

Two matches that differ only in what the computer's seat may not see (the opponent's rack and
the bag) give it equal views and so the same move for the same seed; choosing reads nothing
from the database; the move it makes is one the commit service accepts with the same score.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from django.contrib.auth.models import AnonymousUser

from matches import services, visibility
from matches.models import Match, Seat
from matches.schemas import MatchView
from matches.stored_game import position_state
from practice.opponent import NotComputersTurn, computer_move, position_from_view
from tests.matches.helpers import commit_move, game_of, opening_play, rack_of

pytestmark = pytest.mark.django_db

CHOICES = [("easy", 1), ("easy", 2), ("normal", 3), ("hard", 4)]


def view_for(member, match: Match) -> MatchView:
    access = services.look_at_match(user=member, match_id=match.id, key=None)
    return visibility.match_view(access)


def deal_other_rack_anew(match: Match, *, hidden_from: int) -> None:
    """Give the other seat a different rack from the same unseen tiles (so the bag differs
    too): nothing the seat ``hidden_from`` can see changes."""
    game = game_of(match)
    other = 1 - hidden_from
    held = game.racks[other]
    unseen = sorted([*held, *game.bag])
    rng = random.Random(7)
    while True:
        shuffled = rng.sample(unseen, len(unseen))
        rack = tuple(sorted(shuffled[: len(held)]))
        if rack != held:
            break
    racks = (rack, game.racks[1]) if other == 0 else (game.racks[0], rack)
    game = replace(game, racks=racks, bag=tuple(sorted(shuffled[len(held) :])))
    Match.objects.filter(pk=match.pk).update(game_state=position_state(game))
    Seat.objects.filter(match=match, position=other).update(rack="".join(rack))


@pytest.fixture
def computers_turn(live_match, alice) -> Match:
    """alice (First) has opened; bob's seat, the computer's here, is to move."""
    outcome = commit_move(
        match_id=live_match.id,
        member=alice,
        move=opening_play(rack_of(live_match, 0)),
        against_turn=0,
        client_id="open",
    )
    assert outcome.accepted, outcome.message
    live_match.refresh_from_db()
    return live_match


def test_what_the_seat_cannot_see_does_not_change_its_move(computers_turn, alice, bob) -> None:
    match = computers_turn
    before = view_for(bob, match)
    chosen = [computer_move(before, level=lv, rng=random.Random(s)) for lv, s in CHOICES]
    alices_rack, bag = game_of(match).racks[0], game_of(match).bag
    alices_view = view_for(alice, match)

    deal_other_rack_anew(match, hidden_from=1)

    assert game_of(match).racks[0] != alices_rack
    assert game_of(match).bag != bag
    assert view_for(alice, match) != alices_view  # the hidden state did change
    after = view_for(bob, match)
    assert after == before
    assert [computer_move(after, level=lv, rng=random.Random(s)) for lv, s in CHOICES] == chosen


def test_choosing_reads_nothing_from_the_database(
    computers_turn, bob, django_assert_num_queries
) -> None:
    view = view_for(bob, computers_turn)
    with django_assert_num_queries(0):
        choice = computer_move(view, level="hard", rng=random.Random(0), vocabulary_cap=50)
    assert choice.move.kind in {"play", "swap", "pass"}


def test_the_position_holds_the_views_facts(computers_turn, bob) -> None:
    view = view_for(bob, computers_turn)
    position = position_from_view(view)
    assert position.seat == 1
    assert list(position.rack) == sorted(view.rack or [])
    assert list(position.board.rows()) == view.board
    assert position.bag_count == view.bag_count
    assert position.opponent_rack_count == 7
    assert position.scores == (view.seats[0].score, 0)
    assert position.scoreless_streak == 0


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_its_move_goes_through_the_commit_service_with_the_score_it_expected(
    computers_turn, bob, level
) -> None:
    match = computers_turn
    choice = computer_move(view_for(bob, match), level=level, rng=random.Random(1))
    outcome = commit_move(
        match_id=match.id,
        member=bob,
        move=choice.move.move,
        against_turn=match.turn_number,
        client_id="computer-1",
    )
    assert outcome.accepted, outcome.message
    if choice.move.kind == "play":
        assert outcome.ack["score"] == choice.move.score


def test_a_view_that_is_not_of_the_seat_to_move_is_refused(computers_turn, alice) -> None:
    match = computers_turn
    with pytest.raises(NotComputersTurn):
        computer_move(view_for(alice, match), level="hard", rng=random.Random(0))
    with pytest.raises(NotComputersTurn):
        computer_move(view_for(AnonymousUser(), match), level="hard", rng=random.Random(0))


@pytest.mark.parametrize("cap", [0, 101, True, 50.5])
def test_a_vocabulary_cap_off_the_scale_is_refused(computers_turn, bob, cap) -> None:
    with pytest.raises(ValueError, match="from 1 to 100"):
        computer_move(
            view_for(bob, computers_turn), level="hard", rng=random.Random(0), vocabulary_cap=cap
        )
