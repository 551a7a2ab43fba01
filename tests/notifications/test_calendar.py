"""Calendar feeds: a member's fixtures and deadlines at a secret address, a tournament's
fixtures publicly when all are public (else through a member's secret). Parsed with
``icalendar`` as a calendar app would read them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from icalendar import Calendar

from matches.models import Match
from notifications.models import CalendarFeed
from tests.matches.helpers import commit_move
from tournaments import services as organising

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 5, 4, 12, 0, tzinfo=UTC)


def _client(member=None) -> Client:
    client = Client()
    if member is not None:
        client.force_login(member)
    return client


def _feed_path(member) -> str:
    feed, _ = CalendarFeed.objects.get_or_create(member=member)
    return reverse("notifications:calendar-member", args=[member.pk, feed.secret])


def _read(response) -> Calendar:
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    cal = Calendar.from_ical(response.content)
    assert str(cal["VERSION"]) == "2.0"
    assert "Word Duel" in str(cal["PRODID"])
    for event in cal.walk("VEVENT"):  # what RFC 5545 requires of each, and what we promise
        for prop in ("UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY", "URL"):
            assert prop in event, (prop, event)
    return cal


def _events(cal: Calendar) -> dict[str, object]:
    return {str(event["UID"]): event for event in cal.walk("VEVENT")}


@pytest.fixture
def fixtures(make_fixture, make_member, alice, bob):
    """alice's fixtures: one to come, one live on her move, one live on bob's; and a
    members-only match of two others that must appear in nobody else's feed."""
    carol, dave = make_member("carol"), make_member("dave")
    with time_machine.travel(NOW, tick=False):
        to_come = make_fixture(
            first=alice, second=bob, name="Spring friendly", kickoff_at=NOW + timedelta(days=3)
        )
        her_move = make_fixture(first=alice, second=carol, name="Her move")
        bobs_move = make_fixture(first=alice, second=bob, name="Bob to move")
        outcome = commit_move(
            match_id=bobs_move.id,
            member=alice,
            move={"kind": "pass"},
            against_turn=0,
            client_id="pass-1",
        )
        assert outcome.accepted
        hidden = make_fixture(
            first=carol,
            second=dave,
            name="Secret duel",
            visibility=Match.Visibility.MEMBERS,
            kickoff_at=NOW + timedelta(days=1),
        )
    return {"to_come": to_come, "her_move": her_move, "bobs_move": bobs_move, "hidden": hidden}


def test_a_members_feed_lists_her_kickoffs_and_the_deadlines_of_her_turns(alice, fixtures):
    domain = "wordduel.invalid"
    with time_machine.travel(NOW + timedelta(minutes=5), tick=False):
        response = Client().get(_feed_path(alice))  # no session: a calendar app
        again = Client().get(_feed_path(alice))
    cal = _read(response)
    assert "private" in response["Cache-Control"]
    assert str(cal["X-WR-CALNAME"]) == "Word Duel: alice's matches"
    events = _events(cal)
    to_come, her_move = fixtures["to_come"], fixtures["her_move"]
    assert set(events) == {
        f"match-{to_come.id}@{domain}",
        f"match-{her_move.id}@{domain}",
        f"match-{fixtures['bobs_move'].id}@{domain}",
        f"match-{her_move.id}-move@{domain}",  # her turn's deadline; not bob's
    }
    kickoff = events[f"match-{to_come.id}@{domain}"]
    assert kickoff["DTSTART"].dt == NOW + timedelta(days=3)
    assert str(kickoff["SUMMARY"]) == "Kick-off: Spring friendly: alice v bob"
    assert "Against bob." in str(kickoff["DESCRIPTION"])
    assert str(kickoff["URL"]).endswith(reverse("match", args=[to_come.id]))
    deadline = events[f"match-{her_move.id}-move@{domain}"]
    her_move.refresh_from_db()
    assert deadline["DTEND"].dt == her_move.turn_deadline_at == NOW + timedelta(days=3)
    assert str(deadline["SUMMARY"]) == "Your move is due: Her move: alice v carol"
    # A calendar app reading again finds the same events under the same UIDs.
    assert set(_events(_read(again))) == set(events)
    assert "Secret duel" not in response.content.decode()

    # Once she has moved, the deadline is bob's and leaves her feed; carol's feed has it.
    with time_machine.travel(NOW + timedelta(hours=1), tick=False):
        outcome = commit_move(
            match_id=her_move.id,
            member=alice,
            move={"kind": "pass"},
            against_turn=0,
            client_id="pass-2",
        )
        assert outcome.accepted
        after = _events(_read(Client().get(_feed_path(alice))))
    assert f"match-{her_move.id}-move@{domain}" not in after
    assert f"match-{her_move.id}@{domain}" in after


def test_a_foreign_or_made_up_secret_opens_nothing(alice, bob, fixtures):
    bobs = CalendarFeed.objects.get_or_create(member=bob)[0].secret
    CalendarFeed.objects.get_or_create(member=alice)
    for args in (
        [alice.pk, bobs],  # bob's secret on alice's address
        [alice.pk, "x" * 43],
        [alice.pk, bobs + "x"],
        [999999, bobs],
    ):
        path = reverse("notifications:calendar-member", args=args)
        assert Client().get(path).status_code == 404, args
    assert Client().get(_feed_path(bob)).status_code == 200


