"""Random frames at a live consumer: every one is answered, nothing changes, the socket lives.

Hypothesis throws text, binary, arbitrary JSON, near-miss requests and oversized frames at a
socket of each kind of sender (the player to move, the opponent, a spectator, an anonymous
viewer). After each example the match in the database is exactly as it was, the sender got
exactly one answer per frame, and the socket still answers a sync. Bystanders hear nothing.
"""

from __future__ import annotations

import json
import string
from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from hypothesis import HealthCheck, event, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from engine import Game, MoveError, move_from_dict
from lexicon.lexicon import Lexicon, get_lexicon
from matches.live.protocol import COMMIT_TYPES, MAX_FRAME_BYTES
from matches.models import Match
from tests.depth import repetitions
from tests.matches.test_ws_helpers import (
    Opener,
    Socket,
    assert_tiles_conserved,
    current_game,
    match_state,
    new_client_id,
    socket_opener,
)

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    """Opens sockets through the real application; closes them when the test ends."""
    async with socket_opener() as open_:
        yield open_


SENDERS = ("mover", "opponent", "spectator", "anonymous")

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
near_ints = st.integers(min_value=-3, max_value=20) | json_scalars
letters = st.sampled_from([*"AEQZ?", "", "ab", "a", "É"]) | json_scalars
tiles = st.fixed_dictionaries(
    {},
    optional={
        "row": near_ints,
        "col": near_ints,
        "letter": letters,
        "blank": st.booleans() | json_scalars,
        "extra": json_values,
    },
)
requests = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "swap", "pass", "sync", "take_seat", "hello"])},
    optional={
        "id": st.text(min_size=1, max_size=70) | json_scalars,
        "turn": near_ints,
        "tiles": st.lists(tiles | letters, max_size=9) | json_values,
        "position": near_ints,
        "colour": json_values,
    },
)
client_ids = st.text(min_size=1, max_size=64)
turns = st.integers(min_value=0, max_value=3)
board_tiles = st.fixed_dictionaries(
    {
        "row": st.integers(min_value=-1, max_value=15),
        "col": st.integers(min_value=-1, max_value=15),
        "letter": st.sampled_from([*string.ascii_uppercase, "?", "", "a", None]),
    },
    optional={"blank": st.booleans()},
)
# Well-formed envelopes with arbitrary content: these get past the parser to the service,
# where the rules refuse them (the player to move never gets a legal one: see harmless()).
well_formed = st.one_of(
    st.fixed_dictionaries({"type": st.just("pass"), "id": client_ids, "turn": turns}),
    st.fixed_dictionaries(
        {
            "type": st.just("swap"),
            "id": client_ids,
            "turn": turns,
            "tiles": st.lists(st.sampled_from([*string.ascii_uppercase, "?", "a", ""]), max_size=8),
        }
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("play"),
            "id": client_ids,
            "turn": turns,
            "tiles": st.lists(board_tiles, max_size=8),
        }
    ),
    st.fixed_dictionaries(
        {"type": st.just("take_seat"), "id": client_ids},
        optional={"position": st.sampled_from([None, 0, 1])},
    ),
    st.fixed_dictionaries({"type": st.just("sync")}, optional={"id": client_ids}),
)
frames = st.one_of(
    st.text(max_size=200),
    st.binary(max_size=200),
    json_values.map(json.dumps),
    requests.map(json.dumps),
    requests.map(lambda request: json.dumps(request)[:-1]),  # cut short
    well_formed.map(json.dumps),
    well_formed.map(json.dumps),
    st.integers(min_value=1, max_value=2000).map(
        lambda extra: json.dumps({"type": "sync", "pad": "x" * (MAX_FRAME_BYTES + extra)})
    ),
)


def harmless(frame: str | bytes, game: Game, lexicon: Lexicon) -> str | bytes:
    """The player to move must not make a legal move by chance: aim those at turn 1.

    The engine is the oracle: a commit against the current turn that it would accept is
    re-aimed at a turn that has not come, so it is refused as stale and changes nothing.
    """
    if isinstance(frame, bytes):
        return frame
    try:
        data = json.loads(frame)
    except ValueError:
        return frame
    if not (isinstance(data, dict) and data.get("type") in COMMIT_TYPES and data.get("turn") == 0):
        return frame
    move = {"kind": data["type"], **({"tiles": data["tiles"]} if "tiles" in data else {})}
    try:
        game.apply(move_from_dict(move), player=game.to_move, lexicon=lexicon)
    except MoveError:
        return frame  # refused by the rules: safe to send as it is
    return json.dumps({**data, "turn": 1})


@pytest.fixture(params=SENDERS)
async def arena(
    request, live_match, alice, bob, make_member, connect, settings
) -> AsyncIterator[dict[str, Any]]:
    """A live match with a socket for every kind of sender; the unchosen ones are bystanders."""
    settings.WS_RATE_BURST = 10**6  # the fuzzer is a flood by design; test parsing instead
    carol = await db(make_member)("carol")
    sockets = {
        "mover": (await connect(live_match.id, member=alice))[0],
        "opponent": (await connect(live_match.id, member=bob))[0],
        "spectator": (await connect(live_match.id, member=carol))[0],
        "anonymous": (await connect(live_match.id))[0],
    }
    baseline = await db(match_state)(live_match.id)
    yield {
        "game": await db(current_game)(live_match.id),
        "lexicon": await db(get_lexicon)("enable"),
        "sender": request.param,
        "socket": sockets[request.param],
        "match": live_match,
        "baseline": baseline,
    }
    for name, socket in sockets.items():
        if name != request.param:
            assert await socket.is_quiet(), f"the {name} heard {socket.unread}"
    await db(assert_tiles_conserved)(live_match.id)


@hypothesis_settings(
    max_examples=repetitions(full=100, quick=25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(batch=st.lists(frames, min_size=1, max_size=4))
async def test_random_frames_change_nothing_and_every_one_is_answered(
    arena: dict[str, Any], batch: list[str | bytes]
) -> None:
    socket: Socket = arena["socket"]
    match: Match = arena["match"]
    if arena["sender"] == "mover":
        batch = [harmless(frame, arena["game"], arena["lexicon"]) for frame in batch]

    for frame in batch:
        await socket.send(frame)
    answers = [await socket.next() for _ in batch]

    for answer in answers:
        event(f"{answer['type']}: {answer.get('code', answer.get('reason'))}")
        assert answer["type"] in {"error", "ack", "snapshot"}, answer
        if answer["type"] == "ack":
            assert answer["accepted"] is False, answer
        if answer["type"] != "snapshot":
            assert answer["code"] != "server_error", answer
            assert isinstance(answer["code"], str)
            assert isinstance(answer["message"], str)
            assert answer["message"]
    sync_id = new_client_id("after-fuzz")
    await socket.send({"type": "sync", "id": sync_id})
    still_there = await socket.next()  # the very next frame: no stray extra answers
    assert (still_there["type"], still_there.get("id")) == ("snapshot", sync_id)
    assert await db(match_state)(match.id) == arena["baseline"]
