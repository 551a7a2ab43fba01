"""A whole Word Skill rounds match over real websockets: three members and Gramma Ana, with
a spectator watching, from round 1 to the end, using only the frames docs/PROTOCOL.md
("Word Skill rounds") describes. Carol never starts round 1: it closes at its deadline (the
sweep) and she scores nothing for it. Nobody sees another's tray or play before its round
closes; at the end the bag's seed is public and the log replays to the same totals."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async

from engine import Play
from engine.rounds import ABSENT, action_from_json, replay
from lexicon.lexicon import get_lexicon
from rounds import services
from rounds.models import RoundsMatch
from tests.matches.test_ws_helpers import Socket, new_client_id
from tests.rounds.helpers import best_move, open_match, record
from tests.rounds.ws_helpers import RoundsOpener, check_frames, rounds_sockets

pytestmark = pytest.mark.django_db(transaction=True)
db = database_sync_to_async
MAX_ROUNDS = 120


@pytest.fixture
async def connect() -> AsyncIterator[RoundsOpener]:
    async with rounds_sockets() as open_:
        yield open_


def _move_frame(match: RoundsMatch, number: int, *, passing: bool) -> dict[str, Any]:
    move = best_move(match)
    if passing or not isinstance(move, Play):
        return {"type": "pass", "id": new_client_id("pass"), "round": number}
    tiles = [
        {"row": t.row, "col": t.col, "letter": t.letter.upper(), "blank": t.blank}
        for t in move.tiles
    ]
    return {"type": "play", "id": new_client_id("play"), "round": number, "tiles": tiles}


def _fresh(match_id: int) -> RoundsMatch:
    return RoundsMatch.objects.get(pk=match_id)


def _close_at_deadline(match_id: int) -> list[int]:
    match = _fresh(match_id)
    assert match.round_deadline_at is not None
    return services.close_due_rounds(at=match.round_deadline_at + timedelta(seconds=1))


def _trays_seen(socket: Socket) -> list[str]:
    """Every tray a socket was shown in a frame that is not a round's closed record."""
    trays = []
    for frame in socket.frames:
        if frame["type"] == "round_started":
            trays.append(frame["data"]["tray"])
        elif frame["type"] == "ack" and frame.get("code") == "started":
            trays.append(frame["round"]["tray"])
        elif frame["type"] == "snapshot" and frame["snapshot"]["your_round"]:
            trays.append(frame["snapshot"]["your_round"]["tray"])
    return trays


async def test_three_members_and_gramma_ana_play_a_whole_match_over_sockets(
    make_member, connect
) -> None:
    alice, bob, carol = [await db(make_member)(name) for name in ("alice", "bob", "carol")]
    match = await db(open_match)(alice, bob, carol, gramma_ana=True)
    players = {alice: 0, bob: 2, carol: 3}  # Gramma Ana is 1: she joined with the host
    sockets: dict[Any, Socket] = {}
    for member, position in players.items():
        sockets[member], snapshot = await connect(match.pk, member=member)
        assert snapshot["your_position"] == position
        assert snapshot["your_round"] is None
    spectator, seen = await connect(match.pk, name="spectator")
    assert seen["your_position"] is None
    assert seen["bag_seed"] is None
    assert [p["gramma_ana"] for p in seen["players"]] == [False, True, False, False]

    number = 1
    while number <= MAX_ROUNDS:
        current = await db(_fresh)(match.pk)
        if current.status == RoundsMatch.Status.FINISHED:
            break
        assert current.round_number == number
        for member, position in players.items():
            if number == 1 and member == carol:
                continue  # carol never starts round 1
            started = await sockets[member].request(
                {"type": "start_round", "id": new_client_id("start"), "round": number}
            )
            assert started["accepted"], started
            assert started["code"] == "started"
            own = await sockets[member].event("round_started", number=number)
            assert own["data"]["tray"] == started["round"]["tray"]
            frame = await db(_move_frame)(current, number, passing=member == bob and number % 2)
            answer = await sockets[member].request(frame)
            assert answer["accepted"], answer
            assert answer["submission"]["player"] == position
        if number == 1:
            # Everyone else has played (Gramma Ana right after alice); carol has not started.
            progress = await spectator.event("progress", number=1)
            assert progress["data"]["submitted"][3] is False
            assert await db(_close_at_deadline)(match.pk) == [match.pk]
        closed = await spectator.event("round_closed", number=number)
        statuses = [p["status"] for p in closed["data"]["players"]]
        assert statuses[1] in {"played", "passed"}  # Gramma Ana always plays
        if closed["data"]["drawn"] is not None:  # the next tray's tiles stay hidden...
            assert (
                await db(_fresh)(match.pk)
            ).status == RoundsMatch.Status.FINISHED  # ...till the end
        for member in players:
            mine = await sockets[member].event("round_closed", number=number)
            assert mine["data"] == closed["data"]
        number += 1

    final = await db(_fresh)(match.pk)
    assert final.status == RoundsMatch.Status.FINISHED
    ended = await spectator.event("ended")
    seed = ended["data"]["bag_seed"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == ended["data"]["bag_commitment"]
    first = await db(record)(final, 1)
    assert first.status_of(3) == ABSENT
    assert first.scores[3] == 0
    # The log replays to the same game (the bag's check, for anyone, now the seed is public).
    game = replay(
        [action_from_json(row) for row in final.actions],
        players=4,
        seed=bytes.fromhex(seed),
        turn_time_ms=180_000,
        lexicon=get_lexicon("enable", max_len=15),
    )
    assert list(game.scores) == ended["data"]["totals"]
    assert game.end_reason == final.end_reason

    # Secrecy on the wire: the spectator never held a tray; each member only their own, and
    # only rounds they started (carol's first tray never reached her).
    assert _trays_seen(spectator) == []
    for member, socket in sockets.items():
        trays = _trays_seen(socket)
        expected = number - 1 - (1 if member == carol else 0)
        assert len(set(zip(range(len(trays)), trays, strict=True))) >= expected
        check_frames(socket)
    check_frames(spectator)
    # No submission of an open round ever reached someone else.
    for socket in (spectator, *sockets.values()):
        for frame in socket.frames:
            if frame["type"] == "progress":
                assert set(frame["data"]) == {"number", "started", "submitted"}
