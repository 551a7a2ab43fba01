"""Practice matches against the computer: started at once, the computer answering each move
through the commit service (queued after the commit), its level changed during the game, and
whole games played to the end at each level."""

from __future__ import annotations

import random
import time

import pytest
from django.test import Client

from matches import services, visibility
from matches.models import CommitReceipt, Match, Turn
from practice.models import LEVELS, ComputerOpponent
from practice.opponent import computer_move
from practice.services import PracticeRefused, computer_member, set_level, start_practice
from practice.tasks import run_computer_turn
from tests.matches.helpers import assert_tiles_conserved, commit_move

pytestmark = pytest.mark.django_db


def members_move(match: Match, member, *, seed: int) -> None:
    """``member`` makes the move the engine's Hard player would, from her own view."""
    view = visibility.match_view(services.look_at_match(user=member, match_id=match.id, key=None))
    choice = computer_move(view, level="hard", rng=random.Random(seed))
    outcome = commit_move(
        match_id=match.id,
        member=member,
        move=choice.move.move,
        against_turn=view.turn_number,
        client_id=f"member-{view.turn_number}",
    )
    assert outcome.accepted, outcome.message


def test_a_practice_match_is_live_at_once_and_unrated(alice) -> None:
    match = start_practice(member=alice, level="easy")
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    assert match.to_move == 0
    assert match.rated is False
    assert match.visibility == Match.Visibility.MEMBERS
    seats = {seat.position: seat.member for seat in match.seats.all()}
    assert seats == {0: alice, 1: computer_member()}
    assert ComputerOpponent.objects.get(match=match).level == "easy"


def test_the_computer_answers_through_the_commit_service_after_the_commit(
    alice, eager_tasks, django_capture_on_commit_callbacks
) -> None:
    match = start_practice(member=alice, level="normal")
    with django_capture_on_commit_callbacks(execute=True):
        members_move(match, alice, seed=1)
    match.refresh_from_db()
    assert match.turn_number == 2
    assert match.to_move == 0
    computer_turn = Turn.objects.get(match=match, number=2)
    assert computer_turn.position == 1
    receipt = CommitReceipt.objects.get(match=match, member=computer_member())
    assert receipt.client_id == "computer-1"
    assert receipt.accepted
    assert_tiles_conserved(match)


def test_nothing_is_queued_until_the_commit(alice, django_capture_on_commit_callbacks) -> None:
    match = start_practice(member=alice)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        members_move(match, alice, seed=2)
    match.refresh_from_db()
    assert match.turn_number == 1  # the computer has not moved: its turn waits for the commit
    assert callbacks  # (the news, the notices and the computer's turn)
    assert run_computer_turn(match.id).split()[0] in {"play", "swap", "pass"}
    assert run_computer_turn(match.id) == "not the computer's turn"  # once, however often asked
    match.refresh_from_db()
    assert match.turn_number == 2


def test_the_level_changes_during_the_game_for_its_member_only(alice, bob) -> None:
    match = start_practice(member=alice, level="easy")
    assert set_level(match_id=match.id, member=alice, level="hard").level == "hard"
    assert ComputerOpponent.objects.get(match=match).level == "hard"
    with pytest.raises(PracticeRefused, match="Only the member"):
        set_level(match_id=match.id, member=bob, level="easy")
    with pytest.raises(PracticeRefused, match="easy, normal or hard"):
        set_level(match_id=match.id, member=alice, level="expert")
    with pytest.raises(PracticeRefused, match="no such match"):
        set_level(match_id=match.id + 999, member=alice, level="easy")
    assert ComputerOpponent.objects.get(match=match).level == "hard"


def test_the_computer_cannot_sign_in(alice) -> None:
    start_practice(member=alice)
    computer = computer_member()
    assert not computer.is_active
    assert not computer.has_usable_password()
    signed_in = Client().post(
        "/accounts/sign-in/", {"username": computer.username, "password": ""}, follow=True
    )
    assert not signed_in.context["user"].is_authenticated


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_a_whole_practice_game_at_each_level(
    alice, eager_tasks, django_capture_on_commit_callbacks, level
) -> None:
    match = start_practice(member=alice, level=level)
    for number in range(200):
        match.refresh_from_db()
        if match.is_over:
            break
        assert match.to_move == 0  # the computer has always answered by now
        with django_capture_on_commit_callbacks(execute=True):
            members_move(match, alice, seed=number)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    turns = Turn.objects.filter(match=match)
    assert turns.filter(position=1).count() >= turns.filter(position=0).count() - 1
    assert_tiles_conserved(match)


