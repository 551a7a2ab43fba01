"""A practice table: a member and two or three computers at a classic table, under a
challenge rule; the computers move in seat order through the commit service (queued after
the commit), and decide challenges as their level says."""

from __future__ import annotations

import itertools

import pytest
from django.test import Client
from django.urls import reverse

from engine import PlacedTile, Play, best_play, get_ruleset, legal_plays
from engine.errors import MoveError
from engine.scoring import evaluate_play
from lexicon.lexicon import get_lexicon
from matches.models import Match, Turn
from practice.models import ComputerOpponent
from practice.services import PracticeRefused, computer_member, start_practice
from practice.tasks import run_computer_turn
from tests.matches.helpers import assert_tiles_conserved, commit_move, game_of, position_of

pytestmark = pytest.mark.django_db


def start_table(member, capture, **options) -> Match:
    """A practice table, the computers' opening moves made (until the member is to move)."""
    with capture(execute=True):
        match = start_practice(member=member, **options)
    match.refresh_from_db()
    return match


def member_plays(match: Match, member, move: Play, capture) -> None:
    """``member`` commits ``move``; the computers answer after the commit."""
    match.refresh_from_db()
    with capture(execute=True):
        outcome = commit_move(
            match_id=match.id,
            member=member,
            move=move,
            against_turn=match.turn_number,
            after=position_of(match),
            client_id=f"member-{match.turn_number}",
        )
    assert outcome.accepted, outcome.message
    match.refresh_from_db()


def good_play(match: Match) -> Play:
    """The best real play for the seat to move."""
    game = game_of(match)
    moves = legal_plays(
        game.board, game.racks[game.to_move], ruleset=game.ruleset, lexicon=get_lexicon("enable")
    )
    best = best_play(moves)
    assert best is not None
    assert isinstance(best.move, Play)
    return best.move


def phony_play(match: Match) -> tuple[Play, list[str]]:
    """A play of the mover's tiles, well placed on the board as it is, that forms a word not
    in the lexicon (a real play with one letter changed to another of the rack), and its
    phonies."""
    game = game_of(match)
    lexicon = get_lexicon("enable")
    rack = list(game.racks[game.to_move])
    rules = get_ruleset(match.ruleset)
    for legal in legal_plays(game.board, rack, ruleset=rules, lexicon=lexicon):
        if not isinstance(legal.move, Play):
            continue
        tiles = legal.move.tiles
        for index, letter in itertools.product(range(len(tiles)), set(rack) - {"?"}):
            used = [tile.rack_tile for n, tile in enumerate(tiles) if n != index] + [letter]
            if any(used.count(tile) > rack.count(tile) for tile in used):
                continue
            changed = [*tiles]
            changed[index] = PlacedTile(tiles[index].row, tiles[index].col, letter, False)
            try:
                words = evaluate_play(game.board, changed, ruleset=rules).words
            except MoveError:
                continue
            phonies = [word.word for word in words if word.word not in lexicon]
            if phonies:
                return Play(tuple(changed)), phonies
    raise AssertionError(f"no phony from {rack}")


def positions(match: Match) -> list[int]:
    return list(
        Turn.objects.filter(match=match).order_by("number").values_list("position", flat=True)
    )


def test_a_practice_table_seats_the_member_and_the_computers(alice) -> None:
    match = start_practice(
        member=alice, level="easy", seats=4, computers=3, challenge_rule="single"
    )
    match.refresh_from_db()
    assert (match.ruleset, match.seat_count, match.challenge_rule) == ("classic", 4, "single")
    assert match.status == Match.Status.LIVE
    assert match.rated is False
    seats = {seat.position: seat.member for seat in match.seats.all()}
    assert seats == {0: alice, 1: computer_member(1), 2: computer_member(2), 3: computer_member(3)}
    assert list(
        ComputerOpponent.objects.filter(match=match)
        .order_by("position")
        .values_list("position", "level")
    ) == [(1, "easy"), (2, "easy"), (3, "easy")]


def test_a_table_with_a_free_seat_waits_for_another_member(alice, bob) -> None:
    match = start_practice(member=alice, seats=3, computers=1, challenge_rule="double")
    match.refresh_from_db()
    assert match.status == Match.Status.SCHEDULED
    assert [seat.member for seat in match.seats.order_by("position")] == [
        alice,
        computer_member(1),
        None,
    ]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"seats": 5, "computers": 1}, "A practice table seats 3 or 4 players."),
        ({"seats": 3, "computers": 3}, "A table of 3 takes one to 2 computers."),
        ({"seats": 4, "computers": 0}, "A table of 4 takes one to 3 computers."),
        (
            {"seats": 3, "computers": 2, "challenge_rule": "triple"},
            "No challenge rule is called 'triple'.",
        ),
        (
            {"seats": 2, "computers": 1, "challenge_rule": "double"},
            "A practice duel is against one computer, without challenges.",
        ),
    ],
)
def test_a_table_that_cannot_be_is_refused_and_nothing_is_made(alice, options, message) -> None:
    with pytest.raises(PracticeRefused) as refused:
        start_practice(member=alice, **options)
    assert refused.value.message == message
    assert not Match.objects.exists()


