"""The rounds socket's limits and refusals, as the match socket's: a flood is refused frame
by frame (``rate_limited``) and then closed (4429); ``sync`` frames a minute are counted; a
frame that is not a request, or a play from a visitor, is answered, and nothing changes; an
unknown match closes 4404."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from rounds.models import RoundsMatch
from tests.matches.test_ws_helpers import ARRIVAL_TIMEOUT, headers_for
from tests.rounds.helpers import open_match
from tests.rounds.ws_helpers import RoundsOpener, rounds_path, rounds_sockets
from wordduel.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)
db = database_sync_to_async


@pytest.fixture
async def connect() -> AsyncIterator[RoundsOpener]:
    async with rounds_sockets() as open_:
        yield open_


async def test_a_flood_is_refused_then_closed(make_member, connect, settings) -> None:
    settings.WS_RATE_BURST = 3
    settings.WS_RATE_PER_SECOND = 0.001
    settings.WS_FLOOD_CLOSE_AFTER = 2
    alice, bob = await db(make_member)("alice"), await db(make_member)("bob")
    match = await db(open_match)(alice, bob)
    socket, _ = await connect(match.pk, member=alice)
    for number in range(8):
        await socket.send({"type": "start_round", "id": f"s-{number}", "round": 99})
    codes = []
    while True:
        message = await socket.communicator.receive_output(timeout=ARRIVAL_TIMEOUT)
        if message["type"] == "websocket.close":
            assert message["code"] == 4429
            break
        frame = json.loads(message["text"])
        codes.append(frame.get("code"))
    assert codes[:3] == ["stale_round"] * 3  # read: the service's refusal
    assert codes[3:] == ["rate_limited", "rate_limited"]  # then refused, then closed


async def test_bad_frames_and_visitors_change_nothing(make_member, connect) -> None:
    alice, bob = await db(make_member)("alice"), await db(make_member)("bob")
    match = await db(open_match)(alice, bob)
    socket, _ = await connect(match.pk, member=alice)
    await socket.send("not json")
    assert (await socket.next())["code"] == "bad_frame"
    answer = await socket.request({"type": "start_round", "id": "x", "round": 1, "more": 1})
    assert (answer["type"], answer["code"]) == ("error", "bad_frame")
    await socket.send(b"\x00")
    assert (await socket.next())["code"] == "binary_frame"
    visitor, _ = await connect(match.pk, name="visitor")
    answer = await visitor.request({"type": "pass", "id": "v", "round": 1})
    assert (answer["type"], answer["code"]) == ("error", "sign_in_required")
    fresh = await db(RoundsMatch.objects.get)(pk=match.pk)
    assert fresh.actions == []


async def test_an_unknown_match_closes_4404(make_member) -> None:
    communicator = WebsocketCommunicator(
        application, rounds_path(999999), headers=headers_for(None)
    )
    connected, _ = await communicator.connect(timeout=ARRIVAL_TIMEOUT)
    assert connected
    first = await communicator.receive_json_from(timeout=ARRIVAL_TIMEOUT)
    assert (first["type"], first["code"]) == ("error", "not_found")
    closed = await communicator.receive_output(timeout=ARRIVAL_TIMEOUT)
    assert (closed["type"], closed["code"]) == ("websocket.close", 4404)
    await communicator.disconnect()
