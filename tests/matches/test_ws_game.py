"""Whole games over websockets, watched by a spectator and a viewing-key holder.

Two members play a members-only match to its end through their sockets, using only the
frames ``docs/PROTOCOL.md`` describes. Every update must reach every watcher, the game must
end inside the commit that ends it, and no frame to the opponent, the spectator or the key
holder may carry the other rack before the game ends; after it, the whole record is public.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser

from matches import services, visibility
from matches.models import Match, Seat, Turn
from tests.matches.test_ws_helpers import (
    Opener,
    Socket,
    assert_no_rack_leaks,
    assert_tiles_conserved,
    move_frame,
    seeded_match,
    socket_opener,
    some_move,
)

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async

#: A game of Word Duel lasts a few dozen turns; this bound only stops a runaway loop.
MAX_TURNS = 200


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    """Opens sockets through the real application; closes them when the test ends."""
    async with socket_opener() as open_:
        yield open_


def _final(match_id: int) -> tuple[Match, list[int]]:
    match = Match.objects.get(pk=match_id)
    scores = list(
        Seat.objects.filter(match_id=match_id).order_by("position").values_list("score", flat=True)
    )
    return match, scores


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_whole_game_reaches_every_watcher_and_never_shows_a_rack_to_anyone_else(
    seed, make_fixture, make_member, alice, bob, connect
):
    carol = await db(make_member)("carol")
    match = await db(seeded_match)(
        make_fixture, alice, bob, seed=seed, visibility=Match.Visibility.MEMBERS
    )
    alice_socket, _ = await connect(match.id, member=alice)
    bob_socket, _ = await connect(match.id, member=bob)
    carol_socket, _ = await connect(match.id, member=carol)
    key_socket, _ = await connect(match.id, key=match.viewing_key, name="key holder")
    players = [alice_socket, bob_socket]
    everyone = [*players, carol_socket, key_socket]
    rng = random.Random(seed)

    turn, to_move, kinds = 0, 0, set()
    while to_move is not None:
        assert turn < MAX_TURNS
        move = await db(some_move)(match.id, rng)
        mover = players[to_move]
        ack = await mover.request(move_frame(move, turn=turn, client_id=f"{seed}-{turn}"))
        assert ack["accepted"] is True, ack
        turn += 1
        kinds.add(move["kind"])
        for socket in everyone:
            news = (await socket.event("turn", number=turn))["data"]
            assert news["turn_number"] == turn
            if move["kind"] == "swap":
                assert (news["move"]["tiles"], news["move"]["swap_count"]) == (
                    [],
                    len(move["tiles"]),
                )
        rack = (await mover.event("rack"))["data"]["rack"]
        assert rack == ack["rack"]
        to_move = news["to_move"]
        await db(assert_tiles_conserved)(match.id)

    finished, scores = await db(_final)(match.id)
    assert finished.status == Match.Status.FINISHED
    assert finished.end_reason in {"played_out", "six_scoreless"}
    for socket in everyone:
        ended = (await socket.event("ended"))["data"]
        assert ended["result"] == finished.result
        assert ended["end_reason"] == finished.end_reason
        assert ended["scores"] == scores
        turns_seen = [f["data"]["move"]["number"] for f in socket.frames if f["type"] == "turn"]
        assert turns_seen == list(range(1, turn + 1)), f"{socket.name} missed an update"
        assert socket.frames.index(next(f for f in socket.frames if f["type"] == "ended")) > max(
            index for index, f in enumerate(socket.frames) if f["type"] == "turn"
        )
    assert "play" in kinds
    await _assert_bag_check_news(match.id, players, [carol_socket, key_socket], (alice, bob))

    views = [await socket.sync() for socket in everyone]
    for view in views:
        assert view["status"] == "finished"
        assert view["board"] == views[0]["board"]
        assert view["moves"] == views[0]["moves"]
        assert [seat["score"] for seat in view["seats"]] == scores
    for socket in everyone:
        assert await socket.is_quiet()
    await _assert_private(match.id, players, [carol_socket, key_socket])


def _record_for(match_id: int, member, key: str | None = None) -> dict:
    access = services.look_at_match(user=member, match_id=match_id, key=key)
    record = visibility.fairness_record(access)
    assert record is not None
    return record.model_dump(mode="json")


async def _assert_bag_check_news(
    match_id: int, players: list[Socket], watchers: list[Socket], members: tuple
) -> None:
    """After ``ended``: every socket, players and watchers alike, gets the one record of the
    bag check, the same as every viewer's page builds, with every seat's tiles of every turn
    (the whole record is public after the end), and nothing more of it."""
    key = (await db(Match.objects.get)(pk=match_id)).viewing_key
    spectator = await db(_record_for)(match_id, AnonymousUser(), key)
    for member in members:
        assert await db(_record_for)(match_id, member) == spectator
    turns = await db(_turn_tiles)(match_id)
    assert spectator["turn_tiles"] == turns
    for socket in [*players, *watchers]:
        assert (await socket.event("fairness"))["data"] == spectator
    for socket in [*players, *watchers]:
        assert not any(frame["type"] == "fairness" for frame in socket.unread), socket.name


def _turn_tiles(match_id: int) -> list[dict]:
    """Every turn's tiles as the database holds them."""
    return [
        {
            "number": turn.number,
            "position": turn.position,
            "rack_before": turn.rack_before,
            "drawn": turn.drawn,
            "swapped": turn.swapped if turn.kind == "swap" else "",
        }
        for turn in Turn.objects.filter(match_id=match_id).order_by("number")
    ]


async def _assert_private(match_id: int, players: list[Socket], watchers: list[Socket]) -> None:
    """No socket received a rack that is not its own seat's; no watcher got a rack frame."""
    await assert_no_rack_leaks(match_id, players, watchers)
    rack_frames = [
        frame for socket in watchers for frame in socket.frames if frame["type"] == "rack"
    ]
    assert rack_frames == []
