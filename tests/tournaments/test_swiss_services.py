"""A whole Swiss played through the services: created, each round paired by
``pair_next_round``, every game ended by the organiser's ruling (``match_adjudicate``), the
byes counted in the standings; and the refusals: an unfinished round (unless forced), every
round paired, no such Swiss, bad settings, a non-organiser."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from itertools import combinations

import pytest
from django.utils import timezone

from common.errors import NotAllowed
from matches.models import Match
from matches.services.errors import InvalidFixture
from tournaments import services
from tournaments.models import SwissBye, SwissRound
from tournaments.standings import standings

pytestmark = pytest.mark.django_db


def _swiss(organiser, players, *, rounds=4, **settings):
    return services.create_swiss(
        organiser=organiser,
        name="Autumn Swiss",
        players=players,
        rounds=rounds,
        first_kickoff=timezone.now() - timedelta(minutes=1),
        interval=timedelta(0),
        **settings,
    )


def _finish_round(organiser, tournament, number: int) -> None:
    """The organiser rules every game of round ``number``: the higher seat number (Second)
    wins on odd boards, First on even ones."""
    fixtures = tournament.matches.filter(round_number=number).order_by("id")
    for board, match in enumerate(fixtures, start=1):
        services.match_adjudicate(
            organiser=organiser,
            match_id=match.id,
            ruling="second" if board % 2 else "first",
            reason="Played over the board at the club night.",
        )


def _pairs(tournament) -> list[frozenset[int]]:
    found = []
    for match in tournament.matches.order_by("id").prefetch_related("seats"):
        found.append(frozenset(seat.member_id for seat in match.seats.all()))
    return found


def test_a_whole_swiss_of_five_played_through_the_services(organiser, make_member) -> None:
    players = [make_member(f"p{i}") for i in range(1, 6)]
    tournament = _swiss(organiser, players, rounds=4)
    for number in range(1, 5):
        paired = services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
        assert paired.number == number
        assert len(paired.matches) == 2
        assert paired.bye is not None
        for match in paired.matches:
            match.refresh_from_db()
            assert match.status == Match.Status.LIVE  # kick-off came: opened at once
            assert match.round_number == number
        if number < 4:
            with pytest.raises(services.SwissRoundUnfinished) as refused:
                services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
            assert refused.value.code == "swiss_round_unfinished"
        _finish_round(organiser, tournament, number)

    with pytest.raises(services.SwissComplete):
        services.pair_next_round(organiser=organiser, tournament_id=tournament.id)

    # Five players, four rounds: ten games could all be new, and none repeats.
    pairs = _pairs(tournament)
    assert len(pairs) == 8
    assert len(set(pairs)) == 8
    assert set(pairs) <= {frozenset(c) for c in combinations([p.pk for p in players], 2)}
    # Four byes, to four different players, each a win with +50 (the club's usual).
    byes = list(SwissBye.objects.filter(swiss__tournament=tournament))
    assert len({bye.member_id for bye in byes}) == 4
    assert {(bye.points, bye.spread) for bye in byes} == {(Decimal(1), 50)}
    table = {line.member_id: line for line in standings(tournament)}
    assert sum(line.points for line in table.values()) == 8 + 4  # a point a game, a bye
    for bye in byes:
        assert table[bye.member_id].byes == 1
        assert table[bye.member_id].spread == 50  # adjudicated games add no spread
    assert all(line.played == 4 for line in table.values())
    assert SwissRound.objects.filter(swiss__tournament=tournament).count() == 4


def test_a_forced_round_leaves_the_unfinished_games_to_play_on(organiser, make_member) -> None:
    players = [make_member(f"q{i}") for i in range(1, 5)]
    tournament = _swiss(organiser, players, rounds=3)
    first = services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
    services.match_adjudicate(
        organiser=organiser, match_id=first.matches[0].id, ruling="first", reason="Decided."
    )
    second = services.pair_next_round(organiser=organiser, tournament_id=tournament.id, force=True)
    assert second.unfinished == 1
    assert SwissRound.objects.get(swiss__tournament=tournament, number=2).forced
    first.matches[1].refresh_from_db()
    assert first.matches[1].status == Match.Status.LIVE  # played on, not ended
    round_one = {frozenset(p) for p in _pairs(tournament)[:2]}
    round_two = {
        frozenset(seat.member_id for seat in match.seats.all()) for match in second.matches
    }
    assert not round_one & round_two  # the unfinished pair counts as having met


def test_a_bye_scores_as_the_tournament_says(organiser, make_member) -> None:
    players = [make_member(f"r{i}") for i in range(1, 4)]
    tournament = _swiss(organiser, players, rounds=1, bye_points=Decimal("0.5"), bye_spread=0)
    paired = services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
    line = next(line for line in standings(tournament) if line.member_id == paired.bye)
    assert (line.points, line.drawn, line.spread, line.byes) == (0.5, 1, 0, 1)


def test_refusals_change_nothing(organiser, make_member, alice, bob) -> None:
    with pytest.raises(NotAllowed):
        _swiss(alice, [alice, bob])
    for bad in (
        {"rounds": 0},
        {"rounds": 51},
        {"bye_points": Decimal("2")},
        {"bye_spread": 501},
        {"prize_places": 0},
    ):
        with pytest.raises(InvalidFixture):
            _swiss(organiser, [alice, bob], **bad)
    with pytest.raises(InvalidFixture):
        _swiss(organiser, [alice])
    with pytest.raises(services.NotASwiss) as missing:
        services.pair_next_round(organiser=organiser, tournament_id=987654)
    assert missing.value.status == 404
    tournament = _swiss(organiser, [alice, bob], rounds=1)
    with pytest.raises(NotAllowed):
        services.pair_next_round(organiser=alice, tournament_id=tournament.id)
    assert not tournament.matches.exists()


def test_a_leader_who_cannot_be_caught_is_gibsonized_and_the_page_says_so(
    organiser, alice, bob, client
) -> None:
    """Two players, three rounds: alice wins the first two; with one round left bob can
    reach only 1 point, so alice is Gibsonized in round 3 (and, bob being the only one left,
    meets him: the lowest-ranked)."""
    tournament = _swiss(organiser, [alice, bob], rounds=3)
    for number in (1, 2):
        paired = services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
        assert (paired.number, paired.gibson) == (number, None)
        (match,) = paired.matches
        winner = "first" if match.seats.get(position=0).member_id == alice.pk else "second"
        services.match_adjudicate(
            organiser=organiser, match_id=match.id, ruling=winner, reason="Decided."
        )
    third = services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
    assert third.gibson == alice.pk
    assert SwissRound.objects.get(swiss__tournament=tournament, number=3).gibson == alice
    client.force_login(organiser)
    row = client.get(f"/tournaments/{tournament.id}/").content.decode()
    assert (
        '<tr data-round="3"><th scope="row">Round 3</th><td class="bye">—</td><td>alice</td>' in row
    )


def test_a_player_no_longer_a_member_is_not_paired(organiser, make_member) -> None:
    """Removed from the club between rounds: their results stand, they are paired no more
    (so the three left are paired with a bye), and two removed of three leave too few."""
    players = [make_member(f"s{i}") for i in range(1, 5)]
    tournament = _swiss(organiser, players, rounds=3)
    services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
    _finish_round(organiser, tournament, 1)
    gone = players[0]
    type(gone).objects.filter(pk=gone.pk).update(membership="removed")
    second = services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
    seated = {seat.member_id for match in second.matches for seat in match.seats.all()}
    assert gone.pk not in seated
    assert second.bye is not None
    assert len(seated) == 2
    assert gone.pk in {line.member_id for line in standings(tournament)}  # results stand
    _finish_round(organiser, tournament, 2)
    type(gone).objects.filter(pk__in=[players[1].pk, players[2].pk]).update(membership="removed")
    with pytest.raises(services.SwissTooSmall):
        services.pair_next_round(organiser=organiser, tournament_id=tournament.id)


def test_an_automatic_swiss_pairs_each_round_when_the_one_before_is_complete(
    organiser, make_member, client, django_capture_on_commit_callbacks
) -> None:
    players = [make_member(f"auto{i}") for i in range(1, 6)]
    with django_capture_on_commit_callbacks(execute=True):
        tournament = _swiss(organiser, players, rounds=3, pair_automatically=True)
    # Round 1 is paired at creation, by nobody.
    assert list(
        SwissRound.objects.filter(swiss__tournament=tournament).values_list("number", "paired_by")
    ) == [(1, None)]
    assert tournament.matches.filter(round_number=1).count() == 2
    assert services.pair_completed_round(tournament_id=tournament.id) is None  # round 1 unfinished

    first, second = tournament.matches.filter(round_number=1).order_by("id")
    with django_capture_on_commit_callbacks(execute=True):
        services.match_adjudicate(
            organiser=organiser, match_id=first.id, ruling="first", reason="Decided."
        )
    assert not tournament.matches.filter(round_number=2).exists()  # one game still to finish
    with django_capture_on_commit_callbacks(execute=True):
        services.match_adjudicate(
            organiser=organiser, match_id=second.id, ruling="second", reason="Decided."
        )
    # The round's last game paired round 2, with a new bye, and doing it again does nothing.
    assert tournament.matches.filter(round_number=2).count() == 2
    assert services.pair_completed_round(tournament_id=tournament.id) is None
    assert SwissRound.objects.filter(swiss__tournament=tournament).count() == 2
    assert (
        SwissBye.objects.filter(swiss__tournament=tournament).values("member").distinct().count()
        == 2
    )

    client.force_login(organiser)
    table = client.get(f"/api/tournaments/{tournament.id}/standings").json()["standings"]
    byes = set(
        SwissBye.objects.filter(swiss__tournament=tournament).values_list("member_id", flat=True)
    )
    assert {row["member_id"]: row["byes"] for row in table} == {
        player.pk: int(player.pk in byes) for player in players
    }
    page = client.get(f"/tournaments/{tournament.id}/").content.decode()
    assert "Automatically, when the Swiss was created" in page
    assert "Automatically, when round 1 was complete" in page

    # The organiser may still pair the last round early, by hand.
    third = services.pair_next_round(organiser=organiser, tournament_id=tournament.id, force=True)
    assert third.number == 3
    assert SwissRound.objects.get(swiss__tournament=tournament, number=3).paired_by == organiser
    with django_capture_on_commit_callbacks(execute=True):
        _finish_round(organiser, tournament, 2)
        _finish_round(organiser, tournament, 3)
    assert (
        SwissRound.objects.filter(swiss__tournament=tournament).count() == 3
    )  # none past the last


def test_a_swiss_paired_by_hand_is_never_paired_automatically(
    organiser, make_member, django_capture_on_commit_callbacks
) -> None:
    players = [make_member(f"hand{i}") for i in range(1, 5)]
    tournament = _swiss(organiser, players, rounds=2)
    assert not tournament.matches.exists()
    services.pair_next_round(organiser=organiser, tournament_id=tournament.id)
    with django_capture_on_commit_callbacks(execute=True):
        _finish_round(organiser, tournament, 1)
    assert services.pair_completed_round(tournament_id=tournament.id) is None
    assert SwissRound.objects.filter(swiss__tournament=tournament).count() == 1