def test_the_computers_move_in_seat_order(
    alice, eager_tasks, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    match = start_table(alice, capture, level="easy", seats=4, computers=3, challenge_rule="void")
    assert match.to_move == 0  # whoever was drawn to start, the computers played up to alice
    for _ in range(3):
        member_plays(match, alice, good_play(match), capture)
        assert match.to_move == 0 or match.is_over
        if match.is_over:
            break
    played = positions(match)
    assert len(played) >= 12
    first = played[0]
    assert played == [(first + n) % 4 for n in range(len(played))]  # seat order, every round
    assert set(played) == {0, 1, 2, 3}
    assert_tiles_conserved(match)


def test_a_hard_computer_challenges_a_phony_and_play_goes_on(
    alice, eager_tasks, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    match = start_table(alice, capture, level="hard", seats=3, computers=2, challenge_rule="double")
    assert match.to_move == 0
    rack_before = game_of(match).racks[0]
    phony, phonies = phony_play(match)
    member_plays(match, alice, phony, capture)
    challenged = Turn.objects.filter(match=match, position=0).order_by("-number").first()
    assert challenged is not None
    assert challenged.challenge is not None
    assert challenged.challenge["by"] == 1  # the computer after alice decided first
    assert sorted(challenged.challenge["phonies"]) == sorted(set(phonies))
    assert game_of(match).racks[0] == rack_before  # the phony's tiles back on her rack
    after = list(
        Turn.objects.filter(match=match, number__gt=challenged.number)
        .order_by("number")
        .values_list("position", flat=True)
    )
    assert after == [1, 2]  # withdrawn: she lost the turn; the computers played on, in order
    assert match.to_move == 0
    assert run_computer_turn(match.id) == "not the computer's turn"
    assert_tiles_conserved(match)


def test_an_easy_computer_never_challenges(
    alice, eager_tasks, django_capture_on_commit_callbacks
) -> None:
    capture = django_capture_on_commit_callbacks
    match = start_table(alice, capture, level="easy", seats=3, computers=2, challenge_rule="single")
    phony, _ = phony_play(match)
    member_plays(match, alice, phony, capture)
    mine = Turn.objects.filter(match=match, position=0).order_by("-number").first()
    assert mine is not None
    assert mine.kind == Turn.Kind.PLAY
    assert mine.challenge is None  # the phony stands: nobody challenged it
    assert match.to_move == 0


def test_the_home_page_form_starts_a_practice_table(alice) -> None:
    client = Client()
    client.force_login(alice)
    home = client.get(reverse("home")).content.decode()
    assert 'name="seats"' in home
    assert 'name="computers"' in home
    assert 'value="double"' in home
    form = {"level": "hard", "seats": "3", "computers": "2", "challenge_rule": "double"}
    response = client.post(reverse("practice:start"), form)
    match = Match.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("match", args=[match.id])
    assert (match.seat_count, match.challenge_rule, match.ruleset) == (3, "double", "classic")
    page = client.get(response["Location"]).content.decode()
    assert 'id="challenge-box"' in page
    # Its level box is for the member the computers play: one choice for every computer.
    assert (
        client.post(reverse("practice:level", args=[match.id]), {"level": "easy"}).status_code
        == 302
    )
    assert set(ComputerOpponent.objects.filter(match=match).values_list("level", flat=True)) == {
        "easy"
    }


def test_a_table_the_form_cannot_make_is_refused_in_words(alice) -> None:
    client = Client()
    client.force_login(alice)
    form = {"level": "hard", "seats": "9", "computers": "2", "challenge_rule": "double"}
    response = client.post(reverse("practice:start"), form, follow=True)
    assert "A practice table seats 3 or 4 players." in response.content.decode()
    assert not Match.objects.exists()


def test_the_computers_request_id_names_the_position_a_challenge_changes(make_member, organiser):
    """A challenge changes the position without moving the turn on: the computer's request
    id names the position too, so its move refused on the old position (a challenge came
    between its look and its commit) does not answer its move on the new one."""
    from engine import Pass
    from practice.tasks import _seat_view, move_request_id
    from tests.matches.table_helpers import challenge_now, phony_opening, play_now, table_match

    three = [make_member(name) for name in ("ann", "ben", "cat")]
    match = table_match(organiser, three, seed=4, challenge="single")
    player = match.to_move
    assert player is not None
    play_now(match, three, phony_opening(match))
    mover = three[(player + 1) % 3]
    looked = _seat_view(match.pk, mover)
    challenge_now(match, three[(player + 2) % 3])
    now = _seat_view(match.pk, mover)
    assert looked.turn_number == now.turn_number == 1
    assert looked.position() != now.position() == position_of(match)
    assert move_request_id(looked) != move_request_id(now)
    stale = commit_move(
        match_id=match.pk,
        member=mover,
        move=Pass(),
        against_turn=1,
        after=looked.position(),
        client_id=move_request_id(looked),
    )
    assert (stale.accepted, stale.code) == (False, "stale_turn")
    fresh = commit_move(
        match_id=match.pk,
        member=mover,
        move=Pass(),
        against_turn=1,
        after=now.position(),
        client_id=move_request_id(now),
    )
    assert fresh.accepted, fresh
