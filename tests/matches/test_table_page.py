"""The match page of a table of three as the server renders it (before board.js takes over,
and without JavaScript): every seat, the challenges in words in the move list, the open play
and its window, the places at the end; the same for a player and a spectator, the rack the
player's alone."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from matches import services
from matches.models import Match
from tests.matches.table_helpers import (
    challenge_now,
    good_play,
    member_to_move,
    phony_opening,
    play_now,
    table_match,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def three(make_member) -> list:
    return [make_member(name) for name in ("ann", "ben", "cat")]


def page_of(match, member=None) -> str:
    client = Client()
    if member is not None:
        client.force_login(member)
    response = client.get(f"/matches/{match.id}/")
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def test_a_table_page_tells_every_challenge_and_the_places(organiser, three) -> None:
    match = table_match(organiser, three, seed=4, challenge="five_point")
    names = [member.label for member in three]
    player = match.to_move
    assert player is not None
    phony = phony_opening(match)
    word = "".join(tile.letter for tile in phony.tiles)
    play_now(match, three, phony)
    page = page_of(match)
    assert 'id="challenge-box" class="challenge-box" >' in page  # shown: a play is open
    assert "The last play may be challenged until" in page
    challenger = (player + 2) % 3
    decided = challenge_now(match, three[challenger])
    assert isinstance(decided, services.ChallengeDecided)

    good = good_play(match)
    scorer = member_to_move(match, three)
    play_now(match, three, good)
    match.refresh_from_db()
    doubter = three[(three.index(scorer) + 1) % 3]
    stood = challenge_now(match, doubter)
    assert isinstance(stood, services.ChallengeDecided)
    assert not stood.answer.challenge.withdrawn
    services.match_resign(match_id=match.id, member=doubter, client_id="resign-1")

    spectator = page_of(match)
    player_page = page_of(match, three[0])
    withdrawn = (
        f"{names[challenger]} challenged {word}: not a word \u2014 withdrawn,"
        f" {names[player]} loses the turn"
    )
    for page in (spectator, player_page):
        assert withdrawn in page
        assert f"played {word} at" in page
        assert ", withdrawn" in page
        assert f"{doubter.label} challenged" in page
        assert f"it stands \u2014 +5 to {scorer.label}" in page
        for seat in match.seats.all():
            seat.refresh_from_db()
            assert f"place {seat.place}" in page
        assert (
            f"{doubter.label} ({match.seats.get(member=doubter).get_position_display()}) resigned."
            in page
        )
    assert 'id="your-rack"' in player_page
    assert 'id="your-rack"' not in spectator
    assert "on the other racks" in player_page
    # A members-only table watched by its viewing link: the same story, no rack, no button.
    Match.objects.filter(pk=match.pk).update(visibility=Match.Visibility.MEMBERS)
    key = Match.objects.values_list("viewing_key", flat=True).get(pk=match.pk)
    assert Client().get(f"/matches/{match.id}/").status_code == 404
    response = Client().get(f"/matches/{match.id}/", {"key": key})
    assert response.status_code == 200
    by_key = html.unescape(response.content.decode())
    assert withdrawn in by_key
    assert f"it stands \u2014 +5 to {scorer.label}" in by_key
    assert 'id="your-rack"' not in by_key
