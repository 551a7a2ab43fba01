"""A rematch offered, accepted or declined reaches both players' open sockets on the original
match at once (``rematch`` news), and nobody else's; the end of a game brings its seed."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from channels.db import database_sync_to_async

from challenges import services
from matches import services as match_services
from matches.models import Match
from tests.matches.test_ws_helpers import Opener, socket_opener

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    async with socket_opener() as open_:
        yield open_


async def test_rematch_news_reaches_both_players_and_no_one_else(
    make_fixture, make_member, alice, bob, connect
) -> None:
    carol = await db(make_member)("carol")
    match = await db(make_fixture)(first=alice, second=bob, name="Friendly")
    first, _ = await connect(match.id, member=alice)
    second, _ = await connect(match.id, member=bob)
    watcher, _ = await connect(match.id, member=carol)

    await db(match_services.match_resign)(match_id=match.id, member=alice, client_id="r-1")
    finished = await db(Match.objects.get)(pk=match.id)
    for socket in (first, second, watcher):
        ended = (await socket.event("ended"))["data"]
        assert ended["bag_seed"] == finished.bag_seed  # public now, and live

    await db(services.rematch_offer)(match_id=match.id, member=bob)
    for socket in (first, second):
        news = (await socket.event("rematch"))["data"]
        assert news == {"state": "offered", "offered_by": 1, "rematch_id": None}

    state = await db(services.rematch_accept)(match_id=match.id, member=alice)
    assert state.rematch is not None
    for socket in (first, second):
        news = (await socket.event("rematch", state="accepted"))["data"]
        assert news == {"state": "accepted", "offered_by": 1, "rematch_id": state.rematch.id}

    assert (await watcher.event("fairness"))["data"]["match_id"] == match.id  # the bag check
    assert not [frame for frame in watcher.frames if frame["type"] == "rematch"]
    assert await watcher.is_quiet()


async def test_a_declined_rematch_is_news_to_both_players(
    make_fixture, alice, bob, connect
) -> None:
    match = await db(make_fixture)(first=alice, second=bob, name="Friendly")
    await db(match_services.match_resign)(match_id=match.id, member=bob, client_id="r-1")
    first, _ = await connect(match.id, member=alice)
    second, _ = await connect(match.id, member=bob)
    await db(services.rematch_offer)(match_id=match.id, member=alice)
    await db(services.rematch_decline)(match_id=match.id, member=bob)
    for socket in (first, second):
        assert (await socket.event("rematch", state="offered"))["data"]["offered_by"] == 0
        assert (await socket.event("rematch", state="declined"))["data"]["rematch_id"] is None
