"""Word Skill's Elo after one-to-one games against Gramma Ana: the seed's numbers (start
1,200; a win +16, a loss −16, a tie nothing; clamped 800-2,000), stored apart from Glicko-2."""

from __future__ import annotations

import pytest
from django.db import transaction

from common.events import RoundsMatchEnded, emit
from engine import Pass
from ratings.elo_ratings import elo_rating_of
from ratings.models import EloChange, EloRating, Rating, RatingChange
from rounds import services
from rounds.models import RoundsMatch
from tests.rounds.helpers import TURN, open_match

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_whole_game_lost_to_gramma_ana_costs_16_and_her_cap_follows(make_member) -> None:
    alice = make_member("alice")
    assert elo_rating_of(alice.pk) == 1200
    match = services.rounds_play_gramma_ana(member=alice, turn_time=TURN)
    rounds = 0
    while match.status == RoundsMatch.Status.LIVE:
        rounds += 1
        number = match.round_number
        services.rounds_start_round(match_id=match.pk, member=alice, round_number=number)
        services.rounds_submit(match_id=match.pk, member=alice, round_number=number, move=Pass())
        match.refresh_from_db()
        assert rounds < 200
    ana = match.players.get(member__isnull=True)
    me = match.players.get(member=alice)
    assert ana.total > 0 == me.total
    assert (ana.place, me.place) == (1, 2)
    assert elo_rating_of(alice.pk) == 1184
    change = EloChange.objects.get(rounds_match=match, member=alice)
    assert (change.outcome, change.rating_before, change.rating_after) == ("loss", 1200, 1184)
    assert not Rating.objects.exists()
    assert not RatingChange.objects.exists()
    # Her next game against alice follows alice's new rating: 1184 → cap 49.
    again = services.rounds_play_gramma_ana(member=alice, turn_time=TURN)
    assert again.gramma_rating == 1184
    state = again.game_state
    assert state is not None


def _ended(match: RoundsMatch, member_id: int, place: int, gramma_place: int) -> None:
    with transaction.atomic():
        emit(
            RoundsMatchEnded(
                rounds_match_id=match.pk,
                rated=True,
                places=((member_id, place),),
                gramma_place=gramma_place,
            )
        )


def test_a_win_is_16_a_tie_nothing_and_the_ceiling_holds(make_member) -> None:
    bob = make_member("bob")
    games = [open_match(bob, gramma_ana=True, start=False) for _ in range(3)]
    _ended(games[0], bob.pk, 1, 2)
    assert elo_rating_of(bob.pk) == 1216
    _ended(games[1], bob.pk, 1, 1)  # level totals: a tie
    assert elo_rating_of(bob.pk) == 1216
    _ended(games[1], bob.pk, 1, 2)  # a game is rated once
    assert elo_rating_of(bob.pk) == 1216
    EloRating.objects.filter(member=bob).update(rating=1995)
    _ended(games[2], bob.pk, 1, 2)
    assert elo_rating_of(bob.pk) == 2000
    assert [c.change for c in EloChange.objects.filter(member=bob)] == [16, 0, 5]


def test_an_unrated_game_moves_nothing(make_member) -> None:
    carol = make_member("carol")
    match = open_match(carol, gramma_ana=True, start=False)
    with transaction.atomic():
        emit(
            RoundsMatchEnded(
                rounds_match_id=match.pk, rated=False, places=((carol.pk, 1),), gramma_place=2
            )
        )
    assert elo_rating_of(carol.pk) == 1200
    assert not EloChange.objects.exists()


def test_the_player_page_shows_the_word_skill_elo_to_members(make_member, client) -> None:
    alice, viewer = make_member("alice"), make_member("viewer")
    match = services.rounds_play_gramma_ana(member=alice, turn_time=TURN)
    with transaction.atomic():
        emit(
            RoundsMatchEnded(
                rounds_match_id=match.pk, rated=True, places=((alice.pk, 1),), gramma_place=2
            )
        )
    client.force_login(viewer)
    page = client.get(f"/players/{alice.username}/").content.decode()
    assert 'Word Skill (Elo, against Gramma Ana): <span class="rating-now">1216</span>' in page
    assert "after 1 rated game against Gramma Ana" in page
    assert match.name in page
    client.logout()
    assert "1216" not in client.get(f"/players/{alice.username}/").content.decode()
