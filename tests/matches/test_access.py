"""Who may do what: every role against every page and every service.

Roles: a signed-out visitor, a signed-out visitor holding the match's viewing key (and one
holding a wrong key), a member, a signed-in account whose sign-up still waits for an
organiser ("pending"), one an organiser removed from the club ("removed"), the seated player
(First), the opponent (Second) and an organiser. Pending and removed accounts are signed in
but are not members: they see what a signed-out visitor sees and take no seat. Allowed
requests work; refused ones answer 403/404/409 or a clear message, and the
database is exactly as it was before.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from accounts import services as account_services
from accounts.models import Member
from matches import services
from matches.models import Match, Seat, Tournament, Turn
from tests.matches.helpers import commit_move
from tournaments import services as organising

pytestmark = pytest.mark.django_db

ROLES = (
    "anonymous",
    "key_holder",
    "wrong_key",
    "pending",
    "removed",
    "member",
    "player",
    "opponent",
    "organiser",
)
SIGNED_OUT = ("anonymous", "key_holder", "wrong_key")
#: Signed in, not (or no longer) an approved member.
NOT_MEMBERS = ("pending", "removed")
KICKOFF = datetime(2031, 5, 4, 18, 0, tzinfo=UTC)


def db_state() -> tuple[Any, ...]:
    """Every row a request could change, to show that a refused one changed nothing."""
    return (
        list(Match.objects.order_by("pk").values()),
        list(Seat.objects.order_by("pk").values()),
        list(Turn.objects.order_by("pk").values()),
        list(Tournament.objects.order_by("pk").values()),
        sorted(Member.objects.values_list("pk", "username", "password")),
        sorted(Member.user_permissions.through.objects.values_list("member_id", "permission_id")),
    )


@dataclass
class World:
    organiser: Member
    player: Member
    opponent: Member
    member: Member
    pending: Member
    removed: Member
    #: Members-only, alice v bob, live (no kick-off time).
    live: Match
    #: Members-only, alice First, Second free, kick-off to come.
    open_members: Match
    #: Public, alice First, Second free, kick-off to come.
    open_public: Match
    #: Members-only round robin of alice and bob.
    tournament: Tournament

    def user(self, role: str) -> Member | None:
        return {
            "member": self.member,
            "pending": self.pending,
            "removed": self.removed,
            "player": self.player,
            "opponent": self.opponent,
            "organiser": self.organiser,
        }.get(role)


@pytest.fixture
def world(organiser, make_member, make_fixture) -> World:
    alice, bob, carol = make_member("alice"), make_member("bob"), make_member("carol")
    pending = make_member("pending")
    Member.objects.filter(pk=pending.pk).update(membership=Member.Membership.PENDING)
    pending.refresh_from_db()
    removed = account_services.membership_remove(
        organiser=organiser, member_id=make_member("removed").pk
    )
    live = make_fixture(
        first=alice, second=bob, visibility=Match.Visibility.MEMBERS, name="Members live"
    )
    with time_machine.travel(KICKOFF - timedelta(days=1), tick=False):
        open_members = make_fixture(
            first=alice,
            kickoff_at=KICKOFF,
            visibility=Match.Visibility.MEMBERS,
            name="Members open",
        )
        open_public = make_fixture(first=alice, kickoff_at=KICKOFF, name="Public open")
        tournament = organising.create_round_robin(
            organiser=organiser,
            name="Members cup",
            players=[alice, bob],
            first_kickoff=KICKOFF,
            interval=timedelta(hours=24),
            visibility_=Match.Visibility.MEMBERS,
        )
    return World(
        organiser, alice, bob, carol, pending, removed, live, open_members, open_public, tournament
    )


def client_for(world: World, role: str) -> Client:
    client = Client()
    user = world.user(role)
    if user is not None:
        client.force_login(user)
    return client


def key_for(match: Match, role: str) -> dict[str, str]:
    """The ``key`` parameter a role presents for ``match``."""
    if role == "key_holder":
        return {"key": match.viewing_key}
    if role == "wrong_key":
        return {"key": "not-the-key"}
    return {}


def _before_kickoff():
    return time_machine.travel(KICKOFF - timedelta(hours=1), tick=False)


# ------------------------------------------------------------------ the match page


MATCH_PAGE = {
    "anonymous": 404,
    "key_holder": 200,
    "wrong_key": 404,
    "pending": 404,
    "removed": 404,
    "member": 200,
    "player": 200,
    "opponent": 200,
    "organiser": 200,
}


@pytest.mark.parametrize("role", ROLES)
def test_members_only_match_page(world, role) -> None:
    before = db_state()
    response = client_for(world, role).get(f"/matches/{world.live.id}/", key_for(world.live, role))
    assert response.status_code == MATCH_PAGE[role]
    assert db_state() == before
    if response.status_code == 404:
        assert world.live.name not in response.content.decode()  # existence not revealed
        return
    html = response.content.decode()
    assert world.live.name in html
    shares_roles = ("player", "opponent", "organiser")
    shares = role in shares_roles
    assert ('id="share-link"' in html) is shares
    if role not in ("key_holder", *shares_roles):
        assert world.live.viewing_key not in html
    assert ("New viewing key" in html) is (role == "organiser")
    assert ('id="your-rack"' in html) is (role in ("player", "opponent"))


@pytest.mark.parametrize("role", ROLES)
def test_public_match_page_is_open_to_everyone(world, role) -> None:
    before = db_state()
    with _before_kickoff():
        response = client_for(world, role).get(
            f"/matches/{world.open_public.id}/", key_for(world.open_public, role)
        )
    assert response.status_code == 200
    assert db_state() == before
    html = response.content.decode()
    assert 'id="share-link"' not in html  # nothing to share on a public match
    assert ("Take a seat" in html) is (role in ("member", "opponent", "organiser"))
    assert ("Sign in to take a seat" in html) is (role in SIGNED_OUT)
    assert ("Only approved club members can take a seat." in html) is (role in NOT_MEMBERS)
    assert ("You are seated as First" in html) is (role == "player")


# ------------------------------------------------------------------ taking a seat

TAKE_SEAT_MEMBERS_ONLY = {
    "anonymous": 404,
    "key_holder": 403,
    "wrong_key": 404,
    "pending": 404,
    "removed": 404,
    "member": 302,
    "player": 409,
    "opponent": 302,
    "organiser": 302,
}
TAKE_SEAT_PUBLIC = {
    **TAKE_SEAT_MEMBERS_ONLY,
    "anonymous": 403,
    "wrong_key": 403,
    "pending": 403,
    "removed": 403,
}


@pytest.mark.parametrize("visibility", ["members", "public"])
@pytest.mark.parametrize("role", ROLES)
def test_take_a_seat(world, role, visibility) -> None:
    match = world.open_members if visibility == "members" else world.open_public
    expected = (TAKE_SEAT_MEMBERS_ONLY if visibility == "members" else TAKE_SEAT_PUBLIC)[role]
    before = db_state()
    with _before_kickoff():
        response = client_for(world, role).post(
            f"/matches/{match.id}/seat/", {"position": 1, **key_for(match, role)}
        )
    assert response.status_code == expected
    second = Seat.objects.get(match=match, position=1)
    if expected == 302:
        assert second.member == world.user(role)
        assert response["Location"] == f"/matches/{match.id}/"
    else:
        assert db_state() == before
        assert second.member is None
    html = response.content.decode()
    if expected == 403 and role in NOT_MEMBERS:
        assert "Only approved club members can take a seat." in html
    elif expected == 403:
        assert "Sign in to take a seat." in html
    if expected == 409:
        assert "You already have a seat in this match." in html


@pytest.mark.parametrize("role", ["member", "organiser"])
def test_no_seat_in_a_full_match(world, role) -> None:
    before = db_state()
    response = client_for(world, role).post(f"/matches/{world.live.id}/seat/", {"position": 0})
    assert response.status_code == 409
    assert "That seat is taken." in response.content.decode()
    assert db_state() == before


def test_a_nonsense_seat_is_a_bad_request(world) -> None:
    before = db_state()
    with _before_kickoff():
        response = client_for(world, "member").post(
            f"/matches/{world.open_public.id}/seat/", {"position": "7"}
        )
    assert response.status_code == 400
    assert db_state() == before


def test_taking_a_seat_needs_a_post(world) -> None:
    response = client_for(world, "member").get(f"/matches/{world.open_public.id}/seat/")
    assert response.status_code == 405


# ------------------------------------------------------------------ the viewing key

NEW_KEY = {
    "anonymous": 404,
    "key_holder": 403,
    "wrong_key": 404,
    "pending": 404,
    "removed": 404,
    "member": 403,
    "player": 403,
    "opponent": 403,
    "organiser": 302,
}


@pytest.mark.parametrize("role", ROLES)
def test_new_viewing_key(world, role) -> None:
    old_key = world.live.viewing_key
    before = db_state()
    response = client_for(world, role).post(
        f"/matches/{world.live.id}/key/", key_for(world.live, role)
    )
    assert response.status_code == NEW_KEY[role]
    new_key = Match.objects.get(pk=world.live.id).viewing_key
    if NEW_KEY[role] == 302:
        assert new_key != old_key
    else:
        assert new_key == old_key
        assert db_state() == before
    if NEW_KEY[role] == 403:
        assert "Only the organiser can change the viewing key." in response.content.decode()


# ------------------------------------------------------------------ other pages


def _expect(role: str, *, organiser: int, member: int, signed_out: int) -> int:
    if role == "organiser":
        return organiser
    return signed_out if role in SIGNED_OUT else member


@pytest.mark.parametrize("role", ROLES)
def test_organise_page_is_for_organisers(world, role) -> None:
    before = db_state()
    response = client_for(world, role).get("/organise/")
    assert response.status_code == _expect(role, organiser=200, member=403, signed_out=403)
    assert db_state() == before


@pytest.mark.parametrize("role", ROLES)
def test_scheduling_a_fixture_is_for_organisers(world, role) -> None:
    before = db_state()
    response = client_for(world, role).post(
        "/organise/fixture/",
        {
            "fixture-name": "By form",
            "fixture-ruleset": "word-duel",
            "fixture-visibility": "public",
            "fixture-no_show_minutes": "15",
        },
    )
    assert response.status_code == _expect(role, organiser=302, member=403, signed_out=403)
    if role == "organiser":
        assert Match.objects.filter(name="By form").exists()
    else:
        assert db_state() == before


@pytest.mark.parametrize("role", ROLES)
def test_creating_a_round_robin_is_for_organisers(world, role) -> None:
    before = db_state()
    response = client_for(world, role).post(
        "/organise/round-robin/",
        {
            "rr-name": "By form",
            "rr-players": "alice, bob, carol",
            "rr-first_kickoff": "2031-05-04T18:00",
            "rr-interval_hours": "24",
            "rr-meetings": "once",
            "rr-ruleset": "word-duel",
            "rr-visibility": "public",
        },
    )
    assert response.status_code == _expect(role, organiser=302, member=403, signed_out=403)
    if role == "organiser":
        assert Tournament.objects.get(name="By form").matches.count() == 3
    else:
        assert db_state() == before


@pytest.mark.parametrize("role", ROLES)
def test_my_matches_needs_signing_in(world, role) -> None:
    response = client_for(world, role).get("/me/matches/")
    expected = _expect(role, organiser=200, member=200, signed_out=302)
    assert response.status_code == expected
    if expected == 302:
        assert response["Location"].startswith("/accounts/sign-in/?next=/me/matches/")


@pytest.mark.parametrize("role", ROLES)
def test_members_only_tournament(world, role) -> None:
    # A match's key opens that match, not its tournament.
    key = key_for(world.tournament.matches.first(), role)
    response = client_for(world, role).get(f"/tournaments/{world.tournament.id}/", key)
    expected = _expect(role, organiser=200, member=200, signed_out=404)
    assert response.status_code == (404 if role in NOT_MEMBERS else expected)


@pytest.mark.parametrize("role", ROLES)
def test_home_lists_members_only_matches_to_members_only(world, role) -> None:
    with _before_kickoff():
        html = client_for(world, role).get("/").content.decode()
    assert f"/matches/{world.open_public.id}/" in html
    listed = f"/matches/{world.open_members.id}/" in html
    assert listed is (role not in (*SIGNED_OUT, *NOT_MEMBERS))


def test_unknown_pages_are_404(world) -> None:
    client = client_for(world, "organiser")
    assert client.get("/matches/999999/").status_code == 404
    assert client.get("/tournaments/999999/").status_code == 404
    assert client.post("/matches/999999/seat/").status_code == 404


# ------------------------------------------------------------------ the services themselves


@pytest.mark.parametrize(
    "role", ["anonymous", "pending", "removed", "member", "player", "opponent"]
)
def test_services_refuse_non_organisers(world, role) -> None:
    user = world.user(role) or AnonymousUser()
    before = db_state()
    with pytest.raises(services.NotAllowed):
        organising.create_fixture(organiser=user, name="Nope")
    with pytest.raises(services.NotAllowed):
        organising.create_round_robin(
            organiser=user,
            name="Nope",
            players=[world.player, world.opponent],
            first_kickoff=KICKOFF,
            interval=timedelta(hours=1),
        )
    with pytest.raises(services.NotAllowed):
        services.match_rotate_viewing_key(match_id=world.live.id, member=user)
    assert db_state() == before


@pytest.mark.parametrize("role", ["member", "opponent", "organiser"])
def test_only_the_player_to_move_commits(world, role) -> None:
    before = db_state()
    outcome = commit_move(
        match_id=world.live.id,
        member=world.user(role),
        move={"kind": "pass"},
        against_turn=0,
        client_id=f"{role}-1",
    )
    assert not outcome.accepted
    assert outcome.message == "It is not your turn."
    assert db_state()[:4] == before[:4]


def test_the_player_to_move_commits(world) -> None:
    outcome = commit_move(
        match_id=world.live.id,
        member=world.player,
        move={"kind": "pass"},
        against_turn=0,
        client_id="p-1",
    )
    assert outcome.accepted, outcome.message
    assert Match.objects.get(pk=world.live.id).turn_number == 1


def test_a_signed_out_visitor_takes_no_seat_through_the_service(world) -> None:
    before = db_state()
    with pytest.raises(services.NotAllowed):
        services.match_take_seat(match_id=world.open_public.id, member=AnonymousUser())
    assert db_state() == before
