"""Tie-breaks chosen per tournament (docs/RULES.md section 12): the orders worked by hand on
small tables, the default kept as it was, and the choice made on the director's page by an
organiser only, then applied to the page, the API and the CSV."""

from __future__ import annotations

import pytest
from django.test import Client

from matches.game_counts import GameCount
from tests.matches.test_standings import round_robin, settle
from tournaments import standings
from tournaments.models import TournamentOptions
from tournaments.services import director

NAMES = ("ann", "bob", "cat", "dan", "eve")


def _table(
    games: list[tuple[str, int, str, int]],
) -> tuple[list[standings.Standing], list[GameCount]]:
    """Lines and counted games from ``(first, score, second, score)`` played out; member
    numbers follow NAMES."""
    number = {name: index for index, name in enumerate(NAMES, start=1)}
    lines = {
        name: standings.Standing(member_id=number[name], name=name, username=name) for name in NAMES
    }
    counted = []
    for match_id, (a, a_score, b, b_score) in enumerate(games, start=1):
        for me, mine, other, theirs in ((a, a_score, b, b_score), (b, b_score, a, a_score)):
            points = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            game = GameCount(match_id, number[me], number[other], points, mine - theirs)
            lines[me].add(game)
            lines[me].scored += mine
            counted.append(game)
    played = [line for line in lines.values() if line.played]
    return played, counted


#: Five players, one win each. By hand:
#:   spread   ann +5, bob +50, cat +40, dan -90, eve -5
#:   scored   ann 810, bob 800, cat 850, dan 680, eve 775
#:   opponents' scores  ann 850+775=1625, bob 680+850=1530, cat 810+800=1610,
#:                      dan 800+775=1575, eve 810+680=1490
#:   Buchholz every opponent has 1 point: 2 each
FIVE_TIED = [
    ("ann", 410, "cat", 400),
    ("eve", 405, "ann", 400),
    ("bob", 400, "dan", 300),
    ("cat", 450, "bob", 400),
    ("dan", 380, "eve", 370),
]


def _order(games, tie_breaks) -> list[tuple[str, str]]:
    lines, counted = _table(games)
    return [(line.name, line.separated_by) for line in standings.order(lines, counted, tie_breaks)]


def test_the_default_order_is_spread_then_head_to_head() -> None:
    assert standings.DEFAULT_TIE_BREAKS == ("spread", "head_to_head")
    assert [name for name, _ in _order(FIVE_TIED, standings.DEFAULT_TIE_BREAKS)] == [
        "bob", "cat", "ann", "eve", "dan"
    ]  # fmt: skip


def test_cumulative_opponents_scores_order_the_same_table_otherwise() -> None:
    lines, counted = _table(FIVE_TIED)
    ordered = standings.order(lines, counted, ("opponents_scores",))
    assert [(line.name, line.opponents_scores) for line in ordered] == [
        ("ann", 1625), ("cat", 1610), ("dan", 1575), ("bob", 1530), ("eve", 1490)
    ]  # fmt: skip
    assert [line.separated_by for line in ordered] == ["opponents' scores"] * 4 + [""]


def test_buchholz_that_cannot_split_falls_through_to_the_next_choice() -> None:
    lines, counted = _table(FIVE_TIED)
    ordered = standings.order(lines, counted, ("buchholz",))
    assert {line.buchholz for line in ordered} == {2.0}
    # Nothing after it: the earlier member.
    assert [(line.name, line.separated_by) for line in ordered] == [
        ("ann", "member number"), ("bob", "member number"), ("cat", "member number"),
        ("dan", "member number"), ("eve", ""),
    ]  # fmt: skip
    assert _order(FIVE_TIED, ("buchholz", "opponents_scores")) == _order(
        FIVE_TIED, ("opponents_scores",)
    )


#: ann beat bob by a point; bob beat cat by 200; cat and dan drew. By hand: ann and bob on 1
#: point (spread +1 and +199), cat and dan on ½ (spread -200 and 0, their own game level).
TWO_TIES = [
    ("ann", 401, "bob", 400),
    ("bob", 500, "cat", 300),
    ("cat", 350, "dan", 350),
]


