"""A match's title names the members seated now (issue 35): a substitute's name replaces the
player's in the match page, the lists, the API, the snapshot and the calendar; a deleted
account's name leaves the titles of its matches; and matches stored with the players baked
into their names are relabelled by the migration."""

from __future__ import annotations

import re
from datetime import timedelta

import icalendar
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import timezone

from accounts.services import account_delete
from matches import services, visibility
from matches.models import Match
from notifications.feeds import feed_of
from practice.services import start_practice
from tournaments import services as organising

pytestmark = pytest.mark.django_db


def _signed_in(member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def _page_title(client: Client, match: Match) -> str:
    page = client.get(f"/matches/{match.id}/").content.decode()
    found = re.search(r'<h1 id="match-title">(.*?)</h1>', page)
    assert found, "the match page has its title"
    return found.group(1)


def _cup(organiser, alice, bob) -> Match:
    tournament = organising.create_round_robin(
        organiser=organiser,
        name="Cup",
        players=[alice, bob],
        first_kickoff=timezone.now() + timedelta(days=1),
        interval=timedelta(days=1),
    )
    match = tournament.matches.get()
    assert list(match.seats.order_by("position").values_list("member__username", flat=True)) == [
        "alice",
        "bob",
    ]
    return match


def test_a_substitute_plays_under_their_own_name_everywhere(organiser, alice, bob, make_member):
    carol = make_member("carol")
    match = _cup(organiser, alice, bob)
    assert _page_title(Client(), match) == "Cup · Round 1: alice v bob"

    organising.fixture_substitute(
        organiser=organiser, match_id=match.id, position=1, member_id=carol.pk, reason="Ill"
    )

    expected = "Cup · Round 1: alice v carol"
    # The match page, for anyone.
    assert _page_title(Client(), match) == expected
    # The snapshot every socket and page starts from.
    access = services.look_at_match(user=carol, match_id=match.id, key=None)
    assert visibility.match_view(access).name == expected
    # The API's row and state.
    assert Client().get(f"/api/matches/{match.id}/").json()["name"] == expected
    [row] = [r for r in Client().get("/api/matches/").json()["results"] if r["id"] == match.id]
    assert row["name"] == expected
    # Carol's own list, the tournament's page and the organisers' fixture list.
    assert expected in _signed_in(carol).get("/me/matches/").content.decode()
    assert expected in Client().get(f"/tournaments/{match.tournament_id}/").content.decode()
    organisers = _signed_in(organiser).get("/organise/fixtures/").content.decode()
    assert expected in organisers
    assert "alice v bob" not in organisers
    # Carol's calendar, and the tournament's.
    feed = feed_of(carol)
    ics = Client().get(f"/notifications/calendar/{carol.pk}/{feed.secret}.ics").content
    [event] = icalendar.Calendar.from_ical(ics).walk("VEVENT")
    assert str(event["SUMMARY"]) == f"Kick-off: {expected}"
    public = Client().get(f"/notifications/calendar/tournaments/{match.tournament_id}.ics")
    [event] = icalendar.Calendar.from_ical(public.content).walk("VEVENT")
    assert str(event["SUMMARY"]) == f"Kick-off: {expected}"


def test_a_deleted_accounts_name_leaves_the_titles_of_its_matches(make_member, alice):
    throwaway = make_member("throwaway")
    match = start_practice(member=throwaway)
    assert "throwaway" in _page_title(_signed_in(alice), match)

    account_delete(member=throwaway)

    title = _page_title(_signed_in(alice), match)
    assert "throwaway" not in title
    assert title == f"Practice: former-member-{throwaway.pk} v wordduel-computer"
    listed = _signed_in(alice).get("/api/matches/").json()["results"]
    assert [row["name"] for row in listed if row["id"] == match.id] == [title]


def test_a_free_seat_is_named_as_free_and_two_free_seats_leave_the_label(make_fixture, alice):
    empty = make_fixture(name="Open game")
    assert _page_title(Client(), empty) == "Open game"
    half = make_fixture(name="Open game", first=alice)
    assert _page_title(Client(), half) == "Open game: alice v (free seat)"


@pytest.mark.django_db(transaction=True)  # (migrations alter tables: nothing left pending)
def test_the_migration_keeps_only_each_fixtures_own_label(organiser, alice, bob, make_fixture):
    cup = _cup(organiser, alice, bob)
    practice = start_practice(member=alice)
    named = make_fixture(name="Friday friendly", first=alice, second=bob)
    baked = make_fixture(name="Final: alice v bob", first=alice, second=bob)
    plain = make_fixture(name="alice v bob", first=alice, second=bob)
    bare = make_fixture(name="Practice: the rules")
    Match.objects.filter(pk=cup.pk).update(name="Cup · Round 1: alice v bob")
    Match.objects.filter(pk=practice.pk).update(name="Practice: alice v the computer")
    labels_before = dict(Match.objects.values_list("pk", "name"))

    executor = MigrationExecutor(connection)
    executor.migrate([("matches", "0008_position_only")])
    # The names stored before the labels (as the code of that time wrote them).
    for pk, name in labels_before.items():
        Match.objects.filter(pk=pk).update(name=name)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    names = dict(Match.objects.values_list("pk", "name"))
    assert names[cup.pk] == "Cup · Round 1"
    assert names[practice.pk] == "Practice"
    assert names[named.pk] == "Friday friendly"
    assert names[baked.pk] == "Final"
    assert names[plain.pk] == "Fixture"  # nothing but the players: a plain label
    assert names[bare.pk] == "Practice: the rules"  # no players in it: an organiser's own
    assert _page_title(Client(), Match.objects.get(pk=cup.pk)) == "Cup · Round 1: alice v bob"
