"""The session store reads what Django's database store reads (accounts/session_store.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from accounts.session_store import SessionStore
from accounts.sessions import user_of_session

pytestmark = pytest.mark.django_db


def test_it_is_the_configured_engine() -> None:
    assert settings.SESSION_ENGINE == "accounts.session_store"


def test_it_loads_what_djangos_store_loads_live_expired_and_gone(alice) -> None:
    client = Client()
    client.force_login(alice)
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    live = SessionStore(key).load()
    assert live == db.SessionStore(key).load()
    assert live["_auth_user_id"] == str(alice.pk)
    assert user_of_session(key) == alice

    Session.objects.filter(session_key=key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    expired = SessionStore(key)
    assert expired.load() == db.SessionStore(key).load() == {}
    assert expired.session_key is None  # as Django's store: an expired key is dropped
    assert not user_of_session(key).is_authenticated

    Session.objects.filter(session_key=key).delete()
    assert SessionStore(key).load() == {}
    assert SessionStore(None).load() == {}


def test_a_signed_in_page_still_works_through_it(alice) -> None:
    client = Client()
    client.force_login(alice)
    page = client.get("/")
    assert page.status_code == 200
    assert page.wsgi_request.user == alice
    client.logout()
    assert not Session.objects.exists()


@pytest.mark.django_db(transaction=True)
async def test_a_socket_gets_its_member_and_the_servers_own_send(alice) -> None:
    from asgiref.sync import sync_to_async

    from accounts.sessions import SocketAuthMiddlewareStack

    client = Client()
    await sync_to_async(client.force_login)(alice)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    seen: dict = {}

    async def inner(scope, receive, send) -> None:
        seen["send"] = send
        seen["user"] = await sync_to_async(lambda: scope["user"].pk)()
        seen["session"] = scope["session"].session_key

    async def server_send(message) -> None:  # what Daphne hands the application
        raise AssertionError("nothing is sent in this test")

    scope = {
        "type": "websocket",
        "path": "/ws/matches/1/",
        "headers": [(b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode())],
    }
    await SocketAuthMiddlewareStack(inner)(scope, None, server_send)
    assert seen["send"] is server_send  # no session-saving wrapper around every frame
    assert seen["user"] == alice.pk
    assert seen["session"] == cookie
