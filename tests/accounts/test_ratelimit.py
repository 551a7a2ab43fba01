"""Sign-in and sign-up are rate limited per address, with a clear message and no change."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts import ratelimit
from accounts.models import Member

pytestmark = pytest.mark.django_db


def test_sign_in_attempts_beyond_the_allowance_get_429_and_the_message(alice) -> None:
    client = Client()
    for _ in range(ratelimit.SIGN_IN.count):
        response = client.post("/accounts/sign-in/", {"username": "alice", "password": "wrong"})
        assert response.status_code == 200  # the ordinary "wrong password" form
    response = client.post(
        "/accounts/sign-in/", {"username": "alice", "password": "pw-correct-horse"}
    )
    assert response.status_code == 429
    assert ratelimit.SIGN_IN.message in response.content.decode()
    assert "_auth_user_id" not in client.session  # even the right password is refused now


def test_the_allowance_is_per_address(alice) -> None:
    for _ in range(ratelimit.SIGN_IN.count):
        Client().post("/accounts/sign-in/", {"username": "alice", "password": "wrong"})
    limited = Client().post("/accounts/sign-in/", {"username": "alice", "password": "wrong"})
    assert limited.status_code == 429  # this address has used its allowance
    elsewhere = Client(REMOTE_ADDR="10.9.8.7")
    response = elsewhere.post(
        "/accounts/sign-in/", {"username": "alice", "password": "pw-correct-horse"}
    )
    assert response.status_code == 302
    from django.core.cache import cache

    cache.delete(f"ratelimit:{ratelimit.SIGN_IN.name}:10.9.8.7")


def test_sign_ups_beyond_the_allowance_create_nobody() -> None:
    client = Client()
    for n in range(ratelimit.SIGN_UP.count):
        response = client.post(
            "/accounts/sign-up/",
            {
                "username": f"new{n}",
                "password1": "a-long-pass-phrase-9",
                "password2": "a-long-pass-phrase-9",
            },
        )
        assert response.status_code == 302
        client.post("/accounts/sign-out/")
    before = Member.objects.count()
    response = client.post(
        "/accounts/sign-up/",
        {
            "username": "one-too-many",
            "password1": "a-long-pass-phrase-9",
            "password2": "a-long-pass-phrase-9",
        },
    )
    assert response.status_code == 429
    assert ratelimit.SIGN_UP.message in response.content.decode()
    assert Member.objects.count() == before
