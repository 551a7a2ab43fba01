"""The knockout's pages: the form on /organise/ creates one; its tournament page draws the
bracket in plain HTML (a column per round, each tie with seeds, names, game scores and
the winner, no JavaScript needed); the lists and the page name the format; organisers have
an "advance now" button (POST, CSRF), nobody else."""

from __future__ import annotations

import itertools
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from matches.models import Match, Tournament
from matches.services.resignation import match_resign
from tests.tournaments.pages import client_for, local_minute
from tournaments import services
from tournaments.models import Knockout, KnockoutTie

pytestmark = pytest.mark.django_db

_client_ids = itertools.count(1)


def _form(players: str, **changes) -> dict[str, str]:
    data = {
        "ko-name": "Club Cup",
        "ko-players": players,
        "ko-seeding": "order",
        "ko-best_of": "3",
        "ko-first_kickoff": local_minute(timezone.now() + timedelta(minutes=1)),
        "ko-interval_hours": "72",
        "ko-ruleset": "word-duel",
        "ko-visibility": "public",
        "ko-rated": "on",
    }
    data.update(changes)
    return data


def _ties(page: str, round_number: int) -> list[str]:
    """The text of each tie drawn in round ``round_number``'s column, tags removed."""
    column = page.split(f'data-round="{round_number}"', 1)[1].split("</section>", 1)[0]
    ties = [tie.split(">", 1)[1] for tie in column.split('<li class="bracket-tie')[1:]]
    return [" ".join(re.sub(r"<[^>]+>", " ", tie.split("</li>\n", 1)[0]).split()) for tie in ties]


def test_an_organiser_creates_a_knockout_and_its_bracket_is_drawn(organiser, make_member):
    for name in ("ann", "ben", "cat", "dan", "eve"):
        make_member(name)
    client = client_for(organiser)
    assert 'id="knockout-form"' in client.get("/organise/").content.decode()
    answer = client.post("/organise/knockout/", _form("ann, ben\ncat, dan, eve"))
    assert answer.status_code == 302
    tournament = Tournament.objects.get(name="Club Cup")
    knockout = Knockout.objects.get(tournament=tournament)
    assert (knockout.best_of, knockout.seeding, knockout.size) == (3, "order", 8)
    assert tournament.rated

    page = client.get(answer.url).content.decode()
    assert "Created Club Cup: 1 game in round 1." in page
    assert "Knockout, best of 3 a tie, seeded in the organiser&#x27;s order." in page
    assert '<div class="bracket" id="bracket">' in page
    drawn = page.split('id="bracket"', 1)[1].split('id="knockout-advance"', 1)[0]
    assert "<script" not in drawn  # plain HTML and CSS: nothing to run
    quarters = _ties(page, 1)
    assert quarters[0] == "(1) ann (through) Bye"
    assert quarters[1].startswith("(4) dan (5) eve")
    assert "Game 1 : — (Scheduled)" in quarters[1]
    assert quarters[2:] == ["(2) ben (through) Bye", "(3) cat (through) Bye"]
    semis = _ties(page, 2)
    assert semis[0] == "(1) ann To be decided"
    assert semis[1] == "(2) ben (3) cat"
    assert _ties(page, 3) == ["To be decided To be decided"]
    for name in ("Quarter-final", "Semi-final", "Final"):
        assert f'">{name}</h3>' in page
    assert 'id="knockout-advance"' in page

    listing = client.get("/tournaments/").content.decode()
    line = listing.split(f'data-tournament="{tournament.id}"', 1)[1].split("</li>", 1)[0]
    assert '<span class="badge format" data-format="Knockout">Knockout</span>' in line


def test_the_bracket_shows_scores_and_the_winner(
    organiser, make_member, django_capture_on_commit_callbacks
):
    ann, ben = make_member("ann"), make_member("ben")
    tournament = services.create_knockout(
        organiser=organiser,
        name="Final only",
        players=[ann, ben],
        first_kickoff=timezone.now() - timedelta(minutes=1),
        interval=timedelta(0),
        seeding=Knockout.Seeding.ORDER,
    )
    game = tournament.matches.get()
    with django_capture_on_commit_callbacks(execute=True):
        match_resign(match_id=game.id, member=ben, client_id=f"p{next(_client_ids)}")
    page = client_for(None).get(f"/tournaments/{tournament.id}/").content.decode()
    assert 'Won by <strong id="champion">ann</strong>' in page
    [final] = _ties(page, 1)
    assert final == "(1) ann (through) (2) ben Tie: 1–0 Game 1 : 0–0 (ann (First) won)"
    assert '<p class="bracket-side winner"><span class="seed">(1)</span> ann' in page
    assert 'id="knockout-advance"' not in page  # no advancing a finished knockout
    assert KnockoutTie.objects.get(knockout_id=tournament.id).winner == ann


def test_advance_now_is_for_organisers_by_post_with_csrf(
    organiser, alice, bob, make_member, django_capture_on_commit_callbacks
):
    tournament = services.create_knockout(
        organiser=organiser,
        name="Members' Cup",
        players=[alice, bob],
        first_kickoff=timezone.now() - timedelta(minutes=1),
        interval=timedelta(0),
    )
    url = f"/organise/tournaments/{tournament.id}/advance/"
    assert 'id="knockout-advance"' not in (
        client_for(alice).get(f"/tournaments/{tournament.id}/").content.decode()
    )
    for outsider in (alice, None):
        assert client_for(outsider).post(url).status_code == 403
    assert client_for(organiser).get(url).status_code == 405
    assert client_for(organiser, enforce_csrf_checks=True).post(url).status_code == 403

    # The game ends with no after-commit advance (the subscriber did not run): the
    # organiser's button catches up.
    game = tournament.matches.get(status=Match.Status.LIVE)
    loser = alice if game.seats.get(position=0).member_id == alice.pk else bob
    match_resign(match_id=game.id, member=loser, client_id=f"p{next(_client_ids)}")
    assert KnockoutTie.objects.get(knockout_id=tournament.id).winner is None
    answer = client_for(organiser).post(url, follow=True)
    assert "Decided 1 tie, scheduled 0 games." in answer.content.decode()
    assert KnockoutTie.objects.get(knockout_id=tournament.id).winner is not None


def test_a_bad_knockout_form_and_advancing_a_round_robin(organiser, make_member, alice, bob):
    make_member("ann")
    answer = client_for(organiser).post("/organise/knockout/", _form("ann, nobody"))
    assert answer.status_code == 400
    assert "There is no member called &#x27;nobody&#x27;." in answer.content.decode()
    answer = client_for(organiser).post("/organise/knockout/", _form("ann", **{"ko-best_of": "2"}))
    assert answer.status_code == 400
    assert not Knockout.objects.exists()

    tournament = services.create_round_robin(
        organiser=organiser,
        name="Round robin",
        players=[alice, bob],
        first_kickoff=timezone.now() + timedelta(days=1),
        interval=timedelta(days=1),
    )
    answer = client_for(organiser).post(f"/organise/tournaments/{tournament.id}/advance/")
    assert answer.status_code == 404
    assert "There is no such knockout tournament." in answer.content.decode()
    page = client_for(organiser).get(f"/tournaments/{tournament.id}/").content.decode()
    assert "Round robin. Organised by" in page
    assert 'id="bracket"' not in page
