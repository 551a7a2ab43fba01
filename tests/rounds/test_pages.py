"""The Word Skill pages as the server renders them (rounds/views.py): the lobby, the board,
the replay, the player page's Elo. Refusals come back with their own message, never a 500,
and nothing changes; a match that does not exist is a 404; nobody's tray is in the page
before they started the round."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from accounts.models import Member
from engine import Pass
from rounds import selectors, services
from rounds.models import RoundsMatch, RoundsPlayer
from tests.rounds.helpers import best_move, open_match

pytestmark = pytest.mark.django_db


def client_for(member: Member | None) -> Client:
    client = Client()
    if member is not None:
        client.force_login(member)
    return client


def embedded_view(html: str) -> dict:
    found = re.search(
        r'<script id="rounds-view" type="application/json">(.*?)</script>', html, re.S
    )
    assert found, "the page embeds the snapshot"
    return json.loads(found.group(1))


def test_the_lobby_lists_open_matches_and_every_page_links_it(alice, bob) -> None:
    match = open_match(alice, start=False)
    for visitor in (None, bob):
        html = client_for(visitor).get("/rounds/").content.decode()
        assert 'href="/rounds/"' in html[html.index('<nav aria-label="Main">') :]
        assert f'href="/rounds/{match.pk}/"' in html
    assert "Join<span" in client_for(bob).get("/rounds/").content.decode()
    assert "Play Gramma Ana" not in client_for(None).get("/rounds/").content.decode()


def test_open_join_and_start_through_the_pages(alice, bob) -> None:
    host, guest = client_for(alice), client_for(bob)
    answer = host.post(
        "/rounds/open/", {"name": "Tuesday", "turn_seconds": "120", "round_seconds": "3600"}
    )
    match = RoundsMatch.objects.get(host=alice)
    assert answer.status_code == 302
    assert answer["Location"] == f"/rounds/{match.pk}/"
    assert match.turn_time.total_seconds() == 120
    assert match.round_time.total_seconds() == 3600
    page = host.get(f"/rounds/{match.pk}/").content.decode()
    assert 'id="start-game"' in page
    assert (
        "disabled"
        in page[
            page.index('id="start-game"') : page.index("</form>", page.index('id="start-game"'))
        ]
    )
    assert guest.post(f"/rounds/{match.pk}/join/").status_code == 302
    assert RoundsPlayer.objects.filter(match=match).count() == 2
    # Only the host starts it.
    guest.post(f"/rounds/{match.pk}/start/", follow=True)
    match.refresh_from_db()
    assert match.status == RoundsMatch.Status.OPEN
    host.post(f"/rounds/{match.pk}/start/")
    match.refresh_from_db()
    assert match.status == RoundsMatch.Status.LIVE
    assert match.round_number == 1


def test_refusals_are_shown_and_change_nothing(alice, bob) -> None:
    host = client_for(alice)
    for bad in (
        {"name": "x", "turn_seconds": "5"},
        {"name": "", "turn_seconds": "180"},
        {"name": "x", "turn_seconds": "abc"},
        {"name": "x", "round_seconds": "-1"},
    ):
        answer = host.post("/rounds/open/", bad, follow=True)
        assert answer.status_code == 200
        assert answer.context["messages"]
    assert not RoundsMatch.objects.exists()
    match = open_match(alice, bob)
    answer = client_for(bob).post(f"/rounds/{match.pk}/join/", follow=True)
    assert answer.status_code == 200
    assert "already started" in answer.content.decode()
    assert RoundsPlayer.objects.filter(match=match).count() == 2
    assert client_for(bob).post("/rounds/99999/join/", follow=True).status_code == 200
    assert client_for(None).post("/rounds/open/", {"name": "x"}).status_code == 302  # sign in
    assert not RoundsMatch.objects.exclude(pk=match.pk).exists()


def test_a_match_that_does_not_exist_is_a_404(alice) -> None:
    for path in ("/rounds/99999/", "/rounds/99999/replay/"):
        assert client_for(alice).get(path).status_code == 404


def test_the_board_shows_a_tray_only_to_its_player_after_the_start(alice, bob) -> None:
    match = open_match(alice, bob)
    for member in (alice, bob, None):
        view = embedded_view(client_for(member).get(f"/rounds/{match.pk}/").content.decode())
        assert view["your_round"] is None
        assert view["round_number"] == 1
    services.rounds_start_round(match_id=match.pk, member=alice, round_number=1)
    mine = embedded_view(client_for(alice).get(f"/rounds/{match.pk}/").content.decode())
    assert mine["your_round"]["number"] == 1
    assert len(mine["your_round"]["tray"]) == 7
    for member in (bob, None):
        view = embedded_view(client_for(member).get(f"/rounds/{match.pk}/").content.decode())
        assert view["your_round"] is None
        assert mine["your_round"]["tray"] not in json.dumps(view)


def test_the_replay_shows_every_closed_round(alice, bob) -> None:
    match = open_match(alice, bob)
    for member in (alice, bob):
        services.rounds_start_round(match_id=match.pk, member=member, round_number=1)
        services.rounds_submit(match_id=match.pk, member=member, round_number=1, move=Pass())
    html = client_for(None).get(f"/rounds/{match.pk}/replay/").content.decode()
    assert 'id="round-1"' in html
    assert "No word was placed." in html
    assert html.count(">passed<") == 2


def test_the_player_page_shows_the_word_skill_elo(alice, bob) -> None:
    html = client_for(bob).get("/players/alice/").content.decode()
    assert 'id="word-skill-elo"' in html
    assert '<span class="rating-now">1200</span>' in html
    assert "no rated game against Gramma Ana yet" in html
    assert 'id="word-skill-elo"' not in client_for(None).get("/players/alice/").content.decode()


def test_the_replay_shows_the_board_after_each_round(alice, bob) -> None:
    match = open_match(alice, bob)
    for number in (1, 2):
        for member in (alice, bob):
            services.rounds_start_round(match_id=match.pk, member=member, round_number=number)
            move = best_move(match) if member == alice else Pass()
            services.rounds_submit(match_id=match.pk, member=member, round_number=number, move=move)
    view = selectors.rounds_state(user=None, match_id=match.pk)
    client = client_for(None)
    final = client.get(f"/rounds/{match.pk}/replay/").content.decode()
    tiles = sum(len(row) - row.count(".") for row in view.board)
    assert final.count('class="sq tile') == tiles
    assert "The board after round 2" in final
    for raw in ("abc", "999", "-1", "0"):
        again = client.get(f"/rounds/{match.pk}/replay/?round={raw}").content.decode()
        assert "The board after round 2</h2>" in again
    first = client.get(f"/rounds/{match.pk}/replay/?round=1").content.decode()
    placed = next(p.submission for p in view.rounds[0].players if p.player == 0)
    assert placed is not None
    assert first.count('class="sq tile') == len(placed.tiles)
    assert first.count(' last"') == len(placed.tiles)
    assert "The board after round 1</h2>" in first
