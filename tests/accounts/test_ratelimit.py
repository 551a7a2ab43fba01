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
