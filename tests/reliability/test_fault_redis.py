"""The channel layer goes away in the middle of a live game; the database stays the truth.

Daphne runs as a subprocess on a throwaway Redis (never the machine's shared one); real
websocket clients (the ``websockets`` package) play a seeded match through it.

* Redis is SIGKILLed while a commit waits inside its transaction (the test holds the match
  row): the commit still applies, exactly once, though its news can no longer be published;
  every socket is closed by the server, handshakes fail while Redis is down, and when Redis
  is back (empty: every group membership gone) the clients reconnect, redraw from the
  snapshot and play to the end, every later move reaching every client as a push.
* Redis is frozen (SIGSTOP: connections stay open, nothing answers): a commit made then is
  applied and acknowledged; when Redis answers again the clients resync and news flows.
"""

from __future__ import annotations

import asyncio

import pytest

from matches.live.broadcast import CLOSE_NEWS_LOST
from matches.models import Match, Turn
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

SEED = 11
MATCH_LOCK = "SELECT id FROM matches_match WHERE id = %s FOR UPDATE"


def _turn_count(match_id: int) -> int:
    return Turn.objects.filter(match_id=match_id).count()


async def _until(predicate, *, timeout: float, what: str):
    """A bounded wait on something the database or a client must come to show."""
    return await in_thread(wait_until, predicate, timeout=timeout, what=what)


def test_redis_killed_mid_commit_the_commit_applies_clients_resync_and_pushes_resume(
    start_daphne, redis_server, make_fixture, alice, bob
) -> None:
    web = start_daphne()
    match = seeded_match(make_fixture, alice, bob, seed=SEED)
    cookies = {alice: session_cookie(alice), bob: session_cookie(bob)}
    report: dict[str, object] = {}

    async def scenario() -> None:
        first = await LiveClient("alice", match.id, [web.ws_url], cookie=cookies[alice]).start()
        second = await LiveClient("bob", match.id, [web.ws_url], cookie=cookies[bob]).start()
        watcher = await LiveClient("watcher", match.id, [web.ws_url]).start()
        clients = [first, second, watcher]
        await asyncio.gather(
            play_out(first, 0, seed=SEED, timeout=60, max_moves=2),
            play_out(second, 1, seed=SEED, timeout=60, max_moves=2),
        )
        before = first.view.turn_number
        assert before == 4

        # A commit that is inside its transaction, waiting for the match row, when Redis dies.
        move = await oracle_move(match.id, before, SEED)
        frame = move_frame(move, turn=before, client_id=new_id("alice-outage"))
        with held_lock(MATCH_LOCK, [match.id]):
            in_flight = asyncio.create_task(first.request(frame, timeout=120))
            await _until(blocked_backends, timeout=30, what="the commit to wait for the row")
            redis_server.kill()
            await _until(
                lambda: not second.connected.is_set() and not watcher.connected.is_set(),
                timeout=30,
                what="the server to close the sockets that lost their layer",
            )
        # The row is free: the commit goes on and applies, with nowhere to publish its news.
        await _until(lambda: _turn_count(match.id) == before + 1, timeout=30, what="the commit")
        await _until(lambda: not first.connected.is_set(), timeout=30, what="alice's close")
        await _until(
            lambda: all(c.stats.failed_handshakes for c in clients),
            timeout=30,
            what="handshakes to be refused while the layer is down",
        )
        assert all(c.stats.close_codes[CLOSE_NEWS_LOST] == 1 for c in clients), [
            c.stats.close_codes for c in clients
        ]

        redis_server.start()  # empty: every group membership is gone
        answer = await in_flight
        assert answer["type"] == "ack", answer
        assert answer["accepted"], answer
        for client in clients:  # redrawn from the snapshot of the reconnect
            await client.wait_for_view(lambda v: v.turn_number >= before + 1, timeout=60)
        pushed_before = {c.name: set(c.stats.pushed_turns) for c in clients}
        assert all(before + 1 not in pushed for pushed in pushed_before.values())

        await asyncio.gather(
            play_out(first, 0, seed=SEED, timeout=150),
            play_out(second, 1, seed=SEED, timeout=150),
        )
        for client in clients:
            await client.wait_for_view(lambda v: v.status in OVER, timeout=60)
        final = first.view.turn_number
        for client in clients:  # every move after the restart arrived as a push
            missing = set(range(before + 2, final + 1)) - client.stats.pushed_turns
            assert not missing, f"{client.name} never heard turns {sorted(missing)}"
        for client, member in ((first, alice), (second, bob), (watcher, None)):
            expected = await in_thread(database_summary, match.id, member)
            assert client.view.summary() == expected, client.name
        report.update(
            frame_id=frame["id"],
            turns=final,
            answer_replayed=answer["replayed"],
            failed_handshakes=sum(c.stats.failed_handshakes for c in clients),
            reconnects=sum(c.stats.reconnects for c in clients),
        )
        for client in clients:
            await client.close()

    asyncio.run(scenario())

    turns = list(Turn.objects.filter(match_id=match.id).order_by("number"))
    assert [t.number for t in turns] == list(range(1, len(turns) + 1))
    outage = [t.number for t in turns if t.client_id == report["frame_id"]]
    assert outage == [5], outage  # applied, and once
    assert Match.objects.get(pk=match.id).is_over
    check_integrity()
    record_figures("redis-kill", report)