def test_head_to_head_first_puts_the_winner_of_their_game_above_a_better_spread() -> None:
    assert _order(TWO_TIES, ("spread", "head_to_head")) == [
        ("bob", ""), ("ann", ""), ("dan", ""), ("cat", "")
    ]  # fmt: skip
    # Head-to-head first: ann beat bob; cat and dan drew theirs, so spread decides them.
    assert _order(TWO_TIES, ("head_to_head", "spread")) == [
        ("ann", "head-to-head"), ("bob", ""), ("dan", ""), ("cat", "")
    ]  # fmt: skip
    # No tie-breaks at all: points, then the earlier member.
    assert _order(TWO_TIES, ()) == [
        ("ann", "member number"), ("bob", ""), ("cat", "member number"), ("dan", "")
    ]  # fmt: skip


# ---------------------------------------------------------------- chosen on the page


@pytest.fixture
def cup(organiser, make_member):
    """ann, bob, cat, dan: TWO_TIES played out in a round robin."""
    players = {name: make_member(name) for name in NAMES[:4]}
    tournament = round_robin(organiser, list(players.values()))
    for a, a_score, b, b_score in TWO_TIES:
        winner = None if a_score == b_score else players[a] if a_score > b_score else players[b]
        settle(tournament, players[a], players[b], scores=(a_score, b_score), winner=winner)
    return tournament


def _usernames(client: Client, cup) -> list[str]:
    answer = client.get(f"/api/tournaments/{cup.id}/standings")
    return [row["username"] for row in answer.json()["standings"]]


@pytest.mark.django_db
def test_an_organiser_chooses_the_order_and_the_page_api_and_csv_follow(cup, organiser):
    client = Client()
    client.force_login(organiser)
    assert _usernames(client, cup) == ["bob", "ann", "dan", "cat"]
    page = client.get(f"/organise/tournaments/{cup.id}/director/")
    assert page.status_code == 200
    assert 'id="tie-breaks"' in page.content.decode()
    answer = client.post(
        f"/organise/tournaments/{cup.id}/director/tie-breaks/",
        {"first": "head_to_head", "second": "opponents_scores", "third": "", "fourth": ""},
    )
    assert answer.status_code == 302
    assert TournamentOptions.objects.get(tournament=cup).tie_breaks == [
        "head_to_head", "opponents_scores"
    ]  # fmt: skip
    # ann above bob on their game; cat and dan drew theirs, and cat's opponents scored
    # more (bob 900, dan 350) than dan's (cat 650).
    assert _usernames(client, cup) == ["ann", "bob", "cat", "dan"]
    api = client.get(f"/api/tournaments/{cup.id}/standings").json()
    assert api["tie_break_order"] == standings.tie_break_order(("head_to_head", "opponents_scores"))
    assert api["standings"][0]["separated_by"] == "head-to-head"
    html = client.get(f"/tournaments/{cup.id}/").content.decode()
    order = ", then ".join(standings.tie_break_order(("head_to_head", "opponents_scores")))
    assert f"Order: {order}.".replace("'", "&#x27;") in html
    assert "ahead on head-to-head" in html
    csv_text = client.get(f"/tournaments/{cup.id}/standings.csv").content.decode()
    assert [line.split(",")[1] for line in csv_text.splitlines()[1:]] == [
        "ann",
        "bob",
        "cat",
        "dan",
    ]


@pytest.mark.django_db
def test_a_bad_order_is_refused_and_changes_nothing(cup, organiser):
    client = Client()
    client.force_login(organiser)
    answer = client.post(
        f"/organise/tournaments/{cup.id}/director/tie-breaks/",
        {"first": "spread", "second": "spread", "third": "", "fourth": ""},
    )
    assert answer.status_code == 400
    assert director.TIE_BREAK_TWICE in answer.content.decode()
    assert not TournamentOptions.objects.filter(tournament=cup).exists()
    with pytest.raises(director.OptionsRefused, match="A tie-break is one of"):
        director.tie_breaks_set(organiser=organiser, tournament_id=cup.id, tie_breaks=["coin"])
    assert not TournamentOptions.objects.filter(tournament=cup).exists()


@pytest.mark.django_db
def test_only_organisers_reach_the_director_page_or_change_the_order(cup, make_member):
    client = Client()
    client.force_login(make_member("someone"))
    assert client.get(f"/organise/tournaments/{cup.id}/director/").status_code == 403
    answer = client.post(
        f"/organise/tournaments/{cup.id}/director/tie-breaks/", {"first": "buchholz"}
    )
    assert answer.status_code == 403
    assert not TournamentOptions.objects.filter(tournament=cup).exists()
    anonymous = Client().get(f"/organise/tournaments/{cup.id}/director/")
    assert anonymous.status_code == 403
