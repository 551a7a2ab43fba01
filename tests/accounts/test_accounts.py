"""Members: sign up, sign in, sign out, the session's age, argon2, organisers."""

from __future__ import annotations

from io import StringIO

import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.core.management import CommandError, call_command
from django.test import Client

import wordduel.settings as production_settings
from accounts.models import Member

pytestmark = pytest.mark.django_db
PASSWORD = "pw-correct-horse"
NEW_PASSWORD = "tile-bag-quartz-77"


def sign_up(client: Client, username: str = "newbie", **extra: str):
    data = {
        "username": username,
        "display_name": "",
        "password1": NEW_PASSWORD,
        "password2": NEW_PASSWORD,
        **extra,
    }
    return client.post("/accounts/sign-up/", data)


def test_sign_up_creates_a_member_signs_them_in_and_hashes_with_argon2(client) -> None:
    response = sign_up(client, display_name="New Player")
    assert response.status_code == 302
    assert response["Location"] == "/"
    member = Member.objects.get(username="newbie")
    assert member.password.startswith("argon2$")
    assert member.check_password(NEW_PASSWORD)
    assert member.display_name == "New Player"
    assert not member.is_organiser
    assert client.session["_auth_user_id"] == str(member.pk)
    html = client.get("/").content.decode()
    assert "Signed in as New Player" in html
    assert 'href="/me/matches/"' in html


def test_sign_up_follows_a_safe_next_and_ignores_another_site(client) -> None:
    response = sign_up(client, "one", next="/matches/1/")
    assert response["Location"] == "/matches/1/"
    response = sign_up(Client(), "two", next="https://evil.example/")
    assert response["Location"] == "/"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"password2": "something-else-42"}, "The two password fields didn"),
        ({"password1": "123", "password2": "123"}, "This password is too short."),
        ({"username": "taken"}, "A user with that username already exists."),
    ],
)
def test_a_refused_sign_up_says_why(client, make_member, change, message) -> None:
    make_member("taken")
    before = Member.objects.count()
    data = {"username": "fresh", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD, **change}
    response = client.post("/accounts/sign-up/", data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert Member.objects.count() == before
    assert "_auth_user_id" not in client.session


def test_sign_up_page_is_labelled(client) -> None:
    html = client.get("/accounts/sign-up/").content.decode()
    assert '<label for="id_username">' in html
    assert '<label for="id_password1">' in html
    assert "csrfmiddlewaretoken" in html


def test_sign_in_and_out(client, alice) -> None:
    page = client.get("/accounts/sign-in/?next=/me/matches/").content.decode()
    assert '<label for="id_username">' in page
    assert 'value="/me/matches/"' in page
    response = client.post(
        "/accounts/sign-in/",
        {"username": "alice", "password": PASSWORD, "next": "/me/matches/"},
    )
    assert response.status_code == 302
    assert response["Location"] == "/me/matches/"
    assert client.get("/me/matches/").status_code == 200
    response = client.post("/accounts/sign-out/")
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session
    assert client.get("/me/matches/").status_code == 302


def test_a_wrong_password_does_not_sign_in(client, alice) -> None:
    response = client.post("/accounts/sign-in/", {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_sign_out_needs_a_post(client, alice) -> None:
    client.force_login(alice)
    assert client.get("/accounts/sign-out/").status_code == 405
    assert "_auth_user_id" in client.session


def test_a_session_lasts_a_day(client, alice) -> None:
    assert settings.SESSION_COOKIE_AGE == 24 * 60 * 60
    client.post("/accounts/sign-in/", {"username": "alice", "password": PASSWORD})
    assert client.session.get_expiry_age() == 24 * 60 * 60
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    assert int(cookie["max-age"]) == 24 * 60 * 60
    assert cookie["httponly"]


def test_passwords_are_stored_with_argon2(alice) -> None:
    assert production_settings.PASSWORD_HASHERS[0].endswith(".Argon2PasswordHasher")
    assert alice.password.startswith("argon2$argon2id$")


# ------------------------------------------------------------------ organisers


def test_grant_and_revoke_organiser(alice) -> None:
    out = StringIO()
    call_command("grant_organiser", "alice", stdout=out)
    assert "alice is now an organiser." in out.getvalue()
    assert Member.objects.get(pk=alice.pk).is_organiser
    assert Member.objects.get(pk=alice.pk).has_perm("accounts.organise")
    call_command("grant_organiser", "alice", stdout=out)  # twice is harmless
    call_command("grant_organiser", "alice", "--revoke", stdout=out)
    assert "alice is no longer an organiser." in out.getvalue()
    assert not Member.objects.get(pk=alice.pk).is_organiser


def test_grant_organiser_names_an_unknown_member() -> None:
    with pytest.raises(CommandError, match="no member called 'ghost'"):
        call_command("grant_organiser", "ghost")


def test_an_organiser_sees_the_organise_link(client, alice) -> None:
    client.force_login(alice)
    assert 'href="/organise/"' not in client.get("/").content.decode()
    alice.user_permissions.add(Permission.objects.get(codename="organise"))
    assert 'href="/organise/"' in client.get("/").content.decode()


def test_members_are_in_the_admin_with_the_organiser_permission(alice) -> None:
    assert admin.site.is_registered(Member)
    root = Member.objects.create_superuser("root", password=PASSWORD)
    client = Client()
    client.force_login(root)
    html = client.get(f"/admin/accounts/member/{alice.pk}/change/").content.decode()
    assert "Can schedule fixtures and tournaments and seat players" in html
    assert 'name="display_name"' in html


# ---------------------------------------------------------------- names nobody can fake


def _sign_up_as(username: str, display_name: str = ""):
    return Client().post(
        "/accounts/sign-up/",
        {
            "username": username,
            "display_name": display_name,
            "password1": "a-long-pass-phrase-9",
            "password2": "a-long-pass-phrase-9",
        },
    )


@pytest.mark.parametrize(
    ("username", "display_name"),
    [
        ("alice2", "Alice"),  # another's username, in other case
        ("alice3", "\u0430lice"),  # with a Cyrillic а
        ("alice4", "ALICE"),
        ("ALICE", ""),  # a username that differs only in case
        ("\u0430lice", ""),  # a username in another script
        ("mallory", "Eve\n#player2 mallory"),  # a second line
        ("mallory2", "Eve\u2028Eve"),  # a line separator
        ("mallory3", "Eve\u202eeve"),  # a bidi override
    ],
)
def test_a_name_that_looks_like_anothers_or_is_not_one_line_is_refused(
    alice, username, display_name
) -> None:
    before = Member.objects.count()
    response = _sign_up_as(username, display_name)
    assert response.status_code == 400, (username, display_name)
    assert Member.objects.count() == before


def test_a_distinct_display_name_is_taken_and_shown_with_the_username(alice) -> None:
    assert _sign_up_as("newbie", "Nina Newbie").status_code == 302
    nina = Member.objects.get(username="newbie")
    assert nina.label == "Nina Newbie (newbie)"
    assert _sign_up_as("newbie2", "nina  newbie").status_code == 400  # the same, spaced
    assert alice.label == "alice"


def test_the_match_page_names_a_player_with_the_username_beside(make_fixture, alice) -> None:
    nina = Member.objects.create_user(username="nina", password="x", display_name="Alice Smith")
    match = make_fixture(first=nina, second=alice)
    html = Client().get(f"/matches/{match.pk}/").content.decode()
    assert "Alice Smith (nina)" in html
