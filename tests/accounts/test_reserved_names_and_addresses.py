"""Names and addresses nobody can use against another member (issue 36, item 6).

- Names that differ only by punctuation (``alice.`` beside ``alice``) are one name.
- The site's own names are reserved: ``former-member-N`` (what a deleted account becomes)
  and the computer's, and whatever looks like them; deleting an account never fails on a
  name an account made before this took.
- Signing up answers alike whether or not the address is registered: its owner is mailed,
  and the new account never gets the address.
"""

from __future__ import annotations

import html
import importlib
import re
from urllib.parse import urlparse

import pytest
from django.apps import apps
from django.test import Client

from accounts import services
from accounts.errors import AccountRefused
from accounts.models import NAME_TAKEN, Member
from accounts.names import NAME_RESERVED, is_reserved, skeleton
from practice.services import COMPUTER_USERNAME
from tests.notifications.conftest import smtp_server  # noqa: F401 (the fixture)

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "tile-bag-quartz-77"


def _sign_up(username: str, display_name: str = "", email: str = "", client=None):
    client = client or Client()
    return client.post(
        "/accounts/sign-up/",
        {
            "username": username,
            "display_name": display_name,
            "email": email,
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
        },
    )


def _text(response) -> str:
    return html.unescape(response.content.decode())


# ---------------------------------------------------------------- punctuation


@pytest.mark.parametrize(
    ("username", "display_name"),
    [
        ("alice.", ""),
        ("a.lice", ""),
        ("alice_", ""),
        ("alice-", ""),
        ("_alice", ""),
        ("a-l-i-c-e", ""),
        ("zed", "Alice!"),
        ("zed", "a.l.i.c.e"),
        ("zed", "A lice"),
    ],
)
def test_a_name_differing_only_by_punctuation_is_refused(alice, username, display_name):
    before = Member.objects.count()
    response = _sign_up(username, display_name)
    assert response.status_code == 400, (username, display_name)
    assert NAME_TAKEN in _text(response)
    assert Member.objects.count() == before


def test_a_display_name_differing_only_by_punctuation_is_refused_on_the_profile(alice, bob):
    for name in ("bob.", "B-o-b", "(bob)"):
        with pytest.raises(AccountRefused, match="looks too much like"):
            services.account_update_profile(
                member=alice, display_name=name, bio="", time_zone="UTC"
            )
    alice.refresh_from_db()
    assert alice.display_name == ""


def test_punctuation_and_spacing_do_not_count_in_a_names_key():
    assert skeleton("alice") == skeleton("alice.") == skeleton("a.lice") == skeleton("alice_")
    assert skeleton("alice") == skeleton("Alice-") == skeleton("A lice") == skeleton("«alice»")
    assert skeleton("alice") != skeleton("alicia")
    assert skeleton("a|ice") == skeleton("alice")  # a look-alike of a look-alike


def test_existing_names_that_now_clash_keep_working(alice):
    """The migration recomputes every key: of two names that now clash, the earlier keeps
    its key and the later none (so it cannot be mistaken for the earlier), and the later
    member still signs in and changes their password."""
    later = Member.objects.create_user(username="later", password="pw-correct-horse")
    # As an account made before punctuation counted for nothing: its name, its old key.
    Member.objects.filter(pk=later.pk).update(username="alice.", username_key="a1ice.")
    migration = importlib.import_module("accounts.migrations.0006_name_keys_without_punctuation")
    migration.fill_keys(apps, None)
    keys = dict(Member.objects.values_list("username", "username_key"))
    assert keys == {"alice": skeleton("alice"), "alice.": None}
    client = Client()
    signed_in = client.post(
        "/accounts/sign-in/", {"username": "alice.", "password": "pw-correct-horse"}
    )
    assert signed_in.status_code == 302
    changed = client.post(
        "/accounts/password/change/",
        {
            "old_password": "pw-correct-horse",
            "new_password1": "another-long-phrase-3",
            "new_password2": "another-long-phrase-3",
        },
    )
    assert changed.status_code == 302
    assert Member.objects.get(pk=later.pk).check_password("another-long-phrase-3")
    assert Member.objects.get(pk=later.pk).username_key is None
    # Nobody new can take the name either way.
    assert _sign_up("alice__").status_code == 400


# ---------------------------------------------------------------- reserved names


@pytest.mark.parametrize(
    ("username", "display_name"),
    [
        ("former-member-14", ""),
        ("former_member_14", ""),
        ("Former.Member.3", ""),
        ("f0rmer-member-3", ""),
        ("former-member-l4", ""),
        ("formermember", ""),
        ("wordduel-computer", ""),
        ("WordDuel_Computer", ""),
        ("w0rdduel-c0mputer", ""),
        ("wordduelcomputer", ""),
        ("zed", "former member 9"),
        ("zed", "WordDuel Computer"),
        ("zed", "w\u03bfrdduel-computer"),  # a Greek omicron
    ],
)
def test_the_sites_own_names_and_their_look_alikes_are_reserved(username, display_name):
    response = _sign_up(username, display_name)
    assert response.status_code == 400, (username, display_name)
    assert NAME_RESERVED in _text(response)
    assert not Member.objects.filter(username=username).exists()


