"""A signed-in socket stands only while its session and its member's membership do.

Through the real ASGI application and channel layer. Here the session or the membership
ends in the database with no sign-out published (as when the change races the frame, or its
word is lost): the socket's own checks must catch it, on every request and before every rack.
Signing out of one session closes that session's sockets and only those. And ``sync`` is
limited per socket.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.sessions.models import Session
from django.test import Client

from accounts.models import Member
from matches.models import Match
from tests.matches.test_ws_helpers import (
    Opener,
    Socket,
    match_state,
    new_client_id,
    seeded_match,
    session_cookie,
    socket_opener,
)

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    async with socket_opener() as open_:
        yield open_


def pass_frame(turn: int) -> dict[str, Any]:
    return {"type": "pass", "id": new_client_id("pass"), "turn": turn}


async def closed_with(socket: Socket) -> int:
    """The code the server closed the socket with (after any frames still unread)."""
    while True:
        output = await socket.communicator.receive_output(timeout=10)
        if output["type"] == "websocket.close":
            return int(output["code"])
        assert output["type"] == "websocket.send", output
        socket.unread.append(json.loads(output["text"]))


async def test_a_removed_members_pass_is_refused_and_their_socket_closed(
    make_fixture, alice, bob, connect
) -> None:
    match = await db(seeded_match)(make_fixture, alice, bob, seed=5)
    alice_socket, _ = await connect(match.id, member=alice)
    before = await db(match_state)(match.id)
    # Removed in the database, no word of it sent: the pass itself must find out.
    await db(Member.objects.filter(pk=alice.pk).update)(membership=Member.Membership.REMOVED)

    frame = pass_frame(0)
    answer = await alice_socket.request(frame)
    assert answer == {
        "type": "error",
        "code": "membership_ended",
        "message": "You are no longer a member of the club.",
        "id": frame["id"],
    }
    assert await closed_with(alice_socket) == 4401
    assert await db(match_state)(match.id) == before


async def test_a_rack_reaches_only_the_sockets_whose_session_still_stands(
    make_fixture, alice, bob, connect
) -> None:
    """alice plays from a second session; the first has ended meanwhile (its row gone, no
    sign-out sent): her rack goes to the second socket, and the first is closed unheard."""
    match = await db(seeded_match)(make_fixture, alice, bob, seed=5)
    lapsed_cookie = await db(session_cookie)(alice)
    lapsed, _ = await connect(match.id, member=alice, cookie=lapsed_cookie)
    current, _ = await connect(match.id, member=alice)
    bob_socket, _ = await connect(match.id, member=bob)
    await db(Session.objects.filter(session_key=lapsed_cookie).delete)()

    assert (await current.request(pass_frame(0)))["accepted"] is True
    rack = await current.event("rack")
    assert rack["data"]["turn_number"] == 1
    await bob_socket.event("turn", number=1)

    assert await closed_with(lapsed) == 4401
    heard = lapsed.frames + lapsed.unread
    assert "rack" not in [frame["type"] for frame in heard]
    assert heard[-1]["code"] == "signed_out"


async def test_signing_out_closes_that_sessions_sockets_and_no_others(
    make_fixture, alice, bob, connect
) -> None:
    match = await db(seeded_match)(
        make_fixture, alice, bob, seed=5, visibility=Match.Visibility.MEMBERS
    )
    leaving_cookie = await db(session_cookie)(alice)
    leaving, _ = await connect(match.id, member=alice, cookie=leaving_cookie)
    staying, _ = await connect(match.id, member=alice)

    def sign_out() -> int:
        client = Client()
        client.cookies[settings.SESSION_COOKIE_NAME] = leaving_cookie
        return client.post("/accounts/sign-out/").status_code

    assert await db(sign_out)() == 302
    assert await leaving.next() == {
        "type": "error",
        "code": "signed_out",
        "message": "Your session has ended. Sign in again.",
    }
    assert await closed_with(leaving) == 4401
    assert await staying.is_quiet()  # still open, still signed in
    assert (await staying.request(pass_frame(0)))["accepted"] is True


async def test_sync_is_limited_per_socket(live_match, alice, connect, settings) -> None:
    settings.WS_SYNCS_PER_MINUTE_PER_SOCKET = 3
    busy, _ = await connect(live_match.id, member=alice)
    other, _ = await connect(live_match.id)
    for _ in range(3):
        await busy.sync()
    frame = {"type": "sync", "id": new_client_id("sync")}
    assert await busy.request(frame) == {
        "type": "error",
        "code": "sync_limited",
        "message": "Too many sync requests. Wait a minute; the news keeps coming.",
        "id": frame["id"],
    }
    assert (await other.sync())["turn_number"] == 0  # another socket's allowance is its own
