"""Fixtures, round robins, taking a seat and the viewing key, through the services only."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from itertools import combinations

import pytest
import time_machine
from django.contrib.auth.models import AnonymousUser

from matches import services, visibility
from matches.models import Match, Seat
from tournaments import services as organising

KICKOFF = datetime(2031, 5, 4, 18, 0, tzinfo=UTC)
BEFORE = KICKOFF - timedelta(days=1)
SECOND = timedelta(seconds=1)
pytestmark = pytest.mark.django_db


def _members(seats) -> list[int | None]:
    return [seat.member_id for seat in seats]


# ------------------------------------------------------------------ one fixture


def test_a_fixture_without_players_has_two_free_seats(organiser) -> None:
    with time_machine.travel(BEFORE, tick=False):
        match = organising.create_fixture(organiser=organiser, name="Open", kickoff_at=KICKOFF)
    seats = list(match.seats.order_by("position"))
    assert [seat.position for seat in seats] == [0, 1]
    assert _members(seats) == [None, None]
    assert match.status == Match.Status.SCHEDULED
    assert match.no_show_at == KICKOFF + timedelta(minutes=15)
    assert match.created_by == organiser
    assert match.game_state is None


def test_a_fixture_with_players_seats_them_and_waits_for_kick_off(organiser, alice, bob) -> None:
    with time_machine.travel(BEFORE, tick=False):
        match = organising.create_fixture(
            organiser=organiser,
            name="Seated",
            kickoff_at=KICKOFF,
            first=alice,
            second=bob,
            visibility_=Match.Visibility.MEMBERS,
            no_show_window=timedelta(minutes=5),
        )
    match.refresh_from_db()
    assert _members(match.seats.order_by("position")) == [alice.pk, bob.pk]
    assert match.status == Match.Status.SCHEDULED
    assert match.visibility == Match.Visibility.MEMBERS
    assert match.no_show_at == KICKOFF + timedelta(minutes=5)


def test_a_fixture_with_one_player_leaves_the_other_seat_free(organiser, bob) -> None:
    match = organising.create_fixture(organiser=organiser, name="Half", second=bob)
    assert _members(match.seats.order_by("position")) == [None, bob.pk]
    assert match.status == Match.Status.SCHEDULED


def test_a_fixture_without_kick_off_and_both_players_is_live_at_once(
    make_fixture, alice, bob
) -> None:
    match = make_fixture(first=alice, second=bob)
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    assert (match.turn_number, match.to_move) == (0, 0)
    seats = list(match.seats.order_by("position"))
    assert [seat.member for seat in seats] == [alice, bob]
    assert [len(seat.rack) for seat in seats] == [7, 7]


def test_only_organisers_schedule_fixtures(alice) -> None:
    with pytest.raises(services.NotAllowed):
        organising.create_fixture(organiser=alice, name="Nope")
    assert not Match.objects.exists()


def test_a_member_cannot_sit_on_both_sides(organiser, alice) -> None:
    with pytest.raises(services.ServiceError, match="both sides"):
        organising.create_fixture(organiser=organiser, name="Twice", first=alice, second=alice)
    assert not Match.objects.exists()


@pytest.mark.parametrize(
    "name",
    ["GCG\n#player1 hacked hacked", "Cup\rCup", "Cup\u2028#note x", "Cup\x85x", "Cup\u202eevil"],
)
def test_a_name_that_is_not_one_line_is_refused(organiser, alice, bob, name: str) -> None:
    """A fixture's or a tournament's name goes into records and logs: one line only."""
    with pytest.raises(services.InvalidFixture, match="one line"):
        organising.create_fixture(organiser=organiser, name=name)
    with pytest.raises(services.InvalidFixture, match="one line"):
        organising.create_round_robin(
            organiser=organiser,
            name=name,
            players=[alice, bob],
            first_kickoff=KICKOFF,
            interval=timedelta(days=1),
        )
    assert not Match.objects.exists()


# ------------------------------------------------------------------ round robins


def _pairs(tournament) -> list[tuple[int, int]]:
    return [
        tuple(match.seats.order_by("position").values_list("member_id", flat=True))
        for match in tournament.matches.order_by("round_number", "id")
    ]


def test_a_round_robin_of_four_is_six_fixtures_over_three_rounds(organiser, make_member) -> None:
    players = [make_member(f"p{i}") for i in range(4)]
    with time_machine.travel(BEFORE, tick=False):
        tournament = organising.create_round_robin(
            organiser=organiser,
            name="Four",
            players=players,
            first_kickoff=KICKOFF,
            interval=timedelta(hours=24),
        )
    matches = list(tournament.matches.order_by("round_number", "id"))
    assert len(matches) == 6
    assert sorted({m.round_number for m in matches}) == [1, 2, 3]
    for number in (1, 2, 3):
        in_round = [m for m in matches if m.round_number == number]
        assert len(in_round) == 2
        assert {m.kickoff_at for m in in_round} == {KICKOFF + timedelta(hours=24) * (number - 1)}
        seated = [pk for m in in_round for pk in _members(m.seats.all())]
        assert sorted(seated) == sorted(p.pk for p in players)  # everyone plays once a round
    pairs = _pairs(tournament)
    assert {frozenset(pair) for pair in pairs} == {
        frozenset((a.pk, b.pk)) for a, b in combinations(players, 2)
    }
    assert set(tournament.players.all()) == set(players)
    assert all(m.status == Match.Status.SCHEDULED for m in matches)
    firsts = Counter(pair[0] for pair in pairs)
    assert all(count in (1, 2) for count in firsts.values())  # seats roughly alternate


def test_a_round_robin_of_five_is_ten_fixtures_with_a_bye_each_round(
    organiser, make_member
) -> None:
    players = [make_member(f"q{i}") for i in range(5)]
    tournament = organising.create_round_robin(
        organiser=organiser,
        name="Five",
        players=players,
        first_kickoff=KICKOFF,
        interval=timedelta(hours=12),
    )
    matches = list(tournament.matches.all())
    assert len(matches) == 10
    rounds = sorted({m.round_number for m in matches})
    assert rounds == [1, 2, 3, 4, 5]
    byes: Counter[int] = Counter()
    for number in rounds:
        in_round = [m for m in matches if m.round_number == number]
        assert len(in_round) == 2
        seated = {pk for m in in_round for pk in _members(m.seats.all())}
        assert len(seated) == 4
        (resting,) = {p.pk for p in players} - seated
        byes[resting] += 1
    assert byes == Counter({p.pk: 1 for p in players})  # each player sits out exactly once
    assert {frozenset(pair) for pair in _pairs(tournament)} == {
        frozenset((a.pk, b.pk)) for a, b in combinations(players, 2)
    }


def test_a_double_round_robin_plays_every_pair_twice_with_seats_swapped(
    organiser, make_member
) -> None:
    players = [make_member(f"r{i}") for i in range(4)]
    tournament = organising.create_round_robin(
        organiser=organiser,
        name="Twice",
        players=players,
        first_kickoff=KICKOFF,
        interval=timedelta(hours=24),
        double=True,
    )
    pairs = _pairs(tournament)
    assert len(pairs) == 12
    assert sorted({m.round_number for m in tournament.matches.all()}) == list(range(1, 7))
    assert Counter(pairs) == Counter({(a.pk, b.pk): 1 for a in players for b in players if a != b})


def test_only_organisers_create_round_robins(alice, bob, make_member) -> None:
    with pytest.raises(services.NotAllowed):
        organising.create_round_robin(
            organiser=alice,
            name="Nope",
            players=[alice, bob],
            first_kickoff=KICKOFF,
            interval=timedelta(hours=1),
        )
    assert not Match.objects.exists()


def test_a_round_robin_refuses_a_repeated_player(organiser, alice, bob) -> None:
    with pytest.raises(services.ServiceError, match="only once"):
        organising.create_round_robin(
            organiser=organiser,
            name="Dup",
            players=[alice, bob, alice],
            first_kickoff=KICKOFF,
            interval=timedelta(hours=1),
        )
    assert not Match.objects.exists()


# ------------------------------------------------------------------ taking a seat


@pytest.fixture
def half_seated(make_fixture, alice) -> Match:
    """Alice is First; Second is free; kick-off at KICKOFF."""
    with time_machine.travel(BEFORE, tick=False):
        return make_fixture(first=alice, kickoff_at=KICKOFF)


def test_a_member_takes_the_free_seat(half_seated, alice, bob) -> None:
    with time_machine.travel(BEFORE, tick=False):
        seat = services.match_take_seat(match_id=half_seated.id, member=bob).seat
    assert seat.position == 1
    assert _members(half_seated.seats.order_by("position")) == [alice.pk, bob.pk]
    half_seated.refresh_from_db()
    assert half_seated.status == Match.Status.SCHEDULED  # kick-off has not come


def test_taking_the_last_seat_after_kick_off_opens_the_match(half_seated, bob) -> None:
    with time_machine.travel(KICKOFF + timedelta(minutes=1), tick=False):
        services.match_take_seat(match_id=half_seated.id, member=bob)
    half_seated.refresh_from_db()
    assert half_seated.status == Match.Status.LIVE


def test_a_seated_member_cannot_take_a_second_seat(half_seated, alice) -> None:
    with (
        time_machine.travel(BEFORE, tick=False),
        pytest.raises(services.SeatUnavailable, match="already have a seat"),
    ):
        services.match_take_seat(match_id=half_seated.id, member=alice)
    assert Seat.objects.get(match=half_seated, position=1).member is None


def test_no_seat_when_both_are_taken(make_fixture, alice, bob, make_member) -> None:
    with time_machine.travel(BEFORE, tick=False):
        match = make_fixture(first=alice, second=bob, kickoff_at=KICKOFF)
        carol = make_member("carol")
        with pytest.raises(services.SeatUnavailable, match="Both seats are taken"):
            services.match_take_seat(match_id=match.id, member=carol)
        with pytest.raises(services.SeatUnavailable, match="That seat is taken"):
            services.match_take_seat(match_id=match.id, member=carol, position=0)
    assert _members(match.seats.order_by("position")) == [alice.pk, bob.pk]


def test_a_taken_seat_cannot_be_chosen(half_seated, bob) -> None:
    with (
        time_machine.travel(BEFORE, tick=False),
        pytest.raises(services.SeatUnavailable, match="That seat is taken"),
    ):
        services.match_take_seat(match_id=half_seated.id, member=bob, position=0)


def test_a_seat_can_be_taken_a_second_before_the_no_show_deadline(half_seated, bob) -> None:
    with time_machine.travel(KICKOFF + timedelta(minutes=15) - SECOND, tick=False):
        services.match_take_seat(match_id=half_seated.id, member=bob)
    half_seated.refresh_from_db()
    assert half_seated.status == Match.Status.LIVE


def test_no_seat_after_the_no_show_deadline(half_seated, alice, bob) -> None:
    with (
        time_machine.travel(KICKOFF + timedelta(minutes=15), tick=False),
        pytest.raises(services.SeatUnavailable),
    ):
        services.match_take_seat(match_id=half_seated.id, member=bob)
    half_seated.refresh_from_db()
    assert Seat.objects.get(match=half_seated, position=1).member is None
    # The deadline that had passed stands: the present player won by default.
    assert half_seated.status == Match.Status.FINISHED
    assert half_seated.result == Match.Result.FIRST
    assert half_seated.end_reason == Match.EndReason.NO_SHOW


def test_no_seat_in_a_finished_match(half_seated, bob) -> None:
    with time_machine.travel(KICKOFF + timedelta(hours=1), tick=False):
        services.match_apply_deadlines(match_id=half_seated.id)
        half_seated.refresh_from_db()
        assert half_seated.is_over
        with pytest.raises(services.SeatUnavailable, match="This match is over"):
            services.match_take_seat(match_id=half_seated.id, member=bob)
    assert Seat.objects.get(match=half_seated, position=1).member is None


def test_signed_out_visitors_cannot_take_a_seat(half_seated) -> None:
    with pytest.raises(services.NotAllowed, match="Sign in"):
        services.match_take_seat(match_id=half_seated.id, member=AnonymousUser())
    assert Seat.objects.get(match=half_seated, position=1).member is None


# ------------------------------------------------------------------ the viewing key


def test_a_new_viewing_key_cuts_off_the_old_link(make_fixture, organiser, alice, client) -> None:
    match = make_fixture(first=alice, visibility=Match.Visibility.MEMBERS)
    old = match.viewing_key
    assert client.get(f"/matches/{match.id}/", {"key": old}).status_code == 200
    new = services.match_rotate_viewing_key(match_id=match.id, member=organiser)
    match.refresh_from_db()
    assert new == match.viewing_key != old
    assert not visibility.key_is_valid(match, old)
    assert visibility.key_is_valid(match, new)
    assert client.get(f"/matches/{match.id}/", {"key": old}).status_code == 404
    assert client.get(f"/matches/{match.id}/", {"key": new}).status_code == 200


def test_players_cannot_change_the_viewing_key(make_fixture, alice) -> None:
    match = make_fixture(first=alice, visibility=Match.Visibility.MEMBERS)
    with pytest.raises(services.NotAllowed):
        services.match_rotate_viewing_key(match_id=match.id, member=alice)
    assert Match.objects.get(pk=match.id).viewing_key == match.viewing_key
