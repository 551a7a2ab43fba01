"""After a short season nobody's rating is settled yet: the leaderboard ranks the provisional
ratings, each marked provisional, rather than showing nothing."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.test import Client

from ratings import selectors
from tests.ratings.season import at, fixture, forfeit
from tests.ratings.test_pages import T0, _season

pytestmark = pytest.mark.django_db


def test_a_twelve_game_season_ranks_its_provisional_ratings(organiser, make_member) -> None:
    players = [make_member(f"player{i}") for i in range(4)]
    _season(organiser, players, 12)
    now = T0 + timedelta(days=4 * 12)
    board = selectors.leaderboard("word-duel", now=now)
    assert board.settled == []  # the season the issue saw: nobody settled
    client = Client()
    client.force_login(players[0])
    with at(now):
        page = html.unescape(client.get("/ratings/").content.decode())
    assert "Nobody has a settled rating" not in page
    table = page[
        page.index('id="leaderboard"') : page.index("</table>", page.index('id="leaderboard"'))
    ]
    rows = re.findall(r"<tr>(.*?)</tr>", table, flags=re.DOTALL)[1:]  # (the header first)
    ranked = sorted(board.provisional, key=lambda line: -line.rating)
    assert len(rows) == len(ranked) == 4
    for rank, (row, line) in enumerate(zip(rows, ranked, strict=True), start=1):
        assert f'<td class="num">{rank}</td>' in row
        assert f"/players/{line.username}/" in row
        assert line.shown in row
        assert line.shown.endswith("?")
        assert 'title="provisional"' in row
        assert "provisional</span>" in row
    assert "Nobody's rating is settled yet: these are provisional ratings" in page
    # Listed once: no second table of the same players.
    assert 'id="provisional"' not in page


def test_with_settled_ratings_the_provisional_ones_still_follow_unranked(
    organiser, make_member
) -> None:
    regulars = [make_member(f"regular{i}") for i in range(3)]
    _season(organiser, regulars, 36)
    newcomer = make_member("newcomer")
    with at(T0 + timedelta(days=4 * 36)):
        forfeit(fixture(organiser, newcomer, regulars[0]))
        client = Client()
        client.force_login(newcomer)
        page = client.get("/ratings/").content.decode()
    board = page[page.index('id="leaderboard"') : page.index('id="provisional-heading"')]
    assert "newcomer" not in board
    assert "newcomer" in page[page.index('id="provisional"') :]