def test_the_pages_start_a_match_and_change_the_level(alice) -> None:
    client = Client()
    client.force_login(alice)
    home = client.get("/")
    assert 'id="play-computer"' in home.content.decode()
    started = client.post("/practice/", {"level": "hard"})
    assert started.status_code == 302
    match = Match.objects.get(seats__member=alice)
    assert started["Location"] == f"/matches/{match.id}/"
    page = client.get(started["Location"]).content.decode()
    assert 'id="computer-level"' in page
    assert '<option value="hard" selected>' in page
    changed = client.post(f"/practice/{match.id}/level/", {"level": "easy"}, follow=True)
    assert "The computer now plays Easy." in changed.content.decode()
    assert ComputerOpponent.objects.get(match=match).level == "easy"
    assert Client().post("/practice/", {"level": "hard"}).status_code == 302  # to sign in
    assert Match.objects.count() == 1


def test_each_level_is_offered_with_its_measured_rating(alice) -> None:
    """The levels read as the ladder measured them (engine/data/ladder.json), on the home
    page's form and on the match's level form, and the order of strength holds."""
    from engine.computer import get_level
    from engine.ladder import level_rating

    ratings = {name: level_rating(get_level(name), ruleset="word-duel") for name, _ in LEVELS}
    assert ratings["easy"].rating < ratings["normal"].rating < ratings["hard"].rating
    client = Client()
    client.force_login(alice)
    home = client.get("/").content.decode()
    for name, label in (("easy", "Easy"), ("normal", "Normal"), ("hard", "Hard")):
        assert f"{label} · {ratings[name].shown}" in home
    match = start_practice(member=alice, level="hard")
    page = client.get(f"/matches/{match.id}/").content.decode()
    assert f"Hard · {ratings['hard'].shown}" in page


@pytest.mark.django_db(transaction=True)
def test_in_the_quick_start_a_thread_of_the_web_process_makes_the_move(alice, settings) -> None:
    """``make run`` has no worker: the computer's turn runs in a thread after the commit."""
    settings.CLOCK_IN_PROCESS = True
    match = start_practice(member=alice, level="hard")
    members_move(match, alice, seed=3)  # committed: the thread starts now
    deadline = time.monotonic() + 30  # a bound for a loaded machine, not the goal (2 s)
    while time.monotonic() < deadline:
        match.refresh_from_db()
        if match.turn_number == 2:
            break
        time.sleep(0.05)
    assert match.turn_number == 2
    assert match.to_move == 0
    assert CommitReceipt.objects.filter(member=computer_member(), client_id="computer-1").exists()


def test_the_computers_account_is_never_notified(
    alice, eager_tasks, django_capture_on_commit_callbacks
) -> None:
    from notifications.models import Notice

    match = start_practice(member=alice, level="hard")
    for number in range(3):
        with django_capture_on_commit_callbacks(execute=True):
            members_move(match, alice, seed=number)
    match.refresh_from_db()
    assert match.turn_number >= 6
    assert not Notice.objects.filter(member=computer_member()).exists()
    assert Notice.objects.filter(member=alice, match=match, kind="your_move").exists()


