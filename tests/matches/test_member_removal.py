"""Removing a member (issue 35): the organiser is asked first and shown the fixtures the
member holds; the member is withdrawn from them (a fixture not kicked off cancelled, a live
match lost) or a substitute takes their seats in the fixtures not kicked off; nobody stays seated
in a live or future fixture after leaving the club; removed and declined members can be
reinstated; and the organisers' fixture filter still finds a removed member's fixtures."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts import services as account_services
from accounts.errors import MembershipRefused
from accounts.models import Member
from matches import services
from matches.models import Match, OrganiserAction, Seat
from notifications.models import Kind, Notice
from tests.matches.helpers import commit_move, opening_play, rack_of, title_of
from tests.matches.test_ws_helpers import seeded_match
from tournaments import services as organising

pytestmark = pytest.mark.django_db


def _client(member: Member) -> Client:
    client = Client()
    client.force_login(member)
    return client


@pytest.fixture
def erins_season(organiser, make_fixture, make_member, alice, bob):
    """erin holds: a live match where she has moved, a live one where she has not, a
    fixture to come, and a finished one."""
    erin = make_member("erin")
    moved = seeded_match(make_fixture, erin, alice, seed=3)  # erin First, to move
    outcome = commit_move(
        match_id=moved.id,
        member=erin,
        move=opening_play(rack_of(moved, 0)),
        against_turn=0,
        client_id="erin-1",
    )
    assert outcome.accepted
    waiting = seeded_match(make_fixture, alice, erin, seed=4)  # alice to move, erin has not
    ahead = make_fixture(
        first=bob, second=erin, kickoff_at=timezone.now() + timedelta(days=3), name="Ahead"
    )
    done = make_fixture(first=erin, second=bob, name="Done")
    organising.match_adjudicate(organiser=organiser, match_id=done.id, ruling="draw",
                              reason="Agreed")  # fmt: skip
    return erin, {"moved": moved, "waiting": waiting, "ahead": ahead, "done": done}


def _status(match: Match) -> tuple:
    match.refresh_from_db()
    seats = list(Seat.objects.filter(match=match).order_by("position").values_list("member_id"))
    return match.status, match.end_reason, match.result, seats


def test_removing_asks_first_and_lists_the_fixtures_held(organiser, erins_season):
    erin, matches = erins_season
    client = _client(organiser)
    members = client.get("/accounts/members/").content.decode()
    # The members page links to the question; it removes nobody by itself.
    assert f'href="/accounts/members/{erin.pk}/remove/"' in members
    assert 'action="/accounts/members/remove/"' not in members

    before = {name: _status(match) for name, match in matches.items()}
    asked = client.get(f"/accounts/members/{erin.pk}/remove/")
    assert asked.status_code == 200
    page = asked.content.decode()
    for name in ("moved", "waiting", "ahead"):
        assert title_of(matches[name]) in page
    assert title_of(matches["done"]) not in page  # over: nothing to settle
    assert 'name="confirm" value="yes"' in page
    # A removal posted without the confirmation only asks again.
    again = client.post("/accounts/members/remove/", {"member_id": erin.pk})
    assert again.status_code == 200
    assert title_of(matches["ahead"]) in again.content.decode()
    erin.refresh_from_db()
    assert erin.is_club_member
    assert {name: _status(match) for name, match in matches.items()} == before


def test_a_withdrawn_member_leaves_no_seat_in_a_live_or_future_fixture(
    organiser, erins_season, alice, bob
):
    erin, matches = erins_season
    done_before = _status(matches["done"])
    answer = _client(organiser).post(
        "/accounts/members/remove/",
        {"member_id": erin.pk, "confirm": "yes", "fixtures": "withdraw", "reason": "Moved away"},
    )
    assert answer.status_code == 302
    erin.refresh_from_db()
    assert erin.membership == Member.Membership.REMOVED

    # Live matches: a win for the opponent, whether she had moved or not.
    for name, winner in (("moved", "second"), ("waiting", "first")):
        match = matches[name]
        match.refresh_from_db()
        assert (match.status, match.end_reason, match.result) == ("finished", "withdrawn", winner)
    # The fixture to come: cancelled, no result.
    ahead = matches["ahead"]
    ahead.refresh_from_db()
    assert (ahead.status, ahead.end_reason, ahead.result) == ("abandoned", "cancelled", "")
    # The finished one is as it was.
    assert _status(matches["done"]) == done_before
    assert not Seat.objects.filter(
        member=erin, match__status__in=[Match.Status.LIVE, Match.Status.SCHEDULED]
    ).exists()
    # Each ruling is in the trail, with the reason, for everyone who may watch.
    for name in ("moved", "waiting", "ahead"):
        action = OrganiserAction.objects.get(match=matches[name])
        assert (action.kind, action.reason) == ("withdraw", "Moved away")
    # The opponents are told the result.
    for member, name in ((alice, "moved"), (alice, "waiting"), (bob, "ahead")):
        assert Notice.objects.filter(member=member, match=matches[name], kind=Kind.RESULT).exists()
    page = Client().get(f"/matches/{ahead.id}/").content.decode()
    assert "Cancelled by an organiser: no result" in page
    assert "erin withdrawn: the fixture cancelled" in page


def test_a_substitute_takes_the_seats_not_yet_kicked_off_and_the_rest_is_withdrawn(
    organiser, erins_season, make_member, alice, bob
):
    erin, matches = erins_season
    carol = make_member("carol")
    answer = _client(organiser).post(
        "/accounts/members/remove/",
        {
            "member_id": erin.pk,
            "confirm": "yes",
            "fixtures": "substitute",
            "substitute": "carol",
            "reason": "Injured",
        },
    )
    assert answer.status_code == 302
    ahead = matches["ahead"]  # erin sat Second, before kick-off: carol takes the seat
    assert Seat.objects.get(match=ahead, member=carol).position == 1
    assert not Match.objects.get(pk=ahead.pk).is_over
    assert "carol" in title_of(ahead)
    assert "erin" not in title_of(ahead)
    # Live matches are never handed over, moved in or not: each is a win for the opponent.
    for name, winner in (("moved", "second"), ("waiting", "first")):
        match = matches[name]
        match.refresh_from_db()
        assert (match.end_reason, match.result) == ("withdrawn", winner)
        assert not Seat.objects.filter(match=match, member=carol).exists()
    assert Notice.objects.filter(member=carol, kind=Kind.FIXTURE).count() == 1
    assert Notice.objects.filter(member=alice, kind=Kind.SUBSTITUTE).count() == 0
    assert Notice.objects.filter(member=bob, kind=Kind.SUBSTITUTE).count() == 1


def test_a_bad_substitute_changes_nothing(organiser, erins_season):
    erin, matches = erins_season
    before = {name: _status(match) for name, match in matches.items()}
    answer = _client(organiser).post(
        "/accounts/members/remove/",
        {"member_id": erin.pk, "confirm": "yes", "fixtures": "substitute", "substitute": "zoe"},
    )
    assert answer.status_code == 400
    assert "There is no member called &#x27;zoe&#x27;." in answer.content.decode()
    answer = _client(organiser).post(
        "/accounts/members/remove/",
        {"member_id": erin.pk, "confirm": "yes", "fixtures": "substitute", "substitute": ""},
    )
    assert answer.status_code == 400
    assert "Name the member who takes their seats." in answer.content.decode()
    with pytest.raises(services.InvalidFixture):
        account_services.membership_remove(
            organiser=organiser, member_id=erin.pk, substitute_id=erin.pk
        )
    erin.refresh_from_db()
    assert erin.is_club_member
    assert {name: _status(match) for name, match in matches.items()} == before


def test_removed_and_declined_members_can_be_reinstated(organiser, make_member):
    gone = make_member("gone")
    account_services.membership_remove(organiser=organiser, member_id=gone.pk)
    waiting = make_member("waiting")
    Member.objects.filter(pk=waiting.pk).update(membership=Member.Membership.PENDING)
    account_services.membership_decide(organiser=organiser, member_id=waiting.pk, approve=False)
    client = _client(organiser)
    page = client.get("/accounts/members/").content.decode()
    assert "Reinstate gone" in page
    assert "Reinstate waiting" in page
    for member in (gone, waiting):
        answer = client.post("/accounts/members/reinstate/", {"member_id": member.pk})
        assert answer.status_code == 302
        member.refresh_from_db()
        assert member.is_club_member
    # A member, or a deleted account, cannot be "reinstated".
    refused = client.post("/accounts/members/reinstate/", {"member_id": gone.pk})
    assert refused.status_code == 409
    assert "There is no such removed or declined member to reinstate." in refused.content.decode()
    deleted = make_member("deleted")
    account_services.account_delete(member=deleted)
    with pytest.raises(MembershipRefused):
        account_services.membership_reinstate(organiser=organiser, member_id=deleted.pk)


def test_the_fixture_filter_finds_a_removed_members_fixtures(organiser, make_fixture, make_member):
    erin = make_member("erin")
    match = make_fixture(first=erin, name="Old game")
    Member.objects.filter(pk=erin.pk).update(membership=Member.Membership.REMOVED)
    answer = _client(organiser).get("/organise/fixtures/", {"member": "erin"})
    assert answer.status_code == 200
    page = answer.content.decode()
    assert "There is no member called" not in page
    assert f'id="fixture-{match.id}"' in page
    assert "erin is not an approved member of the club" in page
    unknown = _client(organiser).get("/organise/fixtures/", {"member": "nobody"})
    assert unknown.status_code == 400
    assert "There is no member called &#x27;nobody&#x27;." in unknown.content.decode()
