"""A classic table of 3-4 through the services: seat order, the end, places, giving up."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine import Pass
from matches import services
from matches.integrity import match_problems
from matches.models import Match, Seat, Turn
from matches.records import verify_bag
from tests.matches.helpers import commit_now, game_of
from tests.matches.table_helpers import good_play, member_to_move, play_now, table_match


@pytest.fixture
def four(make_member) -> list:
    return [make_member(name) for name in ("ann", "ben", "cat", "dan")]


def places(match: Match) -> list[int | None]:
    return list(match.seats.order_by("position").values_list("place", flat=True))


@pytest.mark.django_db(transaction=True)
def test_a_table_of_four_deals_four_racks_and_plays_in_seat_order_from_the_drawn_seat(
    organiser, four
):
    match = table_match(organiser, four, seed=3)
    game = game_of(match)
    first = game.first
    assert (game.players, match.to_move) == (4, first)
    assert all(len(seat.rack) == 7 for seat in match.seats.all())
    assert match.bag_count == 100 - 28
    for _ in range(6):
        play_now(match, four, good_play(match))
    match.refresh_from_db()
    positions = list(match.turns.order_by("number").values_list("position", flat=True))
    assert positions == [(first + n) % 4 for n in range(6)]
    assert match.to_move == (first + 6) % 4
    turn = match.turns.order_by("number").last()
    assert turn is not None
    assert len(turn.totals) == 4
    assert list(turn.totals) == [seat.score for seat in match.seats.order_by("position")]
    assert match_problems(match) == []


@pytest.mark.django_db(transaction=True)
def test_a_move_out_of_seat_order_is_refused_and_changes_nothing(organiser, four):
    match = table_match(organiser, four, seed=3)
    someone_else = four[(match.to_move + 2) % 4]
    outcome = commit_now(match, someone_else, Pass())
    assert (outcome.accepted, outcome.code) == (False, "not_your_turn")
    assert match.turns.count() == 0


@pytest.mark.django_db(transaction=True)
def test_three_scoreless_rounds_end_a_table_of_three_and_place_every_seat(organiser, four):
    table = four[:3]
    match = table_match(organiser, table, seed=5)
    play_now(match, table, good_play(match))
    for _ in range(9):  # three rounds of three
        play_now(match, table, Pass())
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert (match.result, match.end_reason) == ("table", "six_scoreless")
    game = game_of(match)
    final = [seat.score for seat in match.seats.order_by("position")]
    assert final == list(game.scores)
    ranked = sorted(range(3), key=lambda seat: -final[seat])
    assert places(match)[ranked[0]] == 1
    assert sorted(places(match)) == sorted(
        1 + sum(1 for other in final if other > score) for score in final
    )
    assert match_problems(match) == []
    assert verify_bag(match).ok


@pytest.mark.django_db(transaction=True)
def test_a_forfeit_at_a_table_ends_it_with_the_forfeiter_last(organiser, four):
    match = table_match(organiser, four, seed=3)
    play_now(match, four, good_play(match))
    match.refresh_from_db()
    stalled = match.to_move
    assert stalled is not None
    later = match.turn_deadline_at + timedelta(seconds=1)
    assert services.forfeit_stalled_matches(now=later) == [match.pk]
    match.refresh_from_db()
    assert (match.status, match.result, match.end_reason) == ("finished", "table", "forfeit")
    got = places(match)
    assert got[stalled] == 4
    scorer = Turn.objects.get(match=match, number=1).position
    assert got[scorer] == 1
    others = [seat for seat in range(4) if seat not in (stalled, scorer)]
    assert [got[seat] for seat in others] == [2, 2]  # both on 0: they share second place
    assert match_problems(match) == []


@pytest.mark.django_db(transaction=True)
def test_a_resignation_at_a_table_ends_it_with_the_resigner_last(organiser, four):
    match = table_match(organiser, four, seed=3)
    play_now(match, four, good_play(match))
    scorer = Turn.objects.get(match=match, number=1).position
    services.match_resign(match_id=match.pk, member=four[scorer], client_id="give-up")
    match.refresh_from_db()
    assert (match.result, match.end_reason) == ("table", "resigned")
    assert places(match)[scorer] == 4
    assert sorted(places(match)) == [1, 1, 1, 4]
    assert match_problems(match) == []


@pytest.mark.django_db(transaction=True)
def test_a_no_show_at_a_table_places_the_empty_seat_last(organiser, four):
    from django.db import transaction
    from django.utils import timezone

    kickoff = timezone.now() + timedelta(hours=1)
    with transaction.atomic():
        match = services.create_match(
            name="Table no-show",
            organiser=organiser,
            kickoff_at=kickoff,
            ruleset="classic",
            lexicon="enable",
            visibility_=Match.Visibility.PUBLIC,
            no_show_window=timedelta(minutes=30),
            seat_count=3,
        )
    for position, member in enumerate(four[:2]):
        services.match_take_seat(match_id=match.pk, member=member, position=position)
    assert services.default_no_shows(now=kickoff + timedelta(hours=1)) == [match.pk]
    match.refresh_from_db()
    assert (match.status, match.result, match.end_reason) == ("finished", "table", "no_show")
    assert places(match) == [1, 1, 3]


@pytest.mark.django_db(transaction=True)
def test_every_finished_duel_places_its_two_seats(live_match, alice, bob):
    services.match_resign(match_id=live_match.pk, member=alice, client_id="give-up")
    live_match.refresh_from_db()
    assert live_match.result == "second"
    assert places(live_match) == [2, 1]
    assert Seat.objects.filter(match=live_match, place__isnull=True).count() == 0


@pytest.mark.django_db(transaction=True)
def test_the_snapshot_shows_every_seat_and_only_the_viewers_rack(organiser, four):
    from matches.visibility import access_match, match_view

    match = table_match(organiser, four, seed=3)
    view = match_view(access_match(user=four[1], match_id=match.pk, key=None))
    assert (view.seat_count, len(view.seats)) == (4, 4)
    assert [seat.rack_count for seat in view.seats] == [7, 7, 7, 7]
    assert view.your_seat == 1
    assert view.rack == list(Seat.objects.get(match=match, position=1).rack)
    spectator = match_view(access_match(user=organiser, match_id=match.pk, key=None))
    assert spectator.rack is None
    mover = member_to_move(match, four)
    assert mover in four


@pytest.mark.django_db(transaction=True)
def test_an_organiser_schedules_a_classic_table_of_four_with_its_challenge_rule(organiser, four):
    from tournaments.services import fixtures

    match = fixtures.create_fixture(
        organiser=organiser,
        name="Club night",
        ruleset="classic",
        table=four,
        challenge_rule="double",
        challenge_window=timedelta(hours=6),
        finish_line=300,
    )
    match.refresh_from_db()
    assert (match.seat_count, match.challenge_rule, match.finish_line) == (4, "double", 300)
    assert match.challenge_window == timedelta(hours=6)
    assert match.status == Match.Status.LIVE  # every seat filled, no kick-off: open at once
    members = list(match.seats.order_by("position").values_list("member_id", flat=True))
    assert members == [member.pk for member in four]
    assert game_of(match).challenge_rule == "double"


@pytest.mark.django_db(transaction=True)
def test_word_duel_stays_a_duel_and_a_member_sits_once(organiser, four):
    from tournaments.services import fixtures

    with pytest.raises(services.InvalidFixture, match="does not seat 4 players"):
        fixtures.create_fixture(organiser=organiser, name="No", ruleset="word-duel", table=four)
    with pytest.raises(services.InvalidFixture, match="two seats"):
        fixtures.create_fixture(
            organiser=organiser, name="No", ruleset="classic", table=[four[0], four[1], four[0]]
        )
    assert not Match.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_fixture_form_seats_a_table(organiser, four):
    from tournaments.forms import FixtureForm
    from tournaments.services import fixtures

    form = FixtureForm(
        {
            "fixture-name": "Table night",
            "fixture-ruleset": "classic",
            "fixture-visibility": "public",
            "fixture-no_show_minutes": "15",
            "fixture-first": "ann",
            "fixture-second": "ben",
            "fixture-third": "cat",
            "fixture-seats": "3",
            "fixture-challenge_rule": "five_point",
            "fixture-challenge_window_hours": "12",
        },
        prefix="fixture",
    )
    assert form.is_valid(), form.errors
    match = fixtures.create_fixture(organiser=organiser, **form.service_kwargs())
    assert (match.seat_count, match.challenge_rule) == (3, "five_point")
    assert match.challenge_window == timedelta(hours=12)
    too_many = FixtureForm(
        {**form.data, "fixture-seats": "2"},
        prefix="fixture",
    )
    assert not too_many.is_valid()
    assert "third" in too_many.errors


@pytest.mark.django_db(transaction=True)
def test_a_nine_tile_table_is_scheduled_at_the_form_deals_nine_and_plays(organiser, four):
    """The seed's 9-tile variation: the fixture form offers ``classic-nine``; each seat is
    dealt nine tiles, a play is drawn back up to nine, and the bag check verifies it."""
    from tournaments.forms import FixtureForm

    form = FixtureForm(
        {
            "fixture-name": "Nine tiles",
            "fixture-ruleset": "classic-nine",
            "fixture-visibility": "public",
            "fixture-no_show_minutes": "15",
            "fixture-first": "ann",
            "fixture-second": "ben",
            "fixture-third": "cat",
            "fixture-seats": "3",
        },
        prefix="fixture",
    )
    assert form.is_valid(), form.errors
    match = table_match(organiser, four[:3], seed=9, ruleset="classic-nine")
    assert [len(seat.rack) for seat in match.seats.order_by("position")] == [9, 9, 9]
    play_now(match, four[:3], good_play(match))
    match.refresh_from_db()
    assert match.turn_number == 1
    assert [len(seat.rack) for seat in match.seats.order_by("position")] == [9, 9, 9]
    assert match_problems(match) == []


@pytest.mark.django_db(transaction=True)
def test_a_variant_no_match_can_play_yet_is_refused_and_nothing_is_made(organiser, four):
    """Word Skill exists in the engine only: scheduling it is refused, not made into a match
    nobody could play. Reword is scheduled (a duel with swaps and steals), but never with a
    challenge rule: it checks every word as it is played."""
    from tournaments.services import fixtures

    with pytest.raises(services.InvalidFixture) as refusal:
        fixtures.create_fixture(
            organiser=organiser,
            name="Not yet",
            first=four[0],
            second=four[1],
            ruleset="word-skill",
            kickoff_at=None,
        )
    assert str(refusal.value) == (
        "The word-skill variant is not played in turns: a Word Skill tournament plays it in rounds."
    )
    with pytest.raises(services.InvalidFixture) as refusal:
        fixtures.create_fixture(
            organiser=organiser,
            name="Not yet",
            first=four[0],
            second=four[1],
            ruleset="reword",
            kickoff_at=None,
            challenge_rule="double",
        )
    assert str(refusal.value) == (
        "The reword ruleset checks every word as it is played: no challenges."
    )
    assert not Match.objects.filter(name="Not yet").exists()


@pytest.mark.django_db(transaction=True)
def test_reword_is_scheduled_as_a_duel_that_deals_seven_tiles(organiser, four):
    from tournaments.services import fixtures

    match = fixtures.create_fixture(
        organiser=organiser,
        name="Reword night",
        first=four[0],
        second=four[1],
        ruleset="reword",
        kickoff_at=None,
    )
    match.refresh_from_db()
    assert (match.ruleset, match.status, match.challenge_rule) == ("reword", "live", "void")
    assert [len(seat.rack) for seat in match.seats.order_by("position")] == [7, 7]
    assert "reword" in fixtures.SCHEDULED_VARIANTS
