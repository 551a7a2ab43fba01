"""A Daphne process is SIGKILLed with clients attached; they carry on through another one.

Three Daphne processes share one channels-redis layer (a throwaway Redis) and this run's
test database, as web processes behind a load balancer do. Real websocket clients know
all three addresses and fail over in order. Two kills:

1. Process A dies while a commit sent to it waits inside its transaction (the test holds
   the match row): nothing of it applies; the mover reconnects to B and resends the same
   frame with the same id, which applies there, once.
2. The mover's connection to B drops while its commit waits there; the commit applies with
   its acknowledgement lost, and B dies right after: everyone on B (the players and a
   watcher) moves to C, and the mover's resend of the same id is answered ``replayed``,
   not applied again.

The game is then played to the end on C; every client's view equals the database and
``check_integrity`` passes.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from autobahn.exception import Disconnected as SocketClosed

from matches.live.consumer import MatchConsumer
from matches.models import Turn
from matches.schemas import ErrorFrame
from tests.matches.test_ws_helpers import move_frame, seeded_match, session_cookie
from tests.reliability.clients import (
    OVER,
    LiveClient,
    database_summary,
    new_id,
    oracle_move,
    play_out,
)
from tests.reliability.harness import (
    blocked_backends,
    check_integrity,
    held_lock,
    in_thread,
    record_figures,
    wait_until,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(240)]

SEED = 31
MATCH_ROW = "SELECT id FROM matches_match WHERE id = %s FOR UPDATE"


async def _until(predicate, *, timeout: float, what: str) -> Any:
    return await in_thread(wait_until, predicate, timeout=timeout, what=what)


def _turns_with(match_id: int, client_id: str) -> list[int]:
    return list(
        Turn.objects.filter(match_id=match_id, client_id=client_id).values_list("number", flat=True)
    )


def test_clients_of_a_killed_daphne_reconnect_to_another_and_play_to_the_end(
    start_daphne, make_fixture, alice, bob
) -> None:
    web_a, web_b = start_daphne(), start_daphne()
    web_c = start_daphne(launch=False)
    servers = [web_a.ws_url, web_b.ws_url, web_c.ws_url]
    match = seeded_match(make_fixture, alice, bob, seed=SEED)
    members = {0: alice, 1: bob}
    cookies = {position: session_cookie(member) for position, member in members.items()}
    figures: dict[str, Any] = {"daphne_kills": 0}

    async def scenario() -> None:
        players = {
            position: await LiveClient(
                members[position].username, match.id, servers, cookie=cookies[position]
            ).start()
            for position in (0, 1)
        }
        watcher = await LiveClient("watcher", match.id, servers, prefer=1).start()
        clients = [players[0], players[1], watcher]
        await asyncio.gather(
            play_out(players[0], 0, seed=SEED, timeout=60, max_moves=3),
            play_out(players[1], 1, seed=SEED, timeout=60, max_moves=3),
        )
        assert [c.server for c in clients] == [web_a.ws_url, web_a.ws_url, web_b.ws_url]

        # 1. A dies with a commit waiting inside its transaction.
        number = players[0].view.turn_number
        mover = players[players[0].view.to_move]
        move = await oracle_move(match.id, number, SEED)
        frame = move_frame(move, turn=number, client_id=new_id("kill-a"))
        with held_lock(MATCH_ROW, [match.id]):
            sent = asyncio.create_task(mover.request(frame, timeout=90))
            await _until(
                lambda: blocked_backends(web_a.app_name),
                timeout=30,
                what="the commit to wait for the row",
            )
            web_a.kill()
            figures["daphne_kills"] += 1
        answer = await sent
        assert answer["accepted"], answer
        assert not answer["replayed"], answer  # the first attempt died with A: applied now
        assert await in_thread(_turns_with, match.id, frame["id"]) == [number + 1]
        assert [c.server for c in clients] == [web_b.ws_url] * 3
        await asyncio.gather(
            play_out(players[0], 0, seed=SEED, timeout=60, max_moves=2),
            play_out(players[1], 1, seed=SEED, timeout=60, max_moves=2),
        )

        # 2. The mover's connection drops while its commit waits in B's transaction; the
        #    commit then applies with nobody to tell, and B dies right after.
        web_c.start()
        number = players[0].view.turn_number
        mover = players[players[0].view.to_move]
        move = await oracle_move(match.id, number, SEED)
        frame = move_frame(move, turn=number, client_id=new_id("kill-b"))
        with held_lock(MATCH_ROW, [match.id]):
            sent = asyncio.create_task(mover.request(frame, timeout=90))
            await _until(
                lambda: blocked_backends(web_b.app_name),
                timeout=30,
                what="the commit to wait for the row",
            )
            mover.drop()
        await _until(lambda: _turns_with(match.id, frame["id"]), timeout=30, what="the commit on B")
        web_b.kill()
        figures["daphne_kills"] += 1
        answer = await sent
        assert answer["accepted"], answer
        assert answer["replayed"], answer  # answered again from the receipt, not re-applied
        assert await in_thread(_turns_with, match.id, frame["id"]) == [number + 1]

        await asyncio.gather(
            play_out(players[0], 0, seed=SEED, timeout=150),
            play_out(players[1], 1, seed=SEED, timeout=150),
        )
        for client in clients:
            await client.wait_for_view(lambda v: v.status in OVER, timeout=60)
        assert [c.server for c in clients] == [web_c.ws_url] * 3
        for client, member in zip(clients, (alice, bob, None), strict=True):
            expected = await in_thread(database_summary, match.id, member)
            assert client.view.summary() == expected, client.name
        figures.update(
            turns=players[0].view.turn_number,
            reconnects=sum(c.stats.reconnects for c in clients),
            resent=sum(c.stats.resent for c in clients),
        )
        for client in clients:
            await client.close()

    asyncio.run(scenario())
    numbers = list(
        Turn.objects.filter(match_id=match.id).order_by("number").values_list("number", flat=True)
    )
    assert numbers == list(range(1, len(numbers) + 1))
    check_integrity()
    record_figures("daphne", figures)


async def test_an_answer_to_a_client_that_hung_up_meanwhile_is_dropped_quietly() -> None:
    """Daphne refuses a send on a socket its client just closed (seen in the 150-match soak:
    a traceback and "Exception inside application" per hung-up client). Nobody is left to
    answer, so the consumer drops the frame instead of failing."""
    consumer = MatchConsumer()
    consumer.match_id = 1

    async def closed(message: dict[str, Any]) -> None:
        raise SocketClosed("Attempt to send on a closed protocol")

    consumer.base_send = closed
    await consumer._relay("{}")  # a frame of news
    await consumer._send(ErrorFrame(code="server_error", message="x"))  # an answer
