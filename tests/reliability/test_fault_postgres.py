"""A PostgreSQL backend dies in the middle of a commit: all of it applies, or none of it.

Daphne runs as a subprocess (its backends tagged with an ``application_name`` of their
own); real websocket clients play a seeded match through it. The test stops a commit at a
known point inside its transaction by holding a row it needs from a connection of its own,
then ``pg_terminate_backend``s the Daphne backend running that transaction (a backend of
this run's own test database, never anyone else's):

1. waiting for the match row (nothing written yet);
2. after the racks and scores were written, inserting the move (the test holds an
   uncommitted move of the same number);
3. after the move and the match were written, storing the receipt of the client id (the
   test holds an uncommitted receipt of the same id).

Each time the match is exactly as before, the sender is told ``server_error``, and its
retry of the same frame with the same id applies once. Then every Daphne backend is killed
while idle, between two commits: the next commit must not notice.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from matches.models import CommitReceipt, Turn
from tests.matches.test_ws_helpers import match_state, move_frame, seeded_match, session_cookie
from tests.reliability.clients import (
    LiveClient,
    database_summary,
    new_id,
    oracle_move,
    play_out,
)
from tests.reliability.harness import (
    backends_of,
    blocked_backends,
    check_integrity,
    held_lock,
    in_thread,
    record_figures,
    terminate_backend,
    wait_until,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timeout(180)]

SEED = 21

MATCH_ROW = "SELECT id FROM matches_match WHERE id = %(match)s FOR UPDATE"
SAME_TURN = (
    "INSERT INTO matches_turn (match_id, number, position, kind, placement, swap_count, words,"
    " score, first_total, second_total, bag_count, rack_before, swapped, drawn, client_id,"
    " record_hash, created_at) VALUES (%(match)s, %(number)s, 0, 'pass', '[]', 0, '[]', 0, 0,"
    " 0, 0, '', '', '', 'blocker', '', now())"
)
SAME_RECEIPT = (
    "INSERT INTO matches_commitreceipt (match_id, member_id, client_id, accepted, response,"
    " created_at) VALUES (%(match)s, %(member)s, %(client_id)s, false, '{}', now())"
)
KILL_POINTS = {
    "waiting for the match row": MATCH_ROW,
    "inserting the move, racks and scores written": SAME_TURN,
    "storing the receipt, move and match written": SAME_RECEIPT,
}


async def _until(predicate, *, timeout: float, what: str) -> Any:
    return await in_thread(wait_until, predicate, timeout=timeout, what=what)


def test_a_backend_killed_mid_commit_leaves_all_or_nothing_and_the_retry_applies_once(
    start_daphne, make_fixture, alice, bob
) -> None:
    web = start_daphne()
    match = seeded_match(make_fixture, alice, bob, seed=SEED)
    members = {0: alice, 1: bob}
    cookies = {position: session_cookie(member) for position, member in members.items()}
    figures: dict[str, Any] = {"killed_mid_commit": 0, "killed_idle": 0}

    async def one_commit_killed(players: dict[int, LiveClient], where: str, sql: str) -> None:
        view = players[0].view
        position = view.to_move
        mover = players[position]
        number = view.turn_number
        move = await oracle_move(match.id, number, SEED)
        frame = move_frame(move, turn=number, client_id=new_id(f"kill-{len(figures)}"))
        params = {
            "match": match.id,
            "number": number + 1,
            "member": members[position].pk,
            "client_id": frame["id"],
        }
        before = await in_thread(match_state, match.id)
        errors = mover.stats.server_errors
        with held_lock(sql, params):
            sent = asyncio.create_task(mover.request(frame, timeout=90))
            waiting = await _until(
                lambda: [pid for pid, _ in blocked_backends(web.app_name)],
                timeout=30,
                what=f"the commit to stop {where}",
            )
            assert await in_thread(terminate_backend, waiting[0])
            figures["killed_mid_commit"] += 1
            await _until(
                lambda: mover.stats.server_errors > errors, timeout=30, what="the server_error"
            )
            # Nothing of the killed transaction is left: the match is exactly as it was.
            assert await in_thread(match_state, match.id) == before, where
        # The test's row is gone; the client's retry (the same frame, the same id) applies.
        answer = await sent
        assert answer["type"] == "ack", answer
        assert answer["accepted"], answer
        logged = await in_thread(
            lambda: list(Turn.objects.filter(match_id=match.id, client_id=frame["id"]))
        )
        assert [turn.number for turn in logged] == [number + 1], where
        receipts = await in_thread(
            CommitReceipt.objects.filter(match_id=match.id, client_id=frame["id"]).count
        )
        assert receipts == 1
        for player in players.values():
            await player.wait_for_view(lambda v, n=number + 1: v.turn_number >= n, timeout=30)

    async def scenario() -> None:
        players = {
            position: await LiveClient(
                members[position].username, match.id, [web.ws_url], cookie=cookies[position]
            ).start()
            for position in (0, 1)
        }
        await asyncio.gather(
            play_out(players[0], 0, seed=SEED, timeout=60, max_moves=1),
            play_out(players[1], 1, seed=SEED, timeout=60, max_moves=1),
        )
        for where, sql in KILL_POINTS.items():
            await one_commit_killed(players, where, sql)

        # Every backend of the web process dies while idle, between two commits.
        for pid in await in_thread(backends_of, web.app_name):
            figures["killed_idle"] += int(await in_thread(terminate_backend, pid))
        assert figures["killed_idle"] >= 1
        errors = sum(p.stats.server_errors for p in players.values())
        await asyncio.gather(
            play_out(players[0], 0, seed=SEED, timeout=60, max_moves=2),
            play_out(players[1], 1, seed=SEED, timeout=60, max_moves=2),
        )
        # A dead idle connection is noticed before use (CONN_HEALTH_CHECKS): no error at all.
        assert sum(p.stats.server_errors for p in players.values()) == errors
        for position, player in players.items():
            expected = await in_thread(database_summary, match.id, members[position])
            assert player.view.summary() == expected
        figures["server_errors"] = sum(p.stats.server_errors for p in players.values())
        figures["turns"] = players[0].view.turn_number
        for player in players.values():
            await player.close()

    asyncio.run(scenario())
    check_integrity()
    record_figures("postgres", figures)
