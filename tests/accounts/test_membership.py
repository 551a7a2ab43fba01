"""Club membership: how people join (open, approval, invitation), organisers deciding
sign-ups and invitation links, and "member" meaning an approved member."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from accounts import services
from accounts.errors import InvitationUnusable, MembershipRefused, SignUpRefused
from accounts.models import Club, Invitation, Member
from matches import services as match_services
from matches.models import Match, Seat
from tournaments import services as organising

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-enough-pass-phrase"


def sign_up(client: Client, username: str, invite: str = "", **extra: Any) -> Any:
    return client.post(
        "/accounts/sign-up/",
        {
            "username": username,
            "password1": PASSWORD,
            "password2": PASSWORD,
            "invite": invite,
            **extra,
        },
    )


def set_policy(organiser: Member, policy: str) -> None:
    services.club_set_sign_up(organiser=organiser, sign_up=policy)


def state() -> tuple[Any, ...]:
    return (
        sorted(Member.objects.values_list("username", "membership")),
        list(Invitation.objects.order_by("pk").values()),
        list(Club.objects.values()),
    )


def test_existing_accounts_and_admin_made_accounts_are_members(make_member) -> None:
    assert make_member("old").membership == Member.Membership.APPROVED
    assert Club.current().sign_up == Club.SignUp.APPROVAL  # the default for a new club


def test_open_sign_up_makes_a_member(organiser) -> None:
    set_policy(organiser, Club.SignUp.OPEN)
    response = sign_up(Client(), "newcomer")
    assert response.status_code == 302
    assert Member.objects.get(username="newcomer").is_club_member


def test_approval_sign_up_waits_and_the_organiser_decides(organiser) -> None:
    set_policy(organiser, Club.SignUp.APPROVAL)
    client = Client()
    assert sign_up(client, "hopeful").status_code == 302
    hopeful = Member.objects.get(username="hopeful")
    assert hopeful.membership == Member.Membership.PENDING
    # Signed in, but not a member: the profile says so.
    assert "waits for an organiser" in client.get("/accounts/profile/").content.decode()

    organiser_client = Client()
    organiser_client.force_login(organiser)
    page = organiser_client.get("/accounts/members/").content.decode()
    assert "Approve hopeful" in page
    response = organiser_client.post(
        "/accounts/members/decide/", {"member_id": hopeful.pk, "decision": "approve"}
    )
    assert response.status_code == 302
    hopeful.refresh_from_db()
    assert hopeful.is_club_member
    assert hopeful.membership_decided_by == organiser

    # Deciding again is refused and changes nothing.
    before = state()
    response = organiser_client.post(
        "/accounts/members/decide/", {"member_id": hopeful.pk, "decision": "decline"}
    )
    assert response.status_code == 409
    assert services.NO_SUCH_REQUEST in response.content.decode()
    assert state() == before


def test_a_declined_sign_up_is_not_a_member(organiser) -> None:
    sign_up(Client(), "stranger")
    stranger = Member.objects.get(username="stranger")
    services.membership_decide(organiser=organiser, member_id=stranger.pk, approve=False)
    stranger.refresh_from_db()
    assert stranger.membership == Member.Membership.REMOVED
    assert not stranger.is_club_member


def test_only_organisers_see_and_decide_requests(make_member) -> None:
    sign_up(Client(), "waiting")
    client = Client()
    client.force_login(make_member("plain"))
    before = state()
    assert client.get("/accounts/members/").status_code == 403
    waiting = Member.objects.get(username="waiting")
    response = client.post(
        "/accounts/members/decide/", {"member_id": waiting.pk, "decision": "approve"}
    )
    assert response.status_code == 403
    assert state() == before


def test_invitation_policy_refuses_a_sign_up_without_a_link(organiser) -> None:
    set_policy(organiser, Club.SignUp.INVITATION)
    before = state()
    response = sign_up(Client(), "gatecrasher")
    assert response.status_code == 403
    assert services.SIGN_UP_BY_INVITATION in response.content.decode()
    assert state() == before
    with pytest.raises(SignUpRefused):
        services.member_sign_up(member=Member(username="direct"))


def _invitation(organiser: Member, **kwargs: Any) -> Invitation:
    return services.invitation_create(
        organiser=organiser,
        expires_at=kwargs.pop("expires_at", timezone.now() + timedelta(days=7)),
        **kwargs,
    )


def test_an_invitation_link_admits_a_member_once(organiser) -> None:
    set_policy(organiser, Club.SignUp.INVITATION)
    invitation = _invitation(organiser)
    assert sign_up(Client(), "invited", invitation.token).status_code == 302
    assert Member.objects.get(username="invited").is_club_member
    # Single-use: the second sign-up through it is refused, and nothing changes.
    before = state()
    response = sign_up(Client(), "second", invitation.token)
    assert response.status_code == 403
    assert services.INVITATION_TEXTS["used_up"] in response.content.decode()
    assert state() == before


def test_a_multi_use_link_admits_as_many_as_it_allows(organiser) -> None:
    set_policy(organiser, Club.SignUp.INVITATION)
    invitation = _invitation(organiser, max_uses=2)
    for name in ("one", "two"):
        assert sign_up(Client(), name, invitation.token).status_code == 302
    assert sign_up(Client(), "three", invitation.token).status_code == 403
    assert Invitation.objects.get(pk=invitation.pk).uses == 2


def test_an_invitation_overrides_approval(organiser) -> None:
    invitation = _invitation(organiser)
    sign_up(Client(), "fasttrack", invitation.token)
    assert Member.objects.get(username="fasttrack").is_club_member


def test_an_expired_link_is_refused(organiser) -> None:
    set_policy(organiser, Club.SignUp.INVITATION)
    invitation = _invitation(organiser, expires_at=timezone.now() + timedelta(hours=1))
    with time_machine.travel(timezone.now() + timedelta(hours=2)):
        before = state()
        response = sign_up(Client(), "late", invitation.token)
        assert response.status_code == 403
        assert services.INVITATION_TEXTS["expired"] in response.content.decode()
        assert state() == before


def test_a_revoked_link_is_refused(organiser) -> None:
    set_policy(organiser, Club.SignUp.INVITATION)
    invitation = _invitation(organiser, max_uses=10)
    client = Client()
    client.force_login(organiser)
    assert (
        client.post("/accounts/invitations/revoke/", {"invitation_id": invitation.pk}).status_code
        == 302
    )
    before = state()
    response = sign_up(Client(), "toolate", invitation.token)
    assert response.status_code == 403
    assert services.INVITATION_TEXTS["revoked"] in response.content.decode()
    assert state() == before


def test_a_made_up_link_is_refused(organiser) -> None:
    set_policy(organiser, Club.SignUp.INVITATION)
    with pytest.raises(InvitationUnusable):
        services.member_sign_up(member=Member(username="x"), invitation_token="nonsense")
    assert not Member.objects.filter(username="x").exists()


def test_organisers_create_links_on_the_members_page(organiser, make_member) -> None:
    client = Client()
    client.force_login(organiser)
    response = client.post(
        "/accounts/invitations/new/", {"max_uses": 3, "days": 5, "note": "spring intake"}
    )
    assert response.status_code == 302
    invitation = Invitation.objects.get(note="spring intake")
    assert invitation.max_uses == 3
    assert invitation.created_by == organiser
    assert f"?invite={invitation.token}" in client.get("/accounts/members/").content.decode()
    # Bad values: a clear 400, nothing created.
    before = state()
    assert client.post("/accounts/invitations/new/", {"max_uses": 0, "days": 5}).status_code == 400
    assert state() == before
    other = Client()
    other.force_login(make_member("nosy"))
    before = state()
    assert other.post("/accounts/invitations/new/", {"max_uses": 1, "days": 5}).status_code == 403
    assert state() == before


def test_an_organiser_cannot_remove_themselves(organiser) -> None:
    with pytest.raises(MembershipRefused):
        services.membership_remove(organiser=organiser, member_id=organiser.pk)
    assert Member.objects.get(pk=organiser.pk).is_club_member


def test_pending_and_removed_accounts_are_refused_seats_and_pairings(
    organiser, make_member, make_fixture
) -> None:
    pending = make_member("pend")
    Member.objects.filter(pk=pending.pk).update(membership=Member.Membership.PENDING)
    pending.refresh_from_db()
    removed = make_member("gone")
    services.membership_remove(organiser=organiser, member_id=removed.pk)
    removed.refresh_from_db()
    match = make_fixture(name="Open seat")
    for account in (pending, removed):
        with pytest.raises(match_services.MembershipRequired) as refusal:
            match_services.match_take_seat(match_id=match.id, member=account)
        assert refusal.value.code == "members_only"
        with pytest.raises(match_services.InvalidFixture):
            organising.create_fixture(organiser=organiser, name="No", first=account)
    assert not Seat.objects.filter(match=match, member__isnull=False).exists()
    assert not Match.objects.filter(name="No").exists()


def test_the_demo_has_a_pending_sign_up_and_an_invitation_link() -> None:
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("demo", stdout=out)
    erin = Member.objects.get(username="erin")
    assert erin.membership == Member.Membership.PENDING
    [invitation] = Invitation.objects.all()
    assert invitation.state(timezone.now()) == "usable"
    assert f"?invite={invitation.token}" in out.getvalue()
    assert "erin signed up and waits for approval" in out.getvalue()
