"""Failed sign-ins lock the account (django-axes) and, at a far larger limit, the address
(accounts/lockouts.py); successes are not counted.

An attacker guessing one member's password is stopped whichever addresses they use, while
thirty members sharing the attacker's address (a club's network) sign in as they please; one
address guessing across many accounts is stopped too; the admin's sign-in is guarded; the
X-Forwarded-For header is believed only from the configured proxy; an organiser can unlock an
account or an address at once.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.conf import settings
from django.test import Client

from accounts.views import LOCKED_OUT

pytestmark = pytest.mark.django_db

RIGHT = "pw-correct-horse"
LIMIT = settings.AXES_FAILURE_LIMIT


def sign_in(username: str, password: str, *, address: str = "127.0.0.1", **meta: str):
    client = Client(REMOTE_ADDR=address, **meta)
    response = client.post("/accounts/sign-in/", {"username": username, "password": password})
    return response, client


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_failures_beyond_the_limit_lock_even_the_right_password_out(alice) -> None:
    statuses = [sign_in("alice", "wrong")[0].status_code for _ in range(LIMIT)]
    assert statuses == [200] * (LIMIT - 1) + [429]
    response, client = sign_in("alice", RIGHT)
    assert response.status_code == 429
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    assert LOCKED_OUT.format(minutes=minutes) in response.content.decode()
    assert not signed_in(client)


def test_an_account_is_locked_whichever_addresses_the_guesses_come_from(alice) -> None:
    """30 wrong passwords from three addresses, then the right one from a fourth: refused."""
    for attempt in range(30):
        sign_in("alice", f"guess-{attempt}", address=f"203.0.113.{attempt % 3 + 1}")
    response, client = sign_in("alice", RIGHT, address="198.51.100.4")
    assert response.status_code == 429
    assert not signed_in(client)


def test_an_attacker_is_stopped_while_thirty_members_behind_one_address_sign_in(
    alice, make_member
) -> None:
    """The attacker shares the club's address: his guesses lock alice's account, not the room."""
    club = "192.0.2.10"
    members = [make_member(f"club{index}") for index in range(30)]
    for attempt in range(LIMIT + 5):
        sign_in("alice", f"guess-{attempt}", address=club)
    for member in members:  # the club's members, behind that same address, each signs in
        response, client = sign_in(member.username, RIGHT, address=club)
        assert response.status_code == 302, member.username
        assert signed_in(client)
    for member in members[:5]:  # and again: successes are never counted
        assert sign_in(member.username, RIGHT, address=club)[0].status_code == 302
    attacker, client = sign_in("alice", RIGHT, address=club)
    assert attacker.status_code == 429  # alice's account is locked, whatever the password
    assert not signed_in(client)


def test_one_address_guessing_across_accounts_is_stopped(make_member, settings) -> None:
    """One guess at each of many accounts never trips an account's limit; the address's does,
    for every account (the right password included), and only for that address."""
    settings.SIGN_IN_ADDRESS_FAILURE_LIMIT = 3 * LIMIT
    victims = [make_member(f"victim{index}") for index in range(3 * LIMIT + 1)]
    sprayer = "203.0.113.77"
    statuses = [sign_in(v.username, "Summer2026!", address=sprayer)[0].status_code
                for v in victims[:-1]]  # fmt: skip
    assert statuses == [200] * len(statuses)  # each a plain wrong password
    response, client = sign_in(victims[-1].username, RIGHT, address=sprayer)
    assert response.status_code == 429
    assert not signed_in(client)
    response, client = sign_in(victims[-1].username, RIGHT, address="198.51.100.8")
    assert response.status_code == 302  # the account itself was never locked
    assert signed_in(client)


def test_the_admin_sign_in_is_guarded_too(make_member) -> None:
    boss = make_member("boss")
    boss.is_staff = True
    boss.save()
    client = Client()
    for attempt in range(LIMIT):
        client.post("/admin/login/", {"username": "boss", "password": f"wrong-{attempt}"})
    response = client.post("/admin/login/?next=/admin/", {"username": "boss", "password": RIGHT})
    assert response.status_code == 429
    assert not signed_in(client)


def test_forwarded_for_is_believed_only_from_a_trusted_proxy(alice, settings) -> None:
    """Without a proxy configured, X-Forwarded-For is the client's own words: rotating it
    gets the attacker nothing. With one, it is how members behind the proxy are told apart."""
    settings.SIGN_IN_ADDRESS_FAILURE_LIMIT = LIMIT
    for attempt in range(LIMIT):
        sign_in("nobody", f"g{attempt}", HTTP_X_FORWARDED_FOR=f"10.1.1.{attempt}")
    response, _ = sign_in("alice", RIGHT, HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert response.status_code == 429  # the peer address (127.0.0.1) is what counted

    settings.TRUSTED_PROXY_COUNT = 1
    settings.AXES_IPWARE_PROXY_COUNT = 1
    settings.AXES_IPWARE_META_PRECEDENCE_ORDER = ["HTTP_X_FORWARDED_FOR", "REMOTE_ADDR"]
    response, client = sign_in(
        "alice", RIGHT, address="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.7"
    )
    assert response.status_code == 302  # a member behind the proxy, not the locked peer
    assert signed_in(client)


def test_an_organiser_unlocks_an_account(alice, organiser) -> None:
    for attempt in range(LIMIT):
        sign_in("alice", f"wrong-{attempt}", address="203.0.113.9")
    assert sign_in("alice", RIGHT, address="198.51.100.1")[0].status_code == 429
    boss = Client()
    boss.force_login(organiser)
    page = boss.get("/accounts/locked/")
    assert page.status_code == 200
    assert "alice" in page.content.decode()
    assert boss.post("/accounts/locked/unlock/", {"username": "alice"}).status_code == 302
    response, client = sign_in("alice", RIGHT, address="198.51.100.1")
    assert response.status_code == 302
    assert signed_in(client)


def test_an_organiser_unlocks_an_address(alice, organiser, settings) -> None:
    settings.SIGN_IN_ADDRESS_FAILURE_LIMIT = LIMIT
    for attempt in range(LIMIT):
        sign_in(f"nobody{attempt}", "wrong", address="203.0.113.12")
    assert sign_in("alice", RIGHT, address="203.0.113.12")[0].status_code == 429
    boss = Client()
    boss.force_login(organiser)
    assert "203.0.113.12" in boss.get("/accounts/locked/").content.decode()
    unlocked = boss.post("/accounts/locked/unlock/", {"ip_address": "203.0.113.12"})
    assert unlocked.status_code == 302
    response, client = sign_in("alice", RIGHT, address="203.0.113.12")
    assert response.status_code == 302
    assert signed_in(client)


def test_only_organisers_see_or_unlock(alice) -> None:
    member = Client()
    member.force_login(alice)
    assert member.get("/accounts/locked/").status_code == 403
    assert member.post("/accounts/locked/unlock/", {"username": "alice"}).status_code == 403


def test_attempts_while_locked_do_not_extend_the_lockout(alice) -> None:
    """The cool-off runs from the failure that locked the account: sign-in attempts during it
    (the wrong password or the right one) are refused without moving its end, so a guesser
    who keeps trying cannot keep the member locked out for ever."""
    cool_off = settings.AXES_COOLOFF_TIME
    with time_machine.travel(datetime(2026, 12, 4, 9, 0, tzinfo=UTC), tick=False) as clock:
        statuses = [sign_in("alice", f"wrong-{n}")[0].status_code for n in range(LIMIT)]
        assert statuses[-1] == 429  # locked at 09:00
        for _ in range(3):  # attempts while locked, the last a minute before the end
            clock.shift(cool_off / 4)
            assert sign_in("alice", "still-wrong")[0].status_code == 429
            assert sign_in("alice", RIGHT)[0].status_code == 429
        clock.shift(cool_off / 4 + timedelta(seconds=1))  # just past 09:00 plus the cool-off
        response, client = sign_in("alice", RIGHT)
        assert response.status_code == 302
        assert signed_in(client)