def test_redis_frozen_a_commit_still_applies_and_news_flows_again_after(
    start_daphne, redis_server, make_fixture, alice, bob
) -> None:
    # A shorter read timeout than production's 15 s: the same path, half the wait.
    web = start_daphne(REDIS_SOCKET_TIMEOUT="7")
    match = seeded_match(make_fixture, alice, bob, seed=SEED + 1)
    cookies = {alice: session_cookie(alice), bob: session_cookie(bob)}

    async def scenario() -> None:
        first = await LiveClient("alice", match.id, [web.ws_url], cookie=cookies[alice]).start()
        second = await LiveClient("bob", match.id, [web.ws_url], cookie=cookies[bob]).start()
        watcher = await LiveClient("watcher", match.id, [web.ws_url]).start()
        clients = [first, second, watcher]
        await asyncio.gather(
            play_out(first, 0, seed=SEED, timeout=60, max_moves=1),
            play_out(second, 1, seed=SEED, timeout=60, max_moves=1),
        )
        before = first.view.turn_number
        move = await oracle_move(match.id, before, SEED)
        frame = move_frame(move, turn=before, client_id=new_id("alice-frozen"))
        redis_server.freeze()
        try:
            answer = await first.request(frame, timeout=120)
            assert answer["type"] == "ack", answer
            assert answer["accepted"], answer
            assert await in_thread(_turn_count, match.id) == before + 1
        finally:
            redis_server.thaw()
        for client in clients:
            await client.wait_for_view(lambda v: v.turn_number >= before + 1, timeout=90)
        await asyncio.gather(
            play_out(first, 0, seed=SEED, timeout=90, max_moves=2),
            play_out(second, 1, seed=SEED, timeout=90, max_moves=2),
        )
        final = await in_thread(_turn_count, match.id)
        for client in clients:
            await client.wait_for_view(lambda v, n=final: v.turn_number >= n, timeout=60)
            assert final in client.stats.pushed_turns, client.name  # news flows again
        for client, member in ((first, alice), (second, bob), (watcher, None)):
            expected = await in_thread(database_summary, match.id, member)
            assert client.view.summary() == expected, client.name
        for client in clients:
            await client.close()

    asyncio.run(scenario())
    turns = Turn.objects.filter(match_id=match.id)
    assert turns.filter(client_id__startswith="alice-frozen").count() == 1
    check_integrity()