def test_a_lost_computer_turn_is_made_by_the_sweep(
    alice, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    from practice import tasks

    def broker_down(*args, **kwargs):
        raise ConnectionError("the broker is down")

    monkeypatch.setattr(tasks.play_computer_turn, "delay", broker_down)
    match = start_practice(member=alice, level="normal")
    with django_capture_on_commit_callbacks(execute=True):
        members_move(match, alice, seed=4)  # the queueing fails (logged), the move stands
    match.refresh_from_db()
    assert match.turn_number == 1
    assert tasks.requeue_stalled_turns() == []  # not stalled yet: its task may be on its way
    Match.objects.filter(pk=match.pk).update(
        turn_started_at=match.turn_started_at - tasks.STALLED_AFTER
    )
    assert tasks.requeue_stalled_turns() == [match.id]
    match.refresh_from_db()
    assert match.turn_number == 2
    assert tasks.requeue_stalled_turns() == []


def test_an_organiser_cannot_seat_the_computer_in_a_fixture(alice, organiser) -> None:
    """It plays practice matches only (a fixture's seat would wait for a move never made)."""
    start_practice(member=alice)  # the computer's account exists
    client = Client()
    client.force_login(organiser)
    form = {
        "fixture-name": "Against the machine",
        "fixture-ruleset": "word-duel",
        "fixture-visibility": "public",
        "fixture-no_show_minutes": "30",
        "fixture-first": "alice",
        "fixture-second": computer_member().username,
        "fixture-utc_offset": "0",
    }
    response = client.post("/organise/fixture/", form)
    assert response.status_code == 400
    assert "There is no member called" in response.content.decode()
    assert not Match.objects.filter(name="Against the machine").exists()


# -- the computer as a bye filler in an organiser's fixture -----------------------------------


def test_an_organiser_seats_the_computer_and_it_opens_the_match(
    organiser, alice, make_fixture, eager_tasks, django_capture_on_commit_callbacks
) -> None:
    from practice.services import seat_computer

    fixture = make_fixture(second=alice, name="Bye round")
    with django_capture_on_commit_callbacks(execute=True):
        seat_computer(match_id=fixture.id, organiser=organiser, position=0, level="hard")
    fixture.refresh_from_db()
    assert fixture.status == Match.Status.LIVE
    assert fixture.turn_number == 1  # the computer, First, has opened
    assert fixture.to_move == 1
    assert Turn.objects.get(match=fixture, number=1).position == 0
    assert ComputerOpponent.objects.get(match=fixture).level == "hard"
    # ... and then answers alice like in any practice match.
    with django_capture_on_commit_callbacks(execute=True):
        members_move(fixture, alice, seed=5)
    fixture.refresh_from_db()
    assert fixture.turn_number == 3


def test_a_fixture_that_opens_at_kick_off_gets_the_computers_move_from_the_sweep(
    organiser, alice, make_fixture, django_capture_on_commit_callbacks
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from matches import services
    from practice import tasks
    from practice.services import seat_computer

    fixture = make_fixture(first=None, second=alice, kickoff_at=timezone.now() + timedelta(hours=1))
    seat_computer(match_id=fixture.id, organiser=organiser, position=0, level="easy")
    fixture.refresh_from_db()
    assert fixture.status == Match.Status.SCHEDULED
    Match.objects.filter(pk=fixture.pk).update(kickoff_at=timezone.now() - timedelta(seconds=1))
    services.open_due_matches()
    fixture.refresh_from_db()
    assert fixture.status == Match.Status.LIVE
    assert fixture.to_move == 0
    Match.objects.filter(pk=fixture.pk).update(
        turn_started_at=fixture.turn_started_at - tasks.STALLED_AFTER
    )
    assert tasks.requeue_stalled_turns() == [fixture.id]
    fixture.refresh_from_db()
    assert fixture.turn_number == 1


@pytest.mark.parametrize(
    ("who", "change", "message"),
    [
        ("alice", {}, "Only organisers"),
        ("organiser", {"rated": True}, "rated match"),
        ("organiser", {"position": 1}, "That seat is taken"),
        ("organiser", {"level": "expert"}, "easy, normal or hard"),
        ("organiser", {"position": 2}, "First or Second"),
    ],
)
def test_seating_the_computer_is_refused_with_the_reason(
    organiser, alice, make_fixture, who, change, message
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from practice.services import seat_computer

    fixture = make_fixture(second=alice, kickoff_at=timezone.now() + timedelta(hours=1))
    if change.get("rated"):
        Match.objects.filter(pk=fixture.pk).update(rated=True)
    member = {"alice": alice, "organiser": organiser}[who]
    with pytest.raises(PracticeRefused, match=message):
        seat_computer(
            match_id=fixture.id,
            organiser=member,
            position=change.get("position", 0),
            level=change.get("level", "normal"),
        )
    assert not ComputerOpponent.objects.filter(match=fixture).exists()
    assert fixture.seats.get(position=0).member_id is None


def test_the_match_page_offers_an_organiser_the_empty_seat(organiser, alice, make_fixture) -> None:
    from datetime import timedelta

    from django.utils import timezone

    fixture = make_fixture(second=alice, kickoff_at=timezone.now() + timedelta(hours=1))
    client = Client()
    client.force_login(organiser)
    page = client.get(f"/matches/{fixture.id}/").content.decode()
    assert 'id="seat-computer"' in page
    member = Client()
    member.force_login(alice)
    assert 'id="seat-computer"' not in member.get(f"/matches/{fixture.id}/").content.decode()
    seated = client.post(
        f"/practice/{fixture.id}/seat/", {"position": "0", "level": "normal"}, follow=True
    )
    assert "The computer has taken the seat." in seated.content.decode()
    assert fixture.seats.get(position=0).member == computer_member()