def test_a_rotated_secret_stops_working_and_the_settings_page_shows_the_new_one(alice):
    client = _client(alice)
    page = client.get(reverse("notifications:settings")).content.decode()
    old_path = _feed_path(alice)
    assert f'value="http://testserver{old_path}"' in page
    assert Client().get(old_path).status_code == 200

    response = client.post(reverse("notifications:calendar-rotate"))
    assert response.status_code == 302
    new_path = _feed_path(alice)
    assert new_path != old_path
    assert Client().get(old_path).status_code == 404
    assert Client().get(new_path).status_code == 200
    assert f'value="http://testserver{new_path}"' in client.get(response.url).content.decode()
    # Only the member herself rotates, by POST.
    assert client.get(reverse("notifications:calendar-rotate")).status_code == 405
    anonymous = Client().post(reverse("notifications:calendar-rotate"))
    assert anonymous.status_code == 302
    assert "/accounts/" in anonymous.url
    assert _feed_path(alice) == new_path


def _tournament(organiser, players, *, name: str, visibility: str):
    return organising.create_round_robin(
        organiser=organiser,
        name=name,
        players=players,
        first_kickoff=NOW + timedelta(days=7),
        interval=timedelta(days=7),
        visibility_=visibility,
    )


def test_a_public_tournaments_feed_is_public_and_a_members_only_one_needs_a_secret(
    organiser, alice, bob, make_member
):
    carol = make_member("carol")
    with time_machine.travel(NOW, tick=False):
        public = _tournament(organiser, [alice, bob, carol], name="Open Cup", visibility="public")
        private = _tournament(organiser, [alice, bob], name="Club Cup", visibility="members")
    public_path = reverse("notifications:calendar-tournament", args=[public.pk])
    response = Client().get(public_path)
    cal = _read(response)
    assert "public" in response["Cache-Control"]
    assert str(cal["X-WR-CALNAME"]) == "Word Duel: Open Cup"
    events = cal.walk("VEVENT")
    assert len(events) == 3 == public.matches.count()
    assert {event["DTSTART"].dt for event in events} <= {
        NOW + timedelta(days=7 * k) for k in (1, 2, 3)
    }
    assert all(str(event["STATUS"]) == "CONFIRMED" for event in events)

    # Members-only: no public feed (as its page is not public), even for a guessed number.
    private_path = reverse("notifications:calendar-tournament", args=[private.pk])
    assert Client().get(private_path).status_code == 404
    assert Client().get(reverse("notifications:calendar-tournament", args=[9999])).status_code == (
        404
    )
    # A member's secret opens it; a wrong secret does not.
    secret = CalendarFeed.objects.get_or_create(member=carol)[0].secret
    with_secret = reverse(
        "notifications:calendar-member-tournament", args=[carol.pk, secret, private.pk]
    )
    assert len(_read(Client().get(with_secret)).walk("VEVENT")) == 1
    wrong = reverse(
        "notifications:calendar-member-tournament", args=[carol.pk, secret[:-1], private.pk]
    )
    assert Client().get(wrong).status_code == 404

    # One members-only fixture makes a public tournament's feed private too: the feed never
    # shows what its page would not.
    hidden = public.matches.order_by("id").first()
    Match.objects.filter(pk=hidden.pk).update(visibility=Match.Visibility.MEMBERS)
    assert Client().get(public_path).status_code == 404

    # The tournament pages link to the right feed: the public one for anyone, the member's
    # own address for a members-only tournament.
    open_page = Client().get(reverse("tournament", args=[public.pk]))
    assert open_page.status_code == 404  # no longer public
    Match.objects.filter(pk=hidden.pk).update(visibility=Match.Visibility.PUBLIC)
    open_page = Client().get(reverse("tournament", args=[public.pk])).content.decode()
    assert f'href="http://testserver{public_path}" id="tournament-calendar"' in open_page
    club_page = _client(carol).get(reverse("tournament", args=[private.pk])).content.decode()
    assert f'href="http://testserver{with_secret}" id="tournament-calendar"' in club_page


def test_an_abandoned_fixture_is_cancelled_and_one_without_a_time_is_left_out(
    make_fixture, alice, bob
):
    with time_machine.travel(NOW, tick=False):
        waiting = make_fixture(first=alice, name="Whenever")  # starts when both are seated
        gone = make_fixture(
            first=alice, second=bob, name="Gone", kickoff_at=NOW + timedelta(hours=2)
        )
    Match.objects.filter(pk=gone.pk).update(status=Match.Status.ABANDONED)
    events = _events(_read(Client().get(_feed_path(alice))))
    assert f"match-{waiting.id}@wordduel.invalid" not in events
    assert str(events[f"match-{gone.id}@wordduel.invalid"]["STATUS"]) == "CANCELLED"


def test_a_match_begun_at_once_is_not_called_a_kick_off(alice, fixtures):
    """A fixture with no kick-off time (a challenge, a rematch, one seated both at once)
    began when both seats were taken: its event says so, as its notices do ("has begun"),
    never "Kick-off", which it never had. Found by the season (tests/season)."""
    with time_machine.travel(NOW + timedelta(minutes=5), tick=False):
        events = _events(_read(Client().get(_feed_path(alice))))
    her_move = fixtures["her_move"]
    begun = events[f"match-{her_move.id}@wordduel.invalid"]
    assert str(begun["SUMMARY"]) == "Began: Her move: alice v carol"
    assert begun["DTSTART"].dt == NOW  # when both seats were taken
    to_come = events[f"match-{fixtures['to_come'].id}@wordduel.invalid"]
    assert str(to_come["SUMMARY"]) == "Kick-off: Spring friendly: alice v bob"
