"""A table of four over the sockets, with a spectator, to its end: a phony challenged and
withdrawn, every turn in seat order reaching every watcher, the game-ending play's window
closed by the clock, and no rack shown to anyone but its holder before the end."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async

from matches import services
from matches.integrity import match_problems
from matches.models import Match, Seat, Turn
from matches.records import verify_bag
from tests.matches.table_helpers import phony_opening, table_match
from tests.matches.test_ws_helpers import (
    Opener,
    move_frame,
    privacy_leaks,
    public_record,
    racks_ever_held,
    socket_opener,
    some_move,
)

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async
MAX_TURNS = 400


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    async with socket_opener() as open_:
        yield open_


def _phony(match_id: int) -> dict:
    return phony_opening(Match.objects.get(pk=match_id)).to_dict()


def _rack_before_turn_one(match_id: int) -> str:
    return Turn.objects.get(match_id=match_id, number=1).rack_before


def _close_window(match_id: int) -> list[int]:
    match = Match.objects.get(pk=match_id)
    assert match.turn_deadline_at is not None
    return services.close_challenge_windows(now=match.turn_deadline_at + timedelta(seconds=1))


def _finished(match_id: int) -> tuple[Match, list[int], list[int | None], list[str]]:
    match = Match.objects.get(pk=match_id)
    seats = list(Seat.objects.filter(match_id=match_id).order_by("position"))
    return (
        match,
        [seat.score for seat in seats],
        [seat.place for seat in seats],
        match_problems(match) + verify_bag(match).mismatches,
    )


async def test_four_players_and_a_spectator_play_a_challenged_table_to_its_end(
    make_member, organiser, connect
):
    members = [await db(make_member)(name) for name in ("ann", "ben", "cat", "dan")]
    eve = await db(make_member)("eve")
    match = await db(table_match)(organiser, members, seed=11, challenge="single")
    sockets = []
    for member in members:
        socket, snapshot = await connect(match.id, member=member)
        assert (snapshot["seat_count"], len(snapshot["seats"])) == (4, 4)
        assert len(snapshot["rack"] or []) == 7
        sockets.append(socket)
    spectator, seen = await connect(match.id, member=eve)
    assert (seen["rack"], seen["your_seat"]) == (None, None)
    everyone = [*sockets, spectator]
    to_move = seen["to_move"]

    # The first player opens with a phony; the player after next challenges it.
    phony = await db(_phony)(match.id)
    opening = move_frame(phony, turn=0, client_id="phony", after=seen["bag_commitment"])
    ack = await sockets[to_move].request(opening)
    assert ack["accepted"] is True, ack
    for socket in everyone:
        news = (await socket.event("turn", number=1))["data"]
        assert news["open_play"]["player"] == to_move
        assert to_move not in news["open_play"]["challengers"]
    on_the_phony = news["move"]["record_hash"]  # the position the next player sees
    challenger = sockets[(to_move + 2) % 4]
    answer = await challenger.request({"type": "challenge", "id": "ch-1", "turn": 1})
    assert (answer["code"], answer["challenge"]["withdrawn"]) == ("challenged", True), answer
    for socket in everyone:
        result = (await socket.event("challenge_result"))["data"]
        assert result["challenge"]["phonies"]
        assert result["move"]["challenge"]["withdrawn"]
        assert all(row == "." * 15 for row in result["board"])
        assert result["to_move"] == (to_move + 1) % 4
    position = result["move"]["record_hash"]
    assert position != on_the_phony  # the challenge changed the position, not the turn
    after_play = (await sockets[to_move].event("rack"))["data"]["rack"]  # news in order:
    assert after_play == ack["rack"]  # the rack the phony's draw made, then ...
    restored = (await sockets[to_move].event("rack"))["data"]["rack"]  # ... the one restored
    played_from = await db(_rack_before_turn_one)(match.id)
    assert sorted(restored) == sorted(played_from)  # the phony's tiles back on the rack

    # The next player's pass, composed on the phony's board and sent after the challenge
    # (the race lost): refused as stale with the board as it is now, and nothing changes.
    stale = move_frame({"kind": "pass"}, turn=1, client_id="late", after=on_the_phony)
    refused = await sockets[(to_move + 1) % 4].request(stale)
    assert (refused["accepted"], refused["code"]) == (False, "stale_turn"), refused
    assert refused["snapshot"]["turn_number"] == 1
    assert refused["snapshot"]["moves"][-1]["record_hash"] == position
    assert all(row == "." * 15 for row in refused["snapshot"]["board"])
    unnamed = await sockets[(to_move + 1) % 4].request({"type": "pass", "id": "bare", "turn": 1})
    assert (unnamed["accepted"], unnamed["code"]) == (False, "position_required"), unnamed

    rng = random.Random(11)
    turn, to_move = 1, (to_move + 1) % 4
    while to_move is not None:
        assert turn < MAX_TURNS
        move = await db(some_move)(match.id, rng)
        frame = move_frame(move, turn=turn, client_id=f"t{turn}", after=position)
        ack = await sockets[to_move].request(frame)
        assert ack["accepted"] is True, ack
        turn += 1
        for socket in everyone:
            news = (await socket.event("turn", number=turn))["data"]
            assert news["move"]["position"] == to_move
        position = news["move"]["record_hash"]
        expected_next = (to_move + 1) % 4
        to_move = news["to_move"]
        assert to_move in (None, expected_next)

    match_now = await db(Match.objects.get)(pk=match.id)
    if match_now.status == Match.Status.LIVE:  # a game-ending play waits for its window
        assert await db(_close_window)(match.id) == [match.id]
    finished, scores, places, problems = await db(_finished)(match.id)
    assert problems == []
    assert finished.status == Match.Status.FINISHED
    assert finished.result == "table"
    assert None not in places
    assert 1 in places
    for socket in everyone:
        ended = (await socket.event("ended"))["data"]
        assert (ended["result"], ended["scores"], ended["places"]) == ("table", scores, places)

    held = [await db(racks_ever_held)(match.id, position) for position in range(4)]
    public = await db(public_record)(match.id)
    for position, socket in enumerate(sockets):
        others = set().union(*(held[p] for p in range(4) if p != position))
        leaks = privacy_leaks(
            socket.frames, own_racks=held[position], foreign_racks=others, public=public
        )
        assert not leaks, f"{socket.name}: {leaks}"
    leaks = privacy_leaks(
        spectator.frames, own_racks=set(), foreign_racks=set().union(*held), public=public
    )
    assert not leaks, leaks
    assert not any(frame["type"] == "rack" for frame in spectator.frames)
