"""A whole Reword game over websockets: two members swap and steal tiles from the board.

Both players and a spectator hold real sockets (the ASGI application, channels-redis,
PostgreSQL). The players send only the frames docs/PROTOCOL.md describes: a play with
``takes`` for a turn with swaps and steals, each found by the engine's own generator. Every
turn reaches every socket with its takes; a refused take-play is relayed with its code and
changes nothing; no frame shows a rack to anyone else before the end. After it, the replay
and the GCG export (over HTTP) show the takes, and the bag checks verify every draw.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from engine import StealTake, SwapTake, TakePlay
from engine.gcg import STEAL_TAKE, SWAP_TAKE, game_from_gcg, parse_gcg
from matches import offline_check
from matches.models import Match, Turn
from matches.records import verify_bag
from tests.matches.reword_helpers import planned_move, play_frame, reword_match
from tests.matches.test_ws_helpers import (
    Opener,
    assert_no_rack_leaks,
    assert_tiles_conserved,
    current_game,
    match_state,
    socket_opener,
)

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async

#: A game lasts a few dozen turns; this bound only stops a runaway loop.
MAX_TURNS = 120


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    async with socket_opener() as open_:
        yield open_


def _refused_take(match_id: int, move: TakePlay) -> TakePlay:
    """``move`` with its takes replaced by a steal from an empty square: refused."""
    board = current_game(match_id).board
    empty = next(index for index, cell in enumerate(board.cells) if cell is None)
    return TakePlay((StealTake(empty // board.size, empty % board.size),), move.tiles)


async def test_two_members_play_a_whole_reword_game_with_swaps_and_steals(
    make_fixture, make_member, alice, bob, connect
):
    carol = await db(make_member)("carol")
    match = await db(reword_match)(
        make_fixture, alice, bob, seed=11, visibility=Match.Visibility.MEMBERS
    )
    alice_socket, snapshot = await connect(match.id, member=alice)
    assert snapshot["ruleset"] == "reword"
    bob_socket, _ = await connect(match.id, member=bob)
    carol_socket, _ = await connect(match.id, member=carol)
    players = [alice_socket, bob_socket]
    everyone = [*players, carol_socket]

    turn, to_move, sent = 0, 0, []
    refused_once = False
    while to_move is not None:
        assert turn < MAX_TURNS
        mover = players[to_move]
        move = planned_move(await db(current_game)(match.id))
        if isinstance(move, TakePlay) and not refused_once:
            before = await db(match_state)(match.id)
            bad = await db(_refused_take)(match.id, move)
            ack = await mover.request(play_frame(bad, turn=turn, client_id="refused"))
            assert ack["accepted"] is False
            assert ack["code"] == "no_tile_to_take", ack
            assert ack["message"] == "There is no tile on that square to swap or steal."
            assert await db(match_state)(match.id) == before
            refused_once = True
        ack = await mover.request(play_frame(move, turn=turn, client_id=f"rw-{turn}"))
        assert ack["accepted"] is True, (ack, move)
        turn += 1
        sent.append(move)
        for socket in everyone:
            news = (await socket.event("turn", number=turn))["data"]
            shown = news["move"]
            expected = move.to_dict().get("takes", [])
            assert [(t["take"], t["row"], t["col"]) for t in shown["takes"]] == [
                (t["take"], t["row"], t["col"]) for t in expected
            ]
            if isinstance(move, TakePlay):
                assert shown["kind"] == "play"
                assert shown["tiles"] == [tile.to_dict() for tile in move.tiles]
        rack = (await mover.event("rack"))["data"]["rack"]
        assert rack == ack["rack"]
        to_move = news["to_move"]
        await db(assert_tiles_conserved)(match.id)

    assert refused_once
    takes = [t for m in sent if isinstance(m, TakePlay) for t in m.takes]
    assert sum(isinstance(t, StealTake) for t in takes) >= 2
    assert sum(isinstance(t, SwapTake) for t in takes) >= 2
    assert any(isinstance(m, TakePlay) and len(m.takes) == 2 for m in sent)
    finished = await db(Match.objects.get)(pk=match.id)
    assert finished.status == Match.Status.FINISHED
    for socket in everyone:
        ended = (await socket.event("ended"))["data"]
        assert ended["result"] == finished.result
        fairness = (await socket.event("fairness"))["data"]
        ok, lines = offline_check.check(fairness)
        assert ok, lines
    views = [await socket.sync() for socket in everyone]
    for view in views:
        assert view["board"] == views[0]["board"]
        assert view["moves"] == views[0]["moves"]
    assert sum(len(move["takes"]) for move in views[0]["moves"]) == len(takes)
    await assert_no_rack_leaks(match.id, players, [carol_socket])
    await db(_assert_record)(
        match.id, carol, len(takes), sum(isinstance(t, SwapTake) for t in takes)
    )


def _assert_record(match_id: int, member, take_count: int, swap_count: int) -> None:
    """The finished game's replay (the API) and GCG export (the page's link) show every
    take, and the server's bag check verifies it."""
    match = Match.objects.get(pk=match_id)
    assert verify_bag(match).ok, verify_bag(match).mismatches
    client = Client()
    client.force_login(member)
    turns = list(Turn.objects.filter(match_id=match_id).order_by("number"))
    replay = client.get(f"/api/matches/{match_id}/replay", {"turn": len(turns)})
    assert replay.status_code == 200, replay.content
    moves = replay.json()["moves"]
    assert [move["takes"] for move in moves] == [turn.takes for turn in turns]
    response = client.get(reverse("match-export-gcg", args=[match_id]))
    assert response.status_code == 200
    record = parse_gcg(response.content.decode())
    kinds = [event.kind for event in record.events]
    assert kinds.count(SWAP_TAKE) == swap_count
    assert kinds.count(STEAL_TAKE) == take_count - swap_count
    # the record is the game: rebuilt from it alone (its takes included), the same scores
    rebuilt = game_from_gcg(record, ruleset="reword", lexicon=None)
    seats = match.seats.order_by("position")
    assert list(rebuilt.scores) == [seat.score for seat in seats]
