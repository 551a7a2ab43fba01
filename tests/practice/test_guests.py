"""Guests: a visitor plays the computer at once without an account (a signed cookie naming a
guest account), sees its own game and nothing of members-only play, is bounded per address
and to one unfinished game, is swept when idle, is never rated, and on sign-up in the same
browser its games become the new member's."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth.models import AnonymousUser
from django.test import Client
from django.utils import timezone

from accounts.guests import GUEST_COOKIE, adopt_guest, guest_id_from_cookie
from accounts.models import Club, Member
from common.errors import ServiceError
from matches import services, visibility
from matches.models import CommitReceipt, Match, Seat, Turn
from notifications.models import Notice
from practice.guests import GUEST_UNFINISHED, start_guest_practice, sweep_idle_guests
from practice.models import ComputerOpponent
from practice.services import PracticeRefused, computer_member, start_practice
from ratings.models import Rating, RatingChange
from tests.practice.test_practice import members_move

pytestmark = pytest.mark.django_db

PASSWORD = "kq7-Vwz3-Pm9t-guest"


def play_now(client: Client, **extra: object):
    return client.post("/practice/now/", {"level": "easy"}, **extra)


def guest_of(client: Client) -> Member:
    guest_id = guest_id_from_cookie(client.cookies[GUEST_COOKIE].value)
    return Member.objects.get(pk=guest_id)


def test_a_visitor_plays_at_once_as_a_guest_and_reloading_continues_the_game() -> None:
    visitor = Client()
    assert "Play the computer now" in visitor.get("/").content.decode()
    assert "Play the computer now" in visitor.get("/accounts/sign-in/").content.decode()
    started = play_now(visitor)
    assert started.status_code == 302
    guest = guest_of(visitor)
    assert guest.is_guest
    assert not guest.is_active
    assert not guest.has_usable_password()
    assert not guest.is_club_member
    match = Match.objects.get(seats__member=guest)
    assert started["Location"] == f"/matches/{match.id}/"
    assert match.status == Match.Status.LIVE
    assert match.rated is False
    assert {seat.position: seat.member for seat in match.seats.all()} == {
        0: guest,
        1: computer_member(),
    }
    cookie = visitor.cookies[GUEST_COOKIE]
    assert cookie["httponly"]
    assert cookie["samesite"] == "Lax"
    assert not cookie["secure"]

    page = visitor.get(started["Location"])
    assert page.status_code == 200
    access = services.look_at_match(user=guest, match_id=match.id, key=None)
    assert visibility.match_view(access).your_seat == 0
    assert visibility.match_page(access).can_share is False  # no viewing link for a guest
    # The guest changes the computer's level on its page, as a member does.
    assert 'id="computer-level"' in page.content.decode()
    changed = visitor.post(f"/practice/{match.id}/level/", {"level": "hard"}, follow=True)
    assert "The computer now plays Hard." in changed.content.decode()
    assert ComputerOpponent.objects.get(match=match).level == "hard"
    refused = Client().post(f"/practice/{match.id}/level/", {"level": "easy"})
    assert refused.status_code == 302
    assert refused["Location"].startswith("/accounts/sign-in/")
    assert ComputerOpponent.objects.get(match=match).level == "hard"
    # Its replay steps, as the page's "Show again" asks the API for them: the guest's alone.
    assert visitor.get(f"/api/matches/{match.id}/replay?turn=0").status_code == 200
    assert Client().get(f"/api/matches/{match.id}/replay?turn=0").status_code == 404
    assert Client().get(started["Location"]).status_code == 404
    # No player's page: a guest is no member.
    assert visitor.get(f"/players/{guest.username}/").status_code == 404
    # "Play the computer now" again: back to the one unfinished game, nothing new made.
    again = play_now(visitor, follow=True)
    assert again.redirect_chain[-1][0] == f"/matches/{match.id}/"
    assert GUEST_UNFINISHED in again.content.decode()
    assert Match.objects.filter(seats__member=guest).count() == 1
    assert Member.objects.filter(membership=Member.Membership.GUEST).count() == 1


def test_the_cookie_is_secure_over_https_and_a_forged_one_is_nobody() -> None:
    visitor = Client()
    assert play_now(visitor, secure=True).status_code == 302
    assert visitor.cookies[GUEST_COOKIE]["secure"]
    match = Match.objects.get(seats__member=guest_of(visitor))
    forger = Client()
    forger.cookies[GUEST_COOKIE] = str(guest_of(visitor).pk)  # unsigned
    assert forger.get(f"/matches/{match.id}/").status_code == 404
    assert guest_id_from_cookie(str(guest_of(visitor).pk)) is None


def test_guests_are_refused_members_only_pages_and_play(alice, bob, make_fixture) -> None:
    members_only = make_fixture(first=alice, second=bob, visibility=Match.Visibility.MEMBERS)
    open_seat = make_fixture(first=alice, visibility=Match.Visibility.PUBLIC)
    visitor = Client()
    play_now(visitor)
    guest = guest_of(visitor)
    for path in (
        "/me/matches/",
        "/notifications/settings/",
        "/notifications/waiting/",
        "/accounts/my-data/",
        "/imports/",
        "/accounts/profile/",
        "/accounts/members/",
    ):
        response = visitor.get(path)
        assert response.status_code in (302, 403, 404), path  # sign in, or a plain refusal
        if response.status_code == 302:
            assert response["Location"].startswith("/accounts/sign-in/"), path
    # A members-only match of others is not found, for the page and the guest's account alike.
    assert visitor.get(f"/matches/{members_only.id}/").status_code == 404
    with pytest.raises(visibility.MatchHidden):
        services.look_at_match(user=guest, match_id=members_only.id, key=None)
    # Nor a member's game against the computer.
    members_game = start_practice(member=alice)
    assert visitor.get(f"/matches/{members_game.id}/").status_code == 404
    # The home page lists no members-only match to a guest.
    home = visitor.get("/").content.decode()
    assert f"/matches/{members_only.id}/" not in home
    assert f"/matches/{open_seat.id}/" in home  # what any visitor sees, a guest sees
    # A guest is no member: not in the member lists, cannot take a seat.
    assert guest not in Member.objects.filter(membership=Member.Membership.APPROVED)
    with pytest.raises(ServiceError) as refused:
        services.match_take_seat(match_id=open_seat.id, member=guest, position=1)
    assert refused.value.code == "members_only"


def test_an_address_starts_a_bounded_number_of_guest_games_a_day(settings) -> None:
    settings.GUEST_MATCHES_PER_ADDRESS_DAY = 2
    address = {"REMOTE_ADDR": "203.0.113.7"}
    for _ in range(2):
        assert play_now(Client(), **address).status_code == 302
    refused = play_now(Client(), follow=True, **address)
    assert "Too many games against the computer from here today." in refused.content.decode()
    assert Match.objects.filter(computers__isnull=False).distinct().count() == 2
    assert Member.objects.filter(membership=Member.Membership.GUEST).count() == 2
    # Another address has its own allowance.
    assert play_now(Client(), REMOTE_ADDR="198.51.100.9").status_code == 302
    with pytest.raises(PracticeRefused):
        start_guest_practice(guest_id=None, address="203.0.113.7")


def test_the_sweep_deletes_idle_guests_and_their_games_and_is_safe_to_rerun(
    settings, eager_tasks, django_capture_on_commit_callbacks
) -> None:
    settings.GUEST_IDLE_DAYS = 2  # (under the turn's 3 days, so the active game stays live)
    idle_game = start_guest_practice(guest_id=None, address="192.0.2.1")
    idle_guest = idle_game.created_by
    active_game = start_guest_practice(guest_id=None, address="192.0.2.2")
    active_guest = active_game.created_by
    later = timezone.now() + timedelta(days=1)
    with (
        time_machine.travel(later, tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        members_move(active_game, active_guest, seed=3)  # and the computer answers
    assert sweep_idle_guests(now=timezone.now() + timedelta(days=1, hours=12)) == []
    swept_at = timezone.now() + timedelta(days=2, hours=12)
    assert sweep_idle_guests(now=swept_at) == [idle_guest.pk]
    assert not Match.objects.filter(pk=idle_game.pk).exists()
    assert not Member.objects.filter(pk=idle_guest.pk).exists()
    assert not ComputerOpponent.objects.filter(match_id=idle_game.pk).exists()
    assert Match.objects.filter(pk=active_game.pk).exists()  # a move a day in: not idle
    assert sweep_idle_guests(now=swept_at) == []  # again: nothing more
    assert sweep_idle_guests(now=later + timedelta(days=2, hours=1)) == [active_guest.pk]
    assert not Turn.objects.filter(match_id=active_game.pk).exists()
    assert computer_member().is_active is False  # the computer's account is no guest: kept


def test_a_guest_match_is_never_rated(eager_tasks, django_capture_on_commit_callbacks) -> None:
    match = start_guest_practice(guest_id=None, address="192.0.2.3")
    guest = match.created_by
    with django_capture_on_commit_callbacks(execute=True):
        members_move(match, guest, seed=1)
        services.match_resign(match_id=match.id, member=guest, client_id="resign-1")
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.rated is False
    assert not Rating.objects.exists()
    assert not RatingChange.objects.exists()
    assert not Notice.objects.filter(member=guest).exists()  # never told, so never emailed


def test_signing_up_in_the_same_browser_makes_the_guests_games_the_members(
    eager_tasks, django_capture_on_commit_callbacks
) -> None:
    Club.objects.update_or_create(pk=1, defaults={"sign_up": Club.SignUp.OPEN})
    visitor = Client()
    play_now(visitor)
    guest = guest_of(visitor)
    match = Match.objects.get(seats__member=guest)
    with django_capture_on_commit_callbacks(execute=True):
        members_move(match, guest, seed=2)
    signed_up = visitor.post(
        "/accounts/sign-up/",
        {"username": "newcomer", "display_name": "", "password1": PASSWORD, "password2": PASSWORD},
        follow=True,
    )
    assert signed_up.status_code == 200
    member = Member.objects.get(username="newcomer")
    assert not Member.objects.filter(pk=guest.pk).exists()  # retired
    assert Seat.objects.get(match=match, position=0).member == member
    assert Match.objects.get(pk=match.pk).created_by == member
    assert CommitReceipt.objects.filter(match=match, member=member).exists()
    assert "Your games as a guest are now yours" in signed_up.content.decode()
    assert visitor.cookies[GUEST_COOKIE].value == ""  # the cookie goes
    listed = visitor.get("/me/matches/").content.decode()
    assert f"/matches/{match.id}/" in listed
    assert visitor.get(f"/matches/{match.id}/").status_code == 200
    # The member plays on where the guest left off.
    with django_capture_on_commit_callbacks(execute=True):
        members_move(match, member, seed=4)
    assert Turn.objects.filter(match=match).count() >= 3


def test_adoption_refuses_typed_and_changes_nothing(alice) -> None:
    match = start_guest_practice(guest_id=None, address="192.0.2.4")
    guest = match.created_by
    assert guest is not None
    with pytest.raises(ServiceError) as refused:
        adopt_guest(guest_id=guest.pk, member=guest)
    assert refused.value.code == "guest_refused"
    with pytest.raises(ServiceError) as refused:
        adopt_guest(guest_id=alice.pk, member=alice)
    assert refused.value.code == "guest_refused"
    with pytest.raises(ServiceError) as gone:
        adopt_guest(guest_id=guest.pk + 10_000, member=alice)
    assert gone.value.code == "guest_unknown"
    assert Seat.objects.get(match=match, position=0).member == guest


def test_on_a_match_it_does_not_sit_in_a_guest_sees_what_any_visitor_sees(
    alice, bob, make_fixture
) -> None:
    public = make_fixture(first=alice, second=bob, visibility=Match.Visibility.PUBLIC)
    guest = start_guest_practice(guest_id=None, address="192.0.2.5").created_by
    as_guest = services.look_at_match(user=guest, match_id=public.id, key=None)
    as_visitor = services.look_at_match(user=AnonymousUser(), match_id=public.id, key=None)
    assert as_guest.role == as_visitor.role == visibility.Role.VISITOR
    assert visibility.match_page(as_guest) == visibility.match_page(as_visitor)
    assert visibility.match_view(as_guest) == visibility.match_view(as_visitor)