def test_reserved_names_are_refused_on_the_profile(alice):
    for name in ("Former Member 12", "WordDuel-Computer"):
        with pytest.raises(AccountRefused) as refused:
            services.account_update_profile(
                member=alice, display_name=name, bio="", time_zone="UTC"
            )
        assert refused.value.message == NAME_RESERVED
    assert Member.objects.get(pk=alice.pk).display_name == ""


def test_the_computers_own_name_is_a_reserved_one():
    assert is_reserved(COMPUTER_USERNAME)
    assert is_reserved(services.anonymous_username(14))
    assert not is_reserved("former")
    assert not is_reserved("computer")


def test_deleting_an_account_picks_a_free_name_beside_an_old_look_alike(make_member):
    leaving = make_member("leaving")
    squatters = [make_member("squat1"), make_member("squat2")]
    # Accounts made before the names were reserved: the exact name, and one that looks alike.
    Member.objects.filter(pk=squatters[0].pk).update(
        username=f"former-member-{leaving.pk}", username_key=skeleton(f"former-member-{leaving.pk}")
    )
    Member.objects.filter(pk=squatters[1].pk).update(
        username="squat2", username_key=skeleton(f"former-member-{leaving.pk}-2")
    )
    client = Client()
    client.force_login(leaving)
    answer = client.post("/accounts/delete/", {"password": "pw-correct-horse"})
    assert answer.status_code == 200
    assert "Your account is deleted." in answer.content.decode()
    gone = Member.objects.get(pk=leaving.pk)
    assert gone.deleted_at is not None
    assert gone.username.startswith(f"former-member-{leaving.pk}")
    assert gone.username not in {f"former-member-{leaving.pk}", f"former-member-{leaving.pk}-2"}
    others = Member.objects.exclude(pk=gone.pk)
    assert not others.filter(username_key=gone.username_key).exists()
    assert not others.filter(display_key=gone.username_key).exists()


def test_deleting_an_account_keeps_the_plain_anonymous_name_when_it_is_free(make_member):
    leaving = make_member("leaving")
    services.account_delete(member=leaving)
    assert Member.objects.get(pk=leaving.pk).username == f"former-member-{leaving.pk}"


# ---------------------------------------------------------------- addresses


def _link_in(message) -> str:
    body = message.get_body(preferencelist=("plain",)).get_content()
    [url] = re.findall(r"https?://\S+", body)
    return urlparse(url).path


def _as_seen(response, client: Client, address: str, username: str) -> tuple:
    """What the one signing up sees: the answer, and their profile page (with the address
    and their own name taken out, as the two sign-ups differ in those only, and the
    per-request tokens)."""
    profile = client.get("/accounts/profile/").content.decode()
    profile = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", profile)
    profile = re.sub(r'nonce="[^"]+"', "", profile)
    profile = profile.replace(address, "ADDRESS").replace(username, "NAME")
    return response.status_code, response["Location"], profile


def test_signing_up_with_a_registered_address_answers_as_with_a_new_one(
    alice,
    smtp_server,  # noqa: F811
):
    Member.objects.filter(pk=alice.pk).update(email="alice@example.org", email_verified=True)

    fresh_client, taken_client = Client(), Client()
    fresh = _sign_up("newbie", email="newbie@example.org", client=fresh_client)
    taken = _sign_up("mallory", email="Alice@Example.org", client=taken_client)
    assert _as_seen(fresh, fresh_client, "newbie@example.org", "newbie") == _as_seen(
        taken, taken_client, "Alice@example.org", "mallory"
    )

    # Each address got one message: a link to confirm the new one; to the registered one,
    # the word that someone tried to sign up with it (and no link that confirms anything).
    by_address = {message["To"]: message for message in smtp_server.messages}
    assert set(by_address) == {"newbie@example.org", "alice@example.org"}  # the owner's own
    assert "/accounts/email/verify/" in by_address["newbie@example.org"].get_content()
    warning = by_address["alice@example.org"].get_content()
    assert "/accounts/email/verify/" not in warning
    assert "sign up" in warning
    assert "/accounts/password/reset/" in warning

    # The new account does not have the registered address, and can never confirm it.
    mallory = Member.objects.get(username="mallory")
    assert (mallory.email, mallory.email_verified) == ("", False)
    token = services.email_verification_token(mallory, "Alice@example.org")
    assert Client().get(f"/accounts/email/verify/{token}/").status_code == 400
    assert Member.objects.get(pk=mallory.pk).email == ""
    assert Member.objects.filter(email__iexact="alice@example.org").count() == 1

    # The new address is confirmed by its link and then is the account's.
    assert Client().get(_link_in(by_address["newbie@example.org"])).status_code == 200
    newbie = Member.objects.get(username="newbie")
    assert (newbie.email, newbie.email_verified, newbie.pending_email) == (
        "newbie@example.org",
        True,
        "",
    )


def test_signing_up_with_an_address_still_waiting_elsewhere_is_not_refused(
    alice,
    smtp_server,  # noqa: F811
):
    """An address only asked for by another account (not confirmed) is no one's yet."""
    services.account_set_email(member=alice, email="shared@example.org")
    response = _sign_up("newbie", email="shared@example.org")
    assert response.status_code == 302
    assert Member.objects.get(username="newbie").pending_email == "shared@example.org"
