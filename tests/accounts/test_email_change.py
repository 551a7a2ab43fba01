"""Changing one's email address keeps the confirmed one until the new one is confirmed.

Through a real SMTP server: the link goes to the new address, while the confirmed address
stays the account's for password resets and every notice; opening the link swaps them. An
address another member has gets the same answer on the page (no way to learn that it is
registered); its owner is mailed that nothing changed.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlparse

import pytest
from django.test import Client

from accounts.models import Member
from tests.matches.helpers import commit_move, opening_play, rack_of, title_of
from tests.notifications.conftest import eager_tasks, smtp_server, text_of, to  # noqa: F401

pytestmark = pytest.mark.django_db

OLD = "bob@old.example"
NEW = "bob@new.example"


def signed_in(member: Member) -> Client:
    client = Client()
    client.force_login(member)
    return client


def only_link(message) -> str:
    [url] = re.findall(r"https?://\S+", text_of(message))
    return urlparse(url).path


def ask_reset(address: str) -> None:
    response = Client().post("/accounts/password/reset/", {"email": address})
    assert response.status_code == 302  # the same answer whether or not anything is sent


def confirmed(member: Member, address: str) -> Member:
    Member.objects.filter(pk=member.pk).update(email=address, email_verified=True)
    return Member.objects.get(pk=member.pk)


def test_the_confirmed_address_stays_until_the_new_one_is_confirmed(
    live_match,
    alice,
    bob,
    smtp_server,  # noqa: F811 (the fixture)
    eager_tasks,  # noqa: F811
    django_capture_on_commit_callbacks,
) -> None:
    bob = confirmed(bob, OLD)
    client = signed_in(bob)
    response = client.post("/accounts/email/", {"email": NEW}, follow=True)
    assert response.status_code == 200
    page = html.unescape(response.content.decode())
    assert f"We sent a message to {NEW}" in page
    # Shown as pending; the confirmed address is still the account's.
    assert re.search(rf'id="email-pending"[^>]*>[^<]*{re.escape(NEW)}', page)
    assert f"{OLD} · confirmed" in page
    bob.refresh_from_db()
    assert (bob.email, bob.email_verified, bob.pending_email) == (OLD, True, NEW)
    [link_mail] = to(smtp_server, NEW)
    link = only_link(link_mail)
    smtp_server.messages.clear()

    # A password reset still reaches the confirmed address; the unconfirmed one gets nothing.
    ask_reset(NEW)
    assert smtp_server.messages == []
    ask_reset(OLD)
    [reset] = to(smtp_server, OLD)
    assert "reset your Word Duel password" in text_of(reset)
    smtp_server.messages.clear()

    # Notices go to the confirmed address too.
    with django_capture_on_commit_callbacks(execute=True):
        assert commit_move(
            match_id=live_match.id,
            member=alice,
            move=opening_play(rack_of(live_match, 0)),
            against_turn=0,
            client_id="move-1",
        ).accepted
    assert [m["Subject"] for m in to(smtp_server, OLD)] == [f"Your move: {title_of(live_match)}"]
    assert to(smtp_server, NEW) == []
    smtp_server.messages.clear()

    # Opening the link swaps them: the new address is confirmed and the account's.
    assert Client().get(link).status_code == 200
    bob.refresh_from_db()
    assert (bob.email, bob.email_verified, bob.pending_email) == (NEW, True, "")
    ask_reset(OLD)
    assert smtp_server.messages == []
    ask_reset(NEW)
    assert len(to(smtp_server, NEW)) == 1
    # The link is used up: opened again, it confirms nothing.
    assert Client().get(link).status_code == 200  # (the address is confirmed: harmless)
    assert Member.objects.get(pk=bob.pk).email == NEW


def test_a_later_change_replaces_the_pending_address_and_its_link(
    bob,
    smtp_server,  # noqa: F811 (the fixture)
) -> None:
    bob = confirmed(bob, OLD)
    client = signed_in(bob)
    client.post("/accounts/email/", {"email": NEW})
    [first] = to(smtp_server, NEW)
    client.post("/accounts/email/", {"email": "bob@third.example"})
    bob.refresh_from_db()
    assert bob.pending_email == "bob@third.example"
    # The first link no longer confirms anything: it names an address no longer asked for.
    assert Client().get(only_link(first)).status_code == 400
    assert (Member.objects.get(pk=bob.pk).email, Member.objects.get(pk=bob.pk).email_verified) == (
        OLD,
        True,
    )
    # Asking for the confirmed address again calls the change off.
    client.post("/accounts/email/", {"email": OLD})
    assert Member.objects.get(pk=bob.pk).pending_email == ""


def test_an_address_another_member_has_is_not_revealed(
    alice,
    bob,
    carol,
    smtp_server,  # noqa: F811 (the fixture)
) -> None:
    confirmed(alice, "alice@example.org")
    bob = confirmed(bob, OLD)
    taken = signed_in(bob).post("/accounts/email/", {"email": "Alice@Example.org"}, follow=True)
    fresh = signed_in(carol).post("/accounts/email/", {"email": "carol@example.org"}, follow=True)
    assert taken.status_code == fresh.status_code == 200

    def said(response, address: str) -> str:
        page = html.unescape(response.content.decode())
        [message] = re.findall(r'<li class="[^"]*success[^"]*">([^<]*)</li>', page)
        return message.replace(address, "ADDRESS")

    assert said(taken, "Alice@example.org") == said(fresh, "carol@example.org")
    # Nothing changed for either account, and the address's owner is told so.
    assert Member.objects.get(pk=alice.pk).email == "alice@example.org"
    assert Member.objects.get(pk=bob.pk).email == OLD
    [notice] = to(smtp_server, "Alice@example.org")
    assert "already belongs to an account" in text_of(notice)
    assert not re.findall(r"/accounts/email/verify/", text_of(notice))


@pytest.fixture
def carol(make_member) -> Member:
    return make_member("carol")
