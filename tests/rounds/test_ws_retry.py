"""A retried socket request (the same id: its answer was lost on the way) is answered as the
first time and changes nothing, as a match's socket answers a repeated id: a start, a play
(even once its round has closed); an id reused for another kind of request is refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.db import database_sync_to_async

from engine import Play
from rounds.models import RoundsMatch, RoundsReceipt
from tests.rounds.helpers import best_move, open_match
from tests.rounds.ws_helpers import RoundsOpener, check_frames, rounds_sockets

pytestmark = pytest.mark.django_db(transaction=True)
db = database_sync_to_async


@pytest.fixture
async def connect() -> AsyncIterator[RoundsOpener]:
    async with rounds_sockets() as open_:
        yield open_


def _play_frame(match_id: int, client_id: str) -> dict[str, Any]:
    move = best_move(RoundsMatch.objects.get(pk=match_id))
    assert isinstance(move, Play)
    tiles = [
        {"row": t.row, "col": t.col, "letter": t.letter.upper(), "blank": t.blank}
        for t in move.tiles
    ]
    return {"type": "play", "id": client_id, "round": 1, "tiles": tiles}


def _log_length(match_id: int) -> int:
    return len(RoundsMatch.objects.get(pk=match_id).actions)


async def test_a_retried_request_is_answered_the_same_and_changes_nothing(
    make_member, connect
) -> None:
    alice, bob = [await db(make_member)(name) for name in ("alice", "bob")]
    match = await db(open_match)(alice, bob)
    socket, _ = await connect(match.pk, member=alice)
    bobs, _ = await connect(match.pk, member=bob)

    start = {"type": "start_round", "id": "a-start", "round": 1}
    first = await socket.request(start)
    assert first["accepted"], first
    logged = await db(_log_length)(match.pk)
    again = await socket.request(start)
    assert again == first  # not "You have already started this round."
    assert await db(_log_length)(match.pk) == logged

    play = await db(_play_frame)(match.pk, "a-play")
    played = await socket.request(play)
    assert played["accepted"], played
    assert played["code"] == "submitted"
    logged = await db(_log_length)(match.pk)
    assert await socket.request(play) == played
    assert await db(_log_length)(match.pk) == logged

    # The same id for another kind of request: refused, nothing changed.
    reused = await socket.request({"type": "start_round", "id": "a-play", "round": 1})
    assert reused["accepted"] is False
    assert reused["code"] == "id_taken"
    assert reused["message"] == "That request id was used for another request. Send a new one."

    # bob finishes the round: it closes; alice's retry still gets her first answer.
    assert (await bobs.request({"type": "start_round", "id": "b-s", "round": 1}))["accepted"]
    assert (await bobs.request({"type": "pass", "id": "b-p", "round": 1}))["accepted"]
    await socket.event("round_closed", number=1)
    assert await socket.request(play) == played
    # A fresh id for the closed round is a stale request, as before.
    stale = await socket.request({**play, "id": "a-late"})
    assert stale["code"] == "stale_round"
    # Each id is one member's: bob's "a-start" is his own request, taken as new.
    bob_start = await bobs.request({"type": "start_round", "id": "a-start", "round": 2})
    assert bob_start["accepted"], bob_start
    kinds = await db(lambda: sorted(RoundsReceipt.objects.values_list("client_id", "kind")))()
    assert ("a-play", "submit") in kinds
    assert ("a-start", "start") in kinds
    for each in (socket, bobs):
        check_frames(each)
