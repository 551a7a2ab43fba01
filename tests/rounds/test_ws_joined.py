"""A member joining an open rounds match is news to every socket on it (``joined``: every
player now), so the waiting page needs no polling; through the real application, the
channels-redis layer and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from channels.db import database_sync_to_async

from rounds import services
from rounds.services.errors import JoinRefused
from tests.rounds.helpers import open_match
from tests.rounds.ws_helpers import RoundsOpener, check_frames, rounds_sockets

pytestmark = pytest.mark.django_db(transaction=True)
db = database_sync_to_async


@pytest.fixture
async def connect() -> AsyncIterator[RoundsOpener]:
    async with rounds_sockets() as open_:
        yield open_


async def test_every_socket_hears_each_member_join(make_member, connect) -> None:
    alice, bob, carol = [await db(make_member)(name) for name in ("alice", "bob", "carol")]
    match = await db(open_match)(alice, start=False, gramma_ana=True)
    host, snapshot = await connect(match.pk, member=alice)
    assert snapshot["status"] == "open"
    assert [p["name"] for p in snapshot["players"]] == ["alice", "Gramma Ana"]
    spectator, _ = await connect(match.pk, name="spectator")

    await db(services.rounds_join)(match_id=match.pk, member=bob)
    for socket in (host, spectator):
        joined = await socket.event("joined")
        assert joined["match_id"] == match.pk
        players = joined["data"]["players"]
        assert [(p["position"], p["name"], p["gramma_ana"]) for p in players] == [
            (0, "alice", False),
            (1, "Gramma Ana", True),
            (2, "bob", False),
        ]
        assert players[2]["member_id"] == bob.pk
        assert not any(p["started"] or p["submitted"] or p["place"] for p in players)

    await db(services.rounds_join)(match_id=match.pk, member=carol)
    joined = await spectator.event("joined")
    assert [p["name"] for p in joined["data"]["players"]] == ["alice", "Gramma Ana", "bob", "carol"]
    # What the socket says is what a fresh snapshot says.
    fresh = await spectator.sync()
    assert fresh["players"] == joined["data"]["players"]
    # A refused join (twice) announces nothing.
    with pytest.raises(JoinRefused, match="already joined"):
        await db(services.rounds_join)(match_id=match.pk, member=carol)
    assert await spectator.is_quiet()
    for socket in (host, spectator):
        check_frames(socket)
