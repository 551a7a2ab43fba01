"""The league's pages: the form on /organise/ creates one; its page shows the season's
divisions, each table with its promotion and relegation zones marked and a link to the
division's tournament page (which links back); organisers start the next season there
(POST, CSRF; a refusal shown with its status) and withdraw a member; the earlier seasons
are listed; nobody else may act, and a members-only league is no visitor's to see."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Member
from tests.tournaments.pages import client_for, local_minute
from tournaments import services
from tournaments.models import League, LeagueLeaver

pytestmark = pytest.mark.django_db


def _form(players: str, **changes) -> dict[str, str]:
    data = {
        "league-name": "Club League",
        "league-players": players,
        "league-division_size": "4",
        "league-movers": "1",
        "league-first_kickoff": local_minute(timezone.now() + timedelta(minutes=1)),
        "league-interval_hours": "72",
        "league-meetings": "twice",
        "league-ruleset": "word-duel",
        "league-visibility": "public",
        "league-rated": "on",
    }
    data.update(changes)
    return data


def _zones(page: str, division: int) -> dict[str, str]:
    """Each player's zone in a division's table, as the page marks it."""
    table = page.split(f'data-division="{division}"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r'<tr data-member="([^"]+)"(?: class="[^"]+" data-zone="([^"]+)")?', table)
    return dict(rows)


def _play_out(organiser, league: League, winner_first: list[Member]) -> None:
    """Every game of the current season ruled for the player earlier in the list, a
    minute after its kick-off (the form sets kick-offs ahead; the ruling opens it first)."""
    place = {member.pk: index for index, member in enumerate(winner_first)}
    for division in league.seasons.get().divisions.all():
        for match in division.tournament.matches.prefetch_related("seats"):
            first, second = sorted(match.seats.all(), key=lambda seat: seat.position)
            ruling = "first" if place[first.member_id] < place[second.member_id] else "second"
            services.match_adjudicate(
                organiser=organiser,
                match_id=match.id,
                ruling=ruling,
                reason="Decided.",
                now=match.kickoff_at + timedelta(minutes=1),
            )


def test_an_organiser_runs_a_league_from_its_pages(organiser, make_member) -> None:
    names = ["ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal"]
    members = [make_member(name) for name in names]
    client = client_for(organiser)
    assert 'id="league-form"' in client.get("/organise/").content.decode()
    answer = client.post("/organise/league/", _form("\n".join(names)))
    assert answer.status_code == 302
    league = League.objects.get(name="Club League")
    assert (league.division_size, league.movers, league.double) == (4, 1, True)
    assert answer.url == f"/leagues/{league.id}/"

    page = client.get(answer.url).content.decode()
    assert "Created Club League: season 1 in 2 divisions." in page
    # Before a game, the tables are in member order: the zones mark the edges.
    assert _zones(page, 1) == {"ann": "", "ben": "", "cat": "", "dan": "relegation"}
    assert _zones(page, 2) == {"eve": "promotion", "fay": "", "gus": "", "hal": ""}
    assert "↑ Promotion" in page
    assert "↓ Relegation" in page
    assert "This is the league's first season." in page
    top = league.seasons.get().divisions.get(rank=1).tournament
    assert f'href="/tournaments/{top.id}/"' in page
    division_page = client.get(f"/tournaments/{top.id}/").content.decode()
    assert f'Division 1 of <a href="/leagues/{league.id}/">Club League</a>, season 1.' in (
        division_page
    )

    # Played out: in each division the later name wins, so dan tops division 1 and ann
    # is relegated; hal tops division 2 and is promoted.
    _play_out(organiser, league, members[::-1])
    page = client.get(answer.url).content.decode()
    assert _zones(page, 1) == {"dan": "", "cat": "", "ben": "", "ann": "relegation"}
    assert _zones(page, 2) == {"hal": "promotion", "gus": "", "fay": "", "eve": ""}

    # ben is withdrawn after this season; the page says so.
    answer = client.post(
        f"/organise/leagues/{league.id}/withdraw/",
        {"withdraw-member": "ben", "withdraw-reason": "Moving away."},
    )
    assert answer.status_code == 302
    assert LeagueLeaver.objects.get().member.username == "ben"
    assert "Leaving after this season" in client.get(answer.url).content.decode()

    ivy = make_member("ivy")
    answer = client.post(
        f"/organise/leagues/{league.id}/next-season/",
        {
            "next-first_kickoff": local_minute(timezone.now() + timedelta(days=1)),
            "next-entrants": "ivy",
        },
    )
    assert answer.status_code == 302
    page = client.get(answer.url).content.decode()
    assert "Started season 2." in page
    assert 'data-season="2"' in page
    # Division 1: dan, cat stay; hal up; ben left, so ann is reprieved. Division 2: the
    # rest, and ivy at the foot.
    assert set(_zones(page, 1)) == {"dan", "cat", "hal", "ann"}
    assert set(_zones(page, 2)) == {"gus", "fay", "eve", ivy.username}
    previous = page.split('id="previous-seasons"', 1)[1]
    assert "<h3>Season 1</h3>" in previous
    assert "Division 1</a> · down: ann</li>" in previous
    assert "Division 2</a> · up: hal</li>" in previous


def test_starting_a_season_with_games_unfinished_is_refused_on_the_page(organiser, alice, bob):
    league = services.create_league(
        organiser=organiser,
        name="Pairs League",
        players=[alice, bob],
        division_size=2,
        movers=1,
        start=timezone.now() + timedelta(days=1),
        interval=timedelta(days=3),
    )
    url = f"/organise/leagues/{league.id}/next-season/"
    form = {"next-first_kickoff": local_minute(timezone.now() + timedelta(days=9))}
    answer = client_for(organiser).post(url, form)
    assert answer.status_code == 409
    assert "Some fixtures of this season are not finished." in answer.content.decode()
    assert league.seasons.count() == 1
    answer = client_for(organiser).post(url, {**form, "next-force": "on"})
    assert answer.status_code == 302
    assert league.seasons.count() == 2


def test_only_organisers_act_and_only_by_post_with_csrf(organiser, alice, bob) -> None:
    league = services.create_league(
        organiser=organiser,
        name="Members' League",
        players=[alice, bob],
        division_size=2,
        movers=1,
        start=timezone.now() + timedelta(days=1),
        interval=timedelta(days=3),
        visibility_="members",
    )
    url = f"/organise/leagues/{league.id}/next-season/"
    form = {
        "next-first_kickoff": local_minute(timezone.now() + timedelta(days=9)),
        "next-force": "on",
    }
    assert "Start season 2" not in client_for(alice).get(f"/leagues/{league.id}/").content.decode()
    for outsider in (alice, None):
        assert client_for(outsider).post(url, form).status_code == 403
    assert client_for(organiser).get(url).status_code == 405
    assert client_for(organiser, enforce_csrf_checks=True).post(url, form).status_code == 403
    assert league.seasons.count() == 1
    # Members-only fixtures: a visitor does not see the league.
    assert client_for(None).get(f"/leagues/{league.id}/").status_code == 404


def test_a_bad_league_form_is_shown_again_with_its_errors(organiser, make_member) -> None:
    make_member("ann")
    answer = client_for(organiser).post("/organise/league/", _form("ann, nobody"))
    assert answer.status_code == 400
    assert "There is no member called &#x27;nobody&#x27;." in answer.content.decode()
    make_member("ben")
    answer = client_for(organiser).post(
        "/organise/league/",
        _form("ann, ben", **{"league-division_size": "5", "league-movers": "3"}),
    )
    assert answer.status_code == 400
    assert "so the two zones of a division never overlap" in answer.content.decode()
    assert not League.objects.exists()
