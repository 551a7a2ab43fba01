"""A guest's socket: the guest cookie admits it to its own game only (there it plays like
any player), elsewhere it is an anonymous visitor, and the sign-up that retires the guest
closes its socket."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections

from accounts.guests import GUEST_COOKIE, adopt_guest, guest_cookie_value
from accounts.models import Member
from matches.models import Match, Turn
from practice.guests import start_guest_practice
from tests.matches.test_ws_helpers import ARRIVAL_TIMEOUT, ORIGIN, socket_path
from wordduel.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async


def guests_game() -> tuple[Member, Match, str]:
    match = start_guest_practice(guest_id=None, address="192.0.2.20")
    guest = match.created_by
    assert guest is not None
    return guest, match, f"{GUEST_COOKIE}={guest_cookie_value(guest)}"


class GuestSocket:
    """A socket that presents the guest cookie (and no session)."""

    def __init__(self, match_id: int, cookie: str) -> None:
        self.communicator = WebsocketCommunicator(
            application, socket_path(match_id), headers=[ORIGIN, (b"cookie", cookie.encode())]
        )

    async def open(self) -> dict[str, Any]:
        """The first message: a snapshot frame's JSON, or the close (its code)."""
        connected, _ = await self.communicator.connect(timeout=ARRIVAL_TIMEOUT)
        assert connected
        first = await self.communicator.receive_output(timeout=ARRIVAL_TIMEOUT)
        if first["type"] == "websocket.close":
            return {"closed": first["code"]}
        return json.loads(first["text"])

    async def answer(self, frame: dict[str, Any]) -> dict[str, Any]:
        """Send ``frame``; the frame that answers its id."""
        await self.communicator.send_json_to(frame)
        while True:
            got = await self.communicator.receive_json_from(timeout=ARRIVAL_TIMEOUT)
            if got.get("id") == frame["id"]:
                return got

    async def closed_with(self) -> int:
        while True:
            got = await self.communicator.receive_output(timeout=ARRIVAL_TIMEOUT)
            if got["type"] == "websocket.close":
                return int(got["code"])

    async def close(self) -> None:
        if not self.communicator.future.done():
            await self.communicator.disconnect()


@pytest.fixture
async def sockets():
    opened: list[GuestSocket] = []

    def open_(match_id: int, cookie: str) -> GuestSocket:
        socket = GuestSocket(match_id, cookie)
        opened.append(socket)
        return socket

    yield open_
    for socket in opened:
        await socket.close()
    await db(connections.close_all)()


async def test_the_guest_plays_its_own_game_over_the_socket(sockets) -> None:
    _, match, cookie = await db(guests_game)()
    own = sockets(match.id, cookie)
    first = await own.open()
    assert first["type"] == "snapshot"
    assert first["snapshot"]["your_seat"] == 0
    assert len(first["snapshot"]["rack"]) == 7
    turn = first["snapshot"]["turn_number"]
    answer = await own.answer({"type": "pass", "id": "guest-pass", "turn": turn})
    assert answer["type"] == "ack"
    assert answer["accepted"] is True, answer
    assert await db(Turn.objects.filter(match=match, position=0).count)() == 1


async def test_elsewhere_the_guest_is_an_anonymous_visitor(sockets, make_fixture, alice, bob):
    _, _, cookie = await db(guests_game)()
    members_only = await db(make_fixture)(
        first=alice, second=bob, visibility=Match.Visibility.MEMBERS
    )
    assert await sockets(members_only.id, cookie).open() == {"closed": 4403}
    public = await db(make_fixture)(first=alice, second=bob, visibility=Match.Visibility.PUBLIC)
    watching = sockets(public.id, cookie)
    first = await watching.open()
    assert first["snapshot"]["your_seat"] is None
    assert first["snapshot"]["rack"] is None
    answer = await watching.answer({"type": "pass", "id": "not-mine", "turn": 1})
    assert answer["type"] == "error"
    assert answer["code"] == "sign_in_required"


async def test_a_forged_cookie_is_nobody(sockets) -> None:
    guest, match, _ = await db(guests_game)()
    assert await sockets(match.id, f"{GUEST_COOKIE}={guest.pk}").open() == {"closed": 4403}


async def test_adoption_closes_the_guests_socket(sockets, alice) -> None:
    guest, match, cookie = await db(guests_game)()
    own = sockets(match.id, cookie)
    assert (await own.open())["snapshot"]["your_seat"] == 0
    await db(adopt_guest)(guest_id=guest.pk, member=alice)
    assert await own.closed_with() == 4401
