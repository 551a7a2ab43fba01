"""One's own account: email verified by a link and password reset, both through a real SMTP
server; profile; signing out elsewhere; downloading one's data; deleting the account."""

from __future__ import annotations

import html
import io
import json
import re
import zipfile
from urllib.parse import urlparse

import pytest
from django.test import Client

from accounts import services
from accounts.errors import AccountRefused
from accounts.models import NAME_TAKEN, Member
from matches.models import Match, Seat
from notifications.services import settings_of
from tests.matches.helpers import commit_move
from tests.notifications.conftest import smtp_server  # noqa: F401 (the fixture)

pytestmark = pytest.mark.django_db

PASSWORD = "pw-correct-horse"


def signed_in(member: Member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def link_in(message) -> str:
    body = message.get_body(preferencelist=("plain",)).get_content()
    [url] = re.findall(r"https?://\S+", body)
    return urlparse(url).path


def test_email_verification_round_trip(alice, smtp_server) -> None:  # noqa: F811
    client = signed_in(alice)
    response = client.post("/accounts/email/", {"email": "alice@example.org"})
    assert response.status_code == 302
    alice.refresh_from_db()
    # Pending until confirmed: the account has no address yet.
    assert (alice.email, alice.pending_email) == ("", "alice@example.org")
    [message] = smtp_server.messages
    assert message["To"] == "alice@example.org"
    path = link_in(message)
    # An altered link is refused and changes nothing.
    assert Client().get(path[:-3] + "xyz/").status_code == 400
    assert Member.objects.get(pk=alice.pk).email == ""
    response = Client().get(path)
    assert response.status_code == 200
    alice.refresh_from_db()
    assert (alice.email, alice.email_verified, alice.pending_email) == (
        "alice@example.org",
        True,
        "",
    )
    # Once another address is confirmed, a link for this one no longer confirms anything.
    services.account_set_email(member=alice, email="new@example.org")
    token = services.email_verification_token(alice, "new@example.org")
    assert Client().get(f"/accounts/email/verify/{token}/").status_code == 200
    assert Client().get(path).status_code == 400
    assert Member.objects.get(pk=alice.pk).email == "new@example.org"


def test_password_reset_round_trip_needs_a_verified_address(alice, smtp_server) -> None:  # noqa: F811
    Member.objects.filter(pk=alice.pk).update(email="alice@example.org")
    client = Client()
    assert (
        client.post("/accounts/password/reset/", {"email": "alice@example.org"}).status_code == 302
    )
    assert smtp_server.messages == []  # not verified: no link
    Member.objects.filter(pk=alice.pk).update(email_verified=True)
    client.post("/accounts/password/reset/", {"email": "alice@example.org"})
    [message] = smtp_server.messages
    path = link_in(message)
    form_page = client.get(path, follow=True)
    assert form_page.status_code == 200
    set_url = form_page.redirect_chain[-1][0]
    response = client.post(
        set_url, {"new_password1": "a-brand-new-phrase", "new_password2": "a-brand-new-phrase"}
    )
    assert response.status_code == 302
    assert Member.objects.get(pk=alice.pk).check_password("a-brand-new-phrase")
    # The link is used up.
    assert "not valid" in Client().get(path, follow=True).content.decode()
    # Signing in with the new password works (django-axes still in the way of guessers).
    assert (
        Client()
        .post("/accounts/sign-in/", {"username": "alice", "password": "a-brand-new-phrase"})
        .status_code
        == 302
    )


def test_an_address_another_member_has_is_never_confirmed(alice, bob) -> None:
    Member.objects.filter(pk=alice.pk).update(email="same@example.org", email_verified=True)
    asked = services.account_set_email(member=bob, email="same@example.org")
    assert (asked.link_to, asked.taken) == ("", "same@example.org")
    # Even a link made for it (none is mailed) does not give bob the address.
    token = services.email_verification_token(bob, "same@example.org")
    response = Client().get(f"/accounts/email/verify/{token}/")
    assert response.status_code == 400
    assert services.EMAIL_TAKEN in response.content.decode()
    assert Member.objects.get(pk=bob.pk).email == ""


def test_profile_sets_name_bio_and_the_one_time_zone(alice, bob) -> None:
    client = signed_in(alice)
    response = client.post(
        "/accounts/profile/",
        {"display_name": "Alice A.", "bio": "Plays on Sundays.", "time_zone": "Asia/Tokyo"},
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert (alice.display_name, alice.bio) == ("Alice A.", "Plays on Sundays.")
    assert settings_of(alice).time_zone == "Asia/Tokyo"  # what the emails read
    before = (alice.display_name, settings_of(alice).time_zone)
    for values, text in (
        ({"display_name": "BOB", "time_zone": "UTC"}, NAME_TAKEN),
        ({"display_name": "two\nlines", "time_zone": "UTC"}, "one line"),
        ({"display_name": "x", "time_zone": "Mars/Olympus"}, "valid choice"),
    ):
        response = client.post("/accounts/profile/", {"bio": "", **values})
        assert response.status_code == 400
        assert text in html.unescape(response.content.decode())
    alice.refresh_from_db()
    assert (alice.display_name, settings_of(alice).time_zone) == before
    with pytest.raises(AccountRefused):
        services.account_update_profile(
            member=alice, display_name="", bio="x" * 501, time_zone="UTC"
        )


def test_sign_out_everywhere_else_keeps_this_session(alice) -> None:
    here, there = Client(), Client()
    for client in (here, there):
        assert (
            client.post(
                "/accounts/sign-in/", {"username": "alice", "password": PASSWORD}
            ).status_code
            == 302
        )
    assert here.post("/accounts/sign-out-elsewhere/").status_code == 302
    assert here.get("/me/matches/").status_code == 200
    assert there.get("/me/matches/").status_code == 302  # signed out


def test_download_my_data(alice, bob, make_fixture) -> None:
    match = make_fixture(first=alice, second=bob, name="Mine")
    commit_move(
        match_id=match.id, member=alice, move={"kind": "pass"}, against_turn=0, client_id="d1"
    )
    response = signed_in(alice).get("/accounts/my-data/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    profile = json.loads(archive.read("profile.json"))
    assert profile["username"] == "alice"
    assert [m["id"] for m in profile["matches"]] == [match.id]
    assert "#player1" in archive.read(f"matches/match-{match.id}.gcg").decode()
    assert Client().get("/accounts/my-data/").status_code == 302  # sign in first


def test_deleting_an_account_resigns_live_matches_and_anonymises(alice, bob, make_fixture) -> None:
    live = make_fixture(first=alice, second=bob, name="Live one")
    client = signed_in(alice)
    Member.objects.filter(pk=alice.pk).update(
        email="alice@example.org", bio="hi", display_name="Alice Liddell"
    )
    watcher = signed_in(bob)
    assert "Alice Liddell" in watcher.get(f"/matches/{live.id}/").content.decode()
    # A wrong password deletes nothing.
    assert client.post("/accounts/delete/", {"password": "nope"}).status_code == 400
    assert Member.objects.get(pk=alice.pk).is_active
    response = client.post("/accounts/delete/", {"password": PASSWORD})
    assert response.status_code == 200
    gone = Member.objects.get(pk=alice.pk)
    assert gone.username == f"former-member-{alice.pk}"
    assert (gone.email, gone.bio, gone.is_active, gone.is_club_member) == ("", "", False, False)
    assert gone.display_name == ""
    assert "Alice Liddell" not in watcher.get(f"/matches/{live.id}/").content.decode()
    assert not gone.has_usable_password()
    live.refresh_from_db()
    assert live.status == Match.Status.FINISHED
    assert live.result == Match.Result.SECOND  # bob wins
    assert Seat.objects.get(match=live, position=0).member_id == alice.pk  # record kept
    assert client.get("/me/matches/").status_code == 302  # signed out
