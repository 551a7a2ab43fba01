"""A whole two-division league season played through the services: created, every game
ended by the organiser's ruling (``match_adjudicate``), the season closed and the next
built (promotion, relegation, a member withdrawn, an entrant at the foot); and the
refusals: a season with unfinished fixtures (unless forced), a season closed twice, no
such league, bad rules, a non-organiser, a withdrawal of someone not playing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from common.errors import NotAllowed
from matches.models import Match, Tournament
from matches.services.errors import InvalidFixture
from tournaments import services
from tournaments.models import Division, League, LeagueLeaver, LeagueSeason
from tournaments.standings import standings

pytestmark = pytest.mark.django_db


def _league(organiser, players, **settings) -> League:
    options = {
        "name": "County League",
        "players": players,
        "division_size": 4,
        "movers": 1,
        "start": timezone.now() - timedelta(minutes=1),
        "interval": timedelta(0),
        **settings,
    }
    return services.create_league(organiser=organiser, **options)


def _play_out(organiser, tournament: Tournament, order: list[int]) -> None:
    """The organiser rules every game of the division: the player earlier in ``order``
    wins, so the table comes out in that order."""
    place = {pk: index for index, pk in enumerate(order)}
    for match in tournament.matches.order_by("id").prefetch_related("seats"):
        first, second = sorted(match.seats.all(), key=lambda seat: seat.position)
        ruling = "first" if place[first.member_id] < place[second.member_id] else "second"
        services.match_adjudicate(
            organiser=organiser, match_id=match.id, ruling=ruling, reason="Played at the club."
        )


def _divisions(season: LeagueSeason) -> list[set[int]]:
    return [
        set(division.tournament.players.values_list("pk", flat=True))
        for division in season.divisions.order_by("rank")
    ]


def test_a_two_division_season_played_and_the_next_built(organiser, make_member) -> None:
    players = [make_member(f"p{i}") for i in range(8)]
    ids = [player.pk for player in players]
    league = _league(organiser, players)
    season = league.seasons.get()
    assert season.number == 1
    top, bottom = season.divisions.order_by("rank")
    assert _divisions(season) == [set(ids[:4]), set(ids[4:])]
    for division in (top, bottom):
        assert division.tournament.matches.count() == 6  # four players, each pair once
        assert division.tournament.rated

    # Unfinished fixtures: neither close nor the next season, unless forced.
    with pytest.raises(services.LeagueSeasonUnfinished) as refused:
        services.close_season(organiser=organiser, league_id=league.id)
    assert refused.value.code == "league_season_unfinished"
    with pytest.raises(services.LeagueSeasonUnfinished):
        services.start_next_season(organiser=organiser, league_id=league.id, start=timezone.now())
    assert LeagueSeason.objects.filter(league=league).count() == 1

    # Division 1 finishes p3 p1 p0 p2; division 2 p6 p4 p7 p5.
    top_order = [ids[3], ids[1], ids[0], ids[2]]
    bottom_order = [ids[6], ids[4], ids[7], ids[5]]
    _play_out(organiser, top.tournament, top_order)
    _play_out(organiser, bottom.tournament, bottom_order)
    assert [line.member_id for line in standings(top.tournament)] == top_order

    # p0 is withdrawn after this season; a newcomer enters.
    services.withdraw_from_league(
        organiser=organiser, league_id=league.id, member_id=ids[0], reason="Moving away."
    )
    newcomer = make_member("newcomer")
    season_2 = services.start_next_season(
        organiser=organiser,
        league_id=league.id,
        start=timezone.now() + timedelta(days=7),
        entrants=[newcomer],
    )
    season.refresh_from_db()
    assert season.closed_at is not None
    assert not season.forced
    top.refresh_from_db()
    assert top.final_standings == top_order

    # Up: p6 (top of division 2). Down: p2 (bottom of division 1). p0 left, so division 1's
    # place goes to the next down the ladder, p2 itself (reprieved); division 2 is then
    # p4 p7 p5 and the newcomer.
    assert season_2.number == 2
    rows = list(Division.objects.filter(season=season_2).order_by("rank"))
    assert _divisions(season_2) == [
        {ids[3], ids[1], ids[6], ids[2]},
        {ids[4], ids[7], ids[5], newcomer.pk},
    ]
    for row in rows:
        assert row.tournament.name == f"County League · Season 2 · Division {row.rank}"
        assert row.tournament.matches.filter(status=Match.Status.SCHEDULED).count() == 6

    # Season 2 closed at once by force (nothing has been played): the standings as they
    # are are final, and season 3 follows the rule with no leaver: the top of division 2
    # (the earliest member, by the tables' last resort) goes up, the bottom of division 1
    # down.
    season_3 = services.start_next_season(
        organiser=organiser, league_id=league.id, start=timezone.now(), force=True
    )
    season_2.refresh_from_db()
    assert season_2.forced
    final_top, final_bottom = (row.final_standings for row in season_2.divisions.order_by("rank"))
    assert _divisions(season_3) == [
        {*final_top[:-1], final_bottom[0]},
        {*final_bottom[1:], final_top[-1]},
    ]


def test_first_season_by_rating_and_a_bottom_division_of_the_rest(organiser, make_member):
    players = [make_member(f"r{i}") for i in range(6)]
    league = _league(organiser, players, division_size=4, movers=2, seed_by_rating=True)
    divisions = _divisions(league.seasons.get())
    assert [len(division) for division in divisions] == [4, 2]
    assert set().union(*divisions) == {player.pk for player in players}


def test_refusals_change_nothing(organiser, make_member, alice, bob) -> None:
    with pytest.raises(NotAllowed):
        _league(alice, [alice, bob])
    for bad in ({"division_size": 1}, {"division_size": 25}, {"movers": 0}, {"movers": 3}):
        with pytest.raises(InvalidFixture):
            _league(organiser, [alice, bob], **bad)
    with pytest.raises(InvalidFixture):
        _league(organiser, [alice])
    with pytest.raises(InvalidFixture):
        _league(organiser, [alice, bob, alice])
    assert not League.objects.exists()
    assert not Tournament.objects.exists()

    with pytest.raises(services.NotALeague) as missing:
        services.close_season(organiser=organiser, league_id=987654)
    assert missing.value.status == 404

    carol = make_member("carol")
    league = _league(organiser, [alice, bob])
    with pytest.raises(NotAllowed):
        services.close_season(organiser=alice, league_id=league.id)
    with pytest.raises(services.NotInLeague):
        services.withdraw_from_league(
            organiser=organiser, league_id=league.id, member_id=carol.pk, reason="Why not."
        )
    services.withdraw_from_league(
        organiser=organiser, league_id=league.id, member_id=bob.pk, reason="Moving away."
    )
    with pytest.raises(services.NotInLeague):
        services.withdraw_from_league(
            organiser=organiser, league_id=league.id, member_id=bob.pk, reason="Again."
        )
    with pytest.raises(InvalidFixture):
        services.withdraw_from_league(
            organiser=organiser, league_id=league.id, member_id=alice.pk, reason=" "
        )
    assert LeagueLeaver.objects.filter(member=bob).count() == 1

    services.close_season(organiser=organiser, league_id=league.id, force=True)
    with pytest.raises(services.LeagueSeasonClosed):
        services.close_season(organiser=organiser, league_id=league.id, force=True)
    with pytest.raises(InvalidFixture) as again:
        services.start_next_season(
            organiser=organiser, league_id=league.id, start=timezone.now(), entrants=[alice]
        )
    assert "already play in this league" in again.value.message
    # bob leaves: alice alone is too few for a season.
    with pytest.raises(InvalidFixture):
        services.start_next_season(organiser=organiser, league_id=league.id, start=timezone.now())
    assert league.seasons.count() == 1
    season = services.start_next_season(
        organiser=organiser, league_id=league.id, start=timezone.now(), entrants=[carol]
    )
    assert _divisions(season) == [{alice.pk, carol.pk}]


def test_a_member_no_longer_in_the_club_leaves_the_league(organiser, make_member) -> None:
    players = [make_member(f"s{i}") for i in range(3)]
    league = _league(organiser, players)
    type(players[1]).objects.filter(pk=players[1].pk).update(membership="removed")
    season = services.start_next_season(
        organiser=organiser, league_id=league.id, start=timezone.now(), force=True
    )
    assert _divisions(season) == [{players[0].pk, players[2].pk}]
