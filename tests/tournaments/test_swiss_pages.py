"""The Swiss's pages: the form on /organise/ creates one; its tournament page shows the
rounds' byes and Gibsons and, to organisers, a "Pair round N" button (POST, CSRF) that calls
``pair_next_round``; a refusal is shown on the page with its status; nobody else may pair."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Tournament
from tests.tournaments.pages import client_for, local_minute
from tournaments import services
from tournaments.models import Swiss, SwissBye

pytestmark = pytest.mark.django_db


def _form(players: str, **changes) -> dict[str, str]:
    data = {
        "swiss-name": "Club Swiss",
        "swiss-players": players,
        "swiss-rounds": "3",
        "swiss-first_kickoff": local_minute(timezone.now() + timedelta(minutes=1)),
        "swiss-interval_hours": "72",
        "swiss-ruleset": "word-duel",
        "swiss-visibility": "public",
        "swiss-rated": "on",
        "swiss-bye_points": "1",
        "swiss-bye_spread": "50",
        "swiss-prize_places": "3",
        "swiss-gibsonization": "on",
    }
    data.update(changes)
    return data


def test_an_organiser_creates_a_swiss_and_pairs_its_first_round(organiser, make_member):
    for name in ("ann", "ben", "cat"):
        make_member(name)
    client = client_for(organiser)
    assert 'id="swiss-form"' in client.get("/organise/").content.decode()
    answer = client.post("/organise/swiss/", _form("ann, ben\ncat"))
    assert answer.status_code == 302
    tournament = Tournament.objects.get(name="Club Swiss")
    swiss = Swiss.objects.get(tournament=tournament)
    assert (swiss.rounds, swiss.bye_spread, swiss.prize_places) == (3, 50, 3)
    assert tournament.rated
    page = client.get(answer.url).content.decode()
    assert "Pair round 1" in page
    assert "0 of 3 rounds paired" in page

    answer = client.post(f"/organise/tournaments/{tournament.id}/pair/")
    assert answer.status_code == 302
    bye = SwissBye.objects.get(swiss=swiss)
    page = client.get(answer.url).content.decode()
    assert "Paired round 1: 1 fixture." in page
    assert "1 of 3 rounds paired" in page
    assert f'{bye.member} <span class="muted">(a win, +50)</span>' in page
    assert tournament.matches.count() == 1

    # Round 1 is unfinished (it kicks off in a minute): refused on the page, nothing paired.
    answer = client.post(f"/organise/tournaments/{tournament.id}/pair/")
    assert answer.status_code == 409
    assert "Some games of the earlier rounds are not finished." in answer.content.decode()
    assert tournament.matches.count() == 1
    # Forced: round 2 is paired, round 1's game played on.
    answer = client.post(f"/organise/tournaments/{tournament.id}/pair/", {"force": "on"})
    assert answer.status_code == 302
    assert tournament.matches.filter(round_number=2).count() == 1
    page = client.get(answer.url).content.decode()
    assert "Before round 1 was complete (1 game played on)" in page


def test_a_bad_swiss_form_is_shown_again_with_its_errors(organiser, make_member):
    make_member("ann")
    answer = client_for(organiser).post("/organise/swiss/", _form("ann, nobody"))
    assert answer.status_code == 400
    assert "There is no member called &#x27;nobody&#x27;." in answer.content.decode()
    assert not Swiss.objects.exists()


def test_only_organisers_pair_and_only_by_post_with_csrf(organiser, alice, bob):
    tournament = services.create_swiss(
        organiser=organiser,
        name="Members' Swiss",
        players=[alice, bob],
        rounds=2,
        first_kickoff=timezone.now() + timedelta(days=1),
        interval=timedelta(days=3),
    )
    url = f"/organise/tournaments/{tournament.id}/pair/"
    assert (
        "Pair round 1"
        not in client_for(alice).get(f"/tournaments/{tournament.id}/").content.decode()
    )
    for outsider in (alice, None):
        assert client_for(outsider).post(url).status_code == 403
    assert client_for(organiser).get(url).status_code == 405
    assert client_for(organiser, enforce_csrf_checks=True).post(url).status_code == 403
    assert not tournament.matches.exists()


def test_pairing_a_round_robin_is_refused_on_its_page(organiser, alice, bob):
    tournament = services.create_round_robin(
        organiser=organiser,
        name="Round robin",
        players=[alice, bob],
        first_kickoff=timezone.now() + timedelta(days=1),
        interval=timedelta(days=1),
    )
    answer = client_for(organiser).post(f"/organise/tournaments/{tournament.id}/pair/")
    assert answer.status_code == 404
    assert "There is no such Swiss tournament." in answer.content.decode()
