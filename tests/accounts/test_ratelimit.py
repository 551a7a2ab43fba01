"""Sign-up is rate limited per address, with a clear message and no change."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts import ratelimit
from accounts.models import Member

pytestmark = pytest.mark.django_db


def _sign_up(client: Client, username: str):
    return client.post(
        "/accounts/sign-up/",
        {
            "username": username,
            "password1": "a-long-pass-phrase-9",
            "password2": "a-long-pass-phrase-9",
        },
    )


def test_sign_ups_beyond_the_allowance_create_nobody() -> None:
    client = Client()
    for n in range(ratelimit.SIGN_UP.count):
        assert _sign_up(client, f"new{n}").status_code == 302
        client.post("/accounts/sign-out/")
    before = Member.objects.count()
    response = _sign_up(client, "one-too-many")
    assert response.status_code == 429
    assert ratelimit.SIGN_UP.message in response.content.decode()
    assert Member.objects.count() == before


def test_the_allowance_is_per_address() -> None:
    here = Client()
    for n in range(ratelimit.SIGN_UP.count):
        _sign_up(here, f"here{n}")
        here.post("/accounts/sign-out/")
    assert _sign_up(here, "here-again").status_code == 429  # this address has used it up
    elsewhere = Client(REMOTE_ADDR="10.9.8.7")
    assert _sign_up(elsewhere, "elsewhere").status_code == 302
    from django.core.cache import cache

    cache.delete(f"ratelimit:{ratelimit.SIGN_UP.name}:10.9.8.7")


def test_an_ipv6_clients_whole_64_is_one_address() -> None:
    """A host picks its IPv6 addresses in its /64 at will: sign-ups from five of them use up
    the /64's allowance; another /64 (and an IPv4 address) has its own."""
    for n in range(ratelimit.SIGN_UP.count):
        client = Client(REMOTE_ADDR=f"2001:db8:40:1::{n + 1:x}")
        assert _sign_up(client, f"v6-{n}").status_code == 302
    again = Client(REMOTE_ADDR="2001:db8:40:1:ffff:ffff:ffff:fffe")
    assert _sign_up(again, "v6-again").status_code == 429
    assert _sign_up(Client(REMOTE_ADDR="2001:db8:40:2::1"), "v6-next").status_code == 302
    assert _sign_up(Client(REMOTE_ADDR="192.0.2.44"), "v4-here").status_code == 302
    for address in ("2001:db8:40:1::1", "2001:db8:40:2::1", "192.0.2.44"):
        ratelimit.forget(ratelimit.SIGN_UP, address)  # (the cache outlives the test)


@pytest.mark.parametrize(
    ("address", "scope"),
    [
        ("2001:db8:1:2::a", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2:ffff:1:2:3", "2001:db8:1:2::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::ffff:192.0.2.9", "192.0.2.9"),  # an IPv4 client on a dual-stack socket
        ("192.0.2.9", "192.0.2.9"),
        ("unknown", "unknown"),
    ],
)
def test_what_an_address_is_limited_as(address: str, scope: str) -> None:
    assert ratelimit.address_scope(address) == scope
