"""The privacy scan itself can fail: each planted leak is caught, and clean frames pass.

``privacy_leaks`` is the net under every websocket test; these plants prove it holds. A
rack leaked under a field the protocol does not name, in another order, in part, as the
receiver's own rack, as a "word" of a move, as letters on the board, or as the record of a
finished game sent before the game ended: each is found.
"""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser

from matches import services, visibility
from matches.schemas import SnapshotFrame, TurnFrame, encode
from tests.matches.helpers import commit_move, opening_play
from tests.matches.test_ws_helpers import (
    Opener,
    privacy_leaks,
    public_record,
    rack_of,
    racks_ever_held,
    socket_opener,
)

db = database_sync_to_async


@pytest.fixture
def played(live_match, alice) -> dict[str, Any]:
    """After alice's opening: the frames a spectator and bob would have, and both racks."""
    commit_move(
        match_id=live_match.id,
        member=alice,
        move=opening_play(rack_of(live_match.id, 0)),
        against_turn=0,
        client_id="open",
    )
    access = services.look_at_match(user=AnonymousUser(), match_id=live_match.id, key=None)
    snapshot = SnapshotFrame(reason="connect", snapshot=visibility.match_view(access))
    turn = access.turns[-1]
    news = TurnFrame(
        match_id=live_match.id,
        data=visibility.turn_news(
            access.match, turn, access.seats, previous_hash=access.match.bag_commitment
        ),
    )
    return {
        "frames": [json.loads(encode(snapshot)), json.loads(encode(news))],
        "alice": racks_ever_held(live_match.id, 0),
        "bob": racks_ever_held(live_match.id, 1),
        "public": public_record(live_match.id),
    }


def scan(frames: list[dict[str, Any]], played: dict[str, Any], **mine: set[str]) -> list[str]:
    """A spectator's scan (no rack of their own) unless ``own_racks`` is given."""
    return privacy_leaks(
        frames,
        own_racks=mine.get("own_racks", set()),
        foreign_racks=played["alice"] | played["bob"],
        public=played["public"],
    )


pytestmark = pytest.mark.django_db


def test_clean_frames_pass(played) -> None:
    assert scan(played["frames"], played) == []


def test_a_rack_under_a_field_the_protocol_does_not_name_is_caught(played) -> None:
    frames = copy.deepcopy(played["frames"])
    frames[1]["data"]["hint"] = next(iter(played["bob"]))
    assert any("does not name" in leak for leak in scan(frames, played))


def test_a_rack_in_another_order_in_a_text_field_is_caught(played) -> None:
    frames = copy.deepcopy(played["frames"])
    rack = next(iter(played["bob"]))
    frames[0]["snapshot"]["seats"][1]["name"] = rack[::-1]
    assert any("from the rack" in leak for leak in scan(frames, played))


def test_part_of_a_rack_is_caught(played) -> None:
    frames = copy.deepcopy(played["frames"])
    rack = next(iter(played["bob"]))
    frames[1]["data"]["seats"][1]["label"] = f"Second ({rack[-2:]})"  # two tiles only
    assert any("from the rack" in leak for leak in scan(frames, played))


def test_someone_elses_rack_as_my_rack_is_caught(played) -> None:
    frames = copy.deepcopy(played["frames"])
    rack = sorted(next(iter(played["bob"])), reverse=True)
    frames[0]["snapshot"]["rack"] = rack
    frames[0]["snapshot"]["your_seat"] = 0
    own = {"own_racks": played["alice"]}
    assert any("not the receiver's" in leak for leak in scan(frames, played, **own))


def test_a_rack_dressed_as_a_word_or_a_tile_is_caught(played) -> None:
    rack = next(iter(played["bob"]))
    as_word = copy.deepcopy(played["frames"])
    as_word[1]["data"]["move"]["words"][0]["tiles"] = rack
    assert any("not the one logged" in leak for leak in scan(as_word, played))
    on_board = copy.deepcopy(played["frames"])
    row = on_board[0]["snapshot"]["board"][0]
    on_board[0]["snapshot"]["board"][0] = rack[0] + row[1:]
    assert any("no such tile" in leak for leak in scan(on_board, played))


def test_the_whole_record_before_the_end_is_caught_and_after_it_passes(played) -> None:
    """Every seat's tiles (the record after the end) pass in a frame after ``ended`` and are
    caught in one before it, whichever field carries them."""
    bob = next(iter(played["bob"]))
    record = {"type": "fairness", "match_id": 1, "data": {"turn_tiles": [
        {"number": 2, "position": 1, "rack_before": bob, "drawn": "", "swapped": ""}],
        "final_racks": ["", bob]}}  # fmt: skip
    ended = {"type": "ended", "match_id": 1, "data": {}}
    early = scan([*played["frames"], record], played)
    before_the_end = f"a seat's tiles before the end of the game: {bob}"
    assert f"{before_the_end} (fairness at data/turn_tiles/0/rack_before)" in early, early
    assert f"{before_the_end} (fairness at data/final_racks/1)" in early, early
    late = scan([*played["frames"], ended, record], played)
    assert not [leak for leak in late if "before the end" in leak], late


@pytest.fixture
async def connect() -> AsyncIterator[Opener]:
    async with socket_opener() as open_:
        yield open_


@pytest.mark.django_db(transaction=True)
async def test_a_leak_planted_in_the_product_is_caught_on_the_wire(
    live_match, alice, connect, monkeypatch
) -> None:
    """The plant in the product: every seat's name carries the other seat's rack."""
    racks = {0: await db(rack_of)(live_match.id, 0), 1: await db(rack_of)(live_match.id, 1)}

    def leaky_name(seat: Any) -> str:
        return racks[1 - seat.position][::-1]

    monkeypatch.setattr(visibility.payloads, "seat_name", leaky_name)
    socket, _ = await connect(live_match.id, member=alice)
    leaks = privacy_leaks(
        socket.frames,
        own_racks={racks[0]},
        foreign_racks={racks[1]},
        public=await db(public_record)(live_match.id),
    )
    assert leaks, "the planted leak went unseen"
