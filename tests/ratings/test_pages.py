"""The ratings pages: the leaderboard, a player's chart and table, the change on a match's page,
the players of a tournament by rating at the start; and rated/seeded from the organiser's forms."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.urls import reverse

from matches.models import Match, Tournament
from ratings import selectors
from ratings.chart import history_chart
from ratings.models import Rating, RatingChange
from ratings.policy import PROVISIONAL_DEVIATION
from tests.ratings.season import at, fixture, forfeit
from tournaments import services as organising

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 2, 2, 18, tzinfo=UTC)


def _client(member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def _season(organiser, players, games: int) -> None:
    """``games`` rated forfeits round the players, a few days apart (the later seat wins)."""
    for index in range(games):
        first, second = players[index % len(players)], players[(index + 1) % len(players)]
        with at(T0 + timedelta(days=4 * index)):
            forfeit(fixture(organiser, first, second))


def test_the_ratings_pages_are_for_members(client, organiser, alice, bob) -> None:
    response = client.get(reverse("ratings:leaderboard"))
    assert response.status_code == 302
    assert reverse("accounts:sign-in") in response["Location"]
    # A player's page is open to anyone (matches.players), but its ratings only to members.
    _season(organiser, [alice, bob], 2)
    anonymous = client.get(reverse("ratings:player", args=["alice"])).content.decode()
    assert "rating-chart" not in anonymous
    assert "rating-history" not in anonymous
    assert "Ratings are shown to signed-in members." in anonymous
    member = _client(bob).get(reverse("ratings:player", args=["alice"])).content.decode()
    assert "rating-history" in member


def test_a_sign_up_waiting_for_approval_sees_no_leaderboard(organiser, alice, bob, make_member):
    """A pending account sees what a signed-out visitor sees: the leaderboard moves with the
    results of members-only matches, which it may not watch (found by tests/secrecy)."""
    _season(organiser, [alice, bob], 2)
    waiting = make_member("waiting")
    waiting.membership = waiting.Membership.PENDING
    waiting.save(update_fields=["membership"])
    response = _client(waiting).get(reverse("ratings:leaderboard"))
    assert response.status_code == 302
    assert reverse("accounts:sign-in") in response["Location"]
    assert _client(bob).get(reverse("ratings:leaderboard")).status_code == 200


def test_unknown_rulesets_and_players_are_not_found(alice) -> None:
    client = _client(alice)
    assert client.get("/ratings/scrabble/").status_code == 404
    assert client.get("/ratings/%3Cscript%3E/").status_code == 404
    assert client.get("/players/nobody/").status_code == 404
    # Not a username at all: a NUL byte (which PostgreSQL refuses) or a space is a 404 too.
    assert client.get("/players/%00/").status_code == 404
    assert client.get("/players/al%00ice/").status_code == 404
    assert client.get("/players/al ice/").status_code == 404


def test_the_leaderboard_ranks_settled_ratings_and_lists_provisional_ones(
    organiser, make_member
) -> None:
    regulars = [make_member(f"regular{i}") for i in range(3)]
    _season(organiser, regulars, 36)  # 24 games each
    newcomer = make_member("newcomer")
    with at(T0 + timedelta(days=4 * 36)):
        forfeit(fixture(organiser, newcomer, regulars[0]))
        page = _client(regulars[0]).get("/ratings/")
    assert page.status_code == 200
    html = page.content.decode()
    board = html[html.index('id="leaderboard"') : html.index('id="provisional-heading"')]
    provisional = html[html.index('id="provisional"') :]
    for member in regulars:
        assert f'href="/players/{member.username}/"' in board
    assert "newcomer" not in board
    assert "newcomer" in provisional
    # The newcomer's one game: marked provisional with a ?, never ranked.
    line = selectors.leaderboard("word-duel", now=T0 + timedelta(days=4 * 36))
    assert [entry.username for entry in line.provisional] == ["newcomer"]
    assert line.provisional[0].shown.endswith("?")
    assert all(entry.deviation < PROVISIONAL_DEVIATION for entry in line.settled)
    ratings = [entry.rating for entry in line.settled]
    assert ratings == sorted(ratings, reverse=True)
    assert re.search(rf">{line.settled[0].shown}<", board)


def test_a_long_absence_makes_a_rating_provisional_again(organiser, make_member) -> None:
    regulars = [make_member(f"regular{i}") for i in range(3)]
    _season(organiser, regulars, 36)
    soon = T0 + timedelta(days=4 * 36)
    assert len(selectors.leaderboard("word-duel", now=soon).settled) == 3
    much_later = selectors.leaderboard("word-duel", now=soon + timedelta(days=3 * 365))
    assert much_later.settled == []
    assert len(much_later.provisional) == 3


def test_the_player_page_draws_the_history_and_tables_it(organiser, alice, bob) -> None:
    _season(organiser, [alice, bob], 5)
    page = _client(bob).get("/players/alice/")
    assert page.status_code == 200
    html = page.content.decode()
    assert '<svg class="rating-chart"' in html
    assert 'role="img"' in html
    assert "<desc" in html
    assert "Rating over 5 rated games" in html
    # Marks by shape, each with a title; a legend names the shapes in words.
    assert html.count('<path class="mark ') == 6  # the start and five games
    assert "a win" in html
    assert "a loss" in html
    # The same numbers as a table, one row a game, changes signed.
    history = selectors.history(alice, "word-duel")
    table = html[html.index('class="ratings rating-history"') :]
    assert table.count("<tr>") == 1 + 5
    for line in history:
        assert f">{line.after_shown}<" in table
        assert f'href="/matches/{line.match_id}/"' in table
    assert re.search(r">[+-]\d+<", table)


def test_a_player_with_no_rated_games_says_so(alice) -> None:
    html = _client(alice).get("/players/alice/").content.decode()
    assert "has played no rated matches yet" in html
    assert "<svg" not in html


def test_the_chart_is_drawn_inside_its_plot(organiser, alice, bob) -> None:
    _season(organiser, [alice, bob], 12)
    chart = history_chart(selectors.history(bob, "word-duel"))
    assert chart is not None
    xs = [mark.x for mark in chart.marks]
    assert xs == sorted(xs)
    assert chart.plot_left <= min(xs) <= max(xs) <= chart.plot_right
    ys = [mark.y for mark in chart.marks]
    assert chart.plot_top <= min(ys) <= max(ys) <= chart.plot_bottom
    assert [mark.kind for mark in chart.marks][:1] == ["start"]
    assert {mark.kind for mark in chart.marks[1:]} <= {"won", "lost", "drew"}
    assert history_chart([]) is None


def test_the_match_page_shows_the_change_of_a_rated_result(client, organiser, alice, bob) -> None:
    match = fixture(organiser, alice, bob)
    assert "A rated match" in client.get(f"/matches/{match.id}/").content.decode()
    forfeit(match)
    changes = {c.member_id: c for c in RatingChange.objects.filter(match=match)}
    shown = {
        member.pk: round(changes[member.pk].rating_after) - round(changes[member.pk].rating_before)
        for member in (alice, bob)
    }
    assert shown[alice.pk] < 0 < shown[bob.pk]

    # Anyone who may watch the match sees the change; members also see before and after.
    public = client.get(f"/matches/{match.id}/").content.decode()
    section = public[public.index('id="rating-changes"') :]
    assert f"{shown[bob.pk]:+d}" in section
    assert f"{shown[alice.pk]:+d}" in section
    assert "→" not in section
    member = _client(alice).get(f"/matches/{match.id}/").content.decode()
    section = member[member.index('id="rating-changes"') :]
    assert "1500? →" in section
    assert 'href="/players/bob/"' in section


def test_an_unrated_match_says_so_and_changes_nothing(client, organiser, alice, bob) -> None:
    match = forfeit(fixture(organiser, alice, bob, rated=False))
    html = client.get(f"/matches/{match.id}/").content.decode()
    assert "Unrated." in html
    assert 'id="rating-changes"' not in html


def test_an_organiser_schedules_a_rated_fixture_and_an_unrated_one(organiser, alice, bob) -> None:
    client = _client(organiser)
    form = {
        "fixture-name": "Rated one",
        "fixture-ruleset": "word-duel",
        "fixture-visibility": "public",
        "fixture-no_show_minutes": "15",
        "fixture-first": "alice",
        "fixture-second": "bob",
        "fixture-rated": "on",
    }
    assert client.post("/organise/fixture/", form).status_code == 302
    del form["fixture-rated"]
    form["fixture-name"] = "A friendly"
    assert client.post("/organise/fixture/", form).status_code == 302
    assert Match.objects.get(name="Rated one").rated
    assert not Match.objects.get(name="A friendly").rated


def test_a_round_robin_is_seeded_by_rating_and_shows_the_ratings_at_the_start(
    organiser, make_member
) -> None:
    players = [make_member(name) for name in ("ann", "ben", "cat", "dan")]
    ann, ben, cat, dan = players
    with at(T0):
        forfeit(fixture(organiser, ann, dan))  # dan wins (three days later)
        forfeit(fixture(organiser, ben, cat))  # cat wins
    with at(T0 + timedelta(days=4)):
        forfeit(fixture(organiser, ann, dan))  # dan wins again
    created = T0 + timedelta(days=8)  # after the last result
    order = selectors.seeded_by_rating(players, ruleset="word-duel", at=created)
    assert order[0] == dan
    assert order[-1] == ann

    client = _client(organiser)
    with at(created):
        response = client.post(
            "/organise/round-robin/",
            {
                "rr-name": "Seeded",
                "rr-players": "ann, ben, cat, dan",
                "rr-first_kickoff": "2026-02-10T18:00",
                "rr-interval_hours": "24",
                "rr-meetings": "once",
                "rr-ruleset": "word-duel",
                "rr-visibility": "public",
                "rr-rated": "on",
                "rr-seed_by_rating": "on",
            },
        )
    assert response.status_code == 302
    tournament = Tournament.objects.get(name="Seeded")
    assert tournament.rated
    assert all(tournament.matches.values_list("rated", flat=True))
    # Top seed against bottom seed in the first round; the top two meet in the last.
    first_round = {
        frozenset(m.seats.values_list("member__username", flat=True))
        for m in tournament.matches.filter(round_number=1)
    }
    assert frozenset({"dan", "ann"}) in first_round
    last_round = {
        frozenset(m.seats.values_list("member__username", flat=True))
        for m in tournament.matches.filter(round_number=3)
    }
    assert frozenset({"dan", order[1].username}) in last_round

    # The page lists the players by their rating when it was created, even after it changed.
    Rating.objects.filter(member=ann).update(rating=2400.0)
    html = client.get(f"/tournaments/{tournament.id}/").content.decode()
    entrants = html[html.index('id="entrants"') :]
    names = re.findall(r'href="/players/(\w+)/"', entrants)[:4]
    assert names[0] == "dan"
    assert names[-1] == "ann"
    at_start = selectors.ratings_at([dan.pk], "word-duel", tournament.created_at)[dan.pk]
    assert f"{round(at_start.rating)}?" in entrants
    # Visitors who are not signed in do not get the ratings.
    assert 'id="entrants"' not in Client().get(f"/tournaments/{tournament.id}/").content.decode()


def test_a_round_robin_can_be_unrated_and_unseeded(organiser, make_member) -> None:
    players = [make_member(name) for name in ("ann", "ben", "cat")]
    tournament = organising.create_round_robin(
        organiser=organiser,
        name="Casual",
        players=players,
        first_kickoff=T0,
        interval=timedelta(days=1),
    )
    assert not tournament.rated
    assert not any(tournament.matches.values_list("rated", flat=True))
