"""The site's own account mails are limited, through a real SMTP server: password-reset links
per address mailed and per address asking, confirmation links per member and per address
mailed. Past a limit no mail goes, and the page answers exactly as when one does, so the
limits tell nobody whether an address is registered."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Member
from tests.notifications.conftest import smtp_server, to  # noqa: F401

pytestmark = pytest.mark.django_db

RESET = "/accounts/password/reset/"


def confirmed(member: Member, address: str) -> Member:
    Member.objects.filter(pk=member.pk).update(email=address, email_verified=True)
    return Member.objects.get(pk=member.pk)


def ask_reset(address: str, *, asker: str = "192.0.2.1") -> tuple[int, str]:
    answer = Client(REMOTE_ADDR=asker).post(RESET, {"email": address})
    return answer.status_code, answer["Location"]


def test_reset_links_to_one_address_stop_at_its_limit(
    alice,
    smtp_server,  # noqa: F811 (the fixture)
    settings,
) -> None:
    settings.PASSWORD_RESET_MAILS_PER_ADDRESS = 3
    confirmed(alice, "alice@example.org")
    # From many places (a different asker each time): the address's own limit holds.
    answers = {ask_reset("alice@example.org", asker=f"192.0.2.{n}") for n in range(12)}
    assert len(to(smtp_server, "alice@example.org")) == 3
    assert answers == {(302, "/accounts/password/reset/sent/")}
    # An address nobody has is answered the same, limited or not.
    assert ask_reset("nobody@example.org", asker="192.0.2.99") == answers.pop()


def test_reset_requests_from_one_address_stop_at_its_limit(
    make_member,
    smtp_server,  # noqa: F811
    settings,
) -> None:
    settings.PASSWORD_RESET_REQUESTS_PER_CLIENT = 4
    members = [confirmed(make_member(), f"m{n}@example.org") for n in range(6)]
    answers = {ask_reset(member.email, asker="198.51.100.7") for member in members}
    assert answers == {(302, "/accounts/password/reset/sent/")}
    assert len(smtp_server.messages) == 4
    # Asking for addresses nobody has counts too: it is the asking that is limited.
    assert ask_reset("nobody@example.org", asker="198.51.100.8")[0] == 302
    for member in members[4:]:
        ask_reset(member.email, asker="198.51.100.8")
    assert len(smtp_server.messages) == 6


def test_confirmation_links_per_member_stop_at_the_limit(
    alice,
    smtp_server,  # noqa: F811
    settings,
) -> None:
    settings.EMAIL_CONFIRMATIONS_PER_MEMBER = 3
    client = Client()
    client.force_login(alice)
    said = set()
    for n in range(8):
        answer = client.post("/accounts/email/", {"email": f"x{n}@example.net"}, follow=True)
        assert answer.status_code == 200
        said.add(answer.content.decode().count("We sent a message to"))
    assert said == {1}  # every time the same words
    assert len(smtp_server.messages) == 3


def test_account_mails_to_one_address_stop_at_its_limit(
    make_member,
    alice,
    smtp_server,  # noqa: F811
    settings,
) -> None:
    settings.ACCOUNT_MAILS_PER_ADDRESS = 2
    confirmed(alice, "alice@example.org")
    # Strangers ask to use alice's address (she is told nothing changed), and others ask to
    # confirm an address nobody has: each address hears at most twice.
    for _ in range(4):
        stranger = Client()
        stranger.force_login(make_member())
        stranger.post("/accounts/email/", {"email": "alice@example.org"})
        stranger.post("/accounts/email/", {"email": "victim@example.net"})
    assert len(to(smtp_server, "alice@example.org")) == 2
    assert len(to(smtp_server, "victim@example.net")) == 2
