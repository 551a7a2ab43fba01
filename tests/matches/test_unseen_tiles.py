"""The unseen-tiles tracker shows nothing a viewer could not count at the table.

Two members play a whole game over their sockets while a signed-out spectator watches.
After every move each socket asks for a snapshot, and its ``unseen`` must be exactly what
that socket's own frames allow: the ruleset's tiles, less the board (a blank as a blank),
less the viewer's own rack as its own frames last showed it (a spectator: the board only).
The racks of the other seat never reach the opponent or the spectator (the leak scan of
``test_ws_helpers``). Plants prove the comparison catches a tracker that counts too much.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async

from engine import get_ruleset
from matches.models import Match, Seat
from matches.visibility import payloads
from tests.depth import QUICK
from tests.matches.test_ws_helpers import (
    Opener,
    Socket,
    move_frame,
    privacy_leaks,
    public_record,
    rack_of,
    racks_ever_held,
    seeded_match,
    socket_opener,
    some_move,
)

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async

MAX_TURNS = 200
VOWELS = set("AEIOU")


@pytest.fixture
async def connect(settings: Any) -> AsyncIterator[Opener]:
    # A sync from every socket after every move, as fast as the server answers: faster than
    # any person, so the flood limit (which refuses without the request's id) is lifted.
    settings.WS_RATE_BURST = 10**6
    async with socket_opener() as open_:
        yield open_


# ---------------------------------------------------------------- what the frames allow


def whole_set(ruleset: str) -> Counter[str]:
    """Every tile of the ruleset, from its published distribution (not the product's code)."""
    return Counter(dict(get_ruleset(ruleset).distribution))


def own_rack_seen(frames: list[dict[str, Any]]) -> list[str] | None:
    """The newest rack these frames showed their receiver (snapshots, rack news and accepted
    acks), by turn number, as the page keeps it; None for a socket that holds no seat."""
    rack, at = None, -1
    for frame in frames:
        if frame["type"] == "snapshot":
            found = frame["snapshot"]["rack"], frame["snapshot"]["turn_number"]
        elif frame["type"] == "rack":
            found = frame["data"]["rack"], frame["data"]["turn_number"]
        elif frame["type"] == "ack" and frame.get("accepted") and "rack" in frame:
            found = frame["rack"], frame["turn_number"]
        else:
            continue
        if found[0] is not None and found[1] >= at:
            rack, at = found
    return rack


def board_seen(frames: list[dict[str, Any]]) -> list[str]:
    """The board as these frames built it: the first snapshot's, then each move's tiles."""
    first = next(frame["snapshot"] for frame in frames if frame["type"] == "snapshot")
    board = [list(row) for row in first["board"]]
    for frame in frames:
        if frame["type"] == "turn":
            for tile in frame["data"]["move"]["tiles"]:
                letter = tile["letter"].lower() if tile["blank"] else tile["letter"]
                board[tile["row"]][tile["col"]] = letter
    return ["".join(row) for row in board]


def allowed_unseen(frames: list[dict[str, Any]], ruleset: str) -> Counter[str]:
    """What a viewer with these frames could count as unseen: the set, less the board (a
    blank is a blank, whatever it stands for), less their own rack."""
    unseen = whole_set(ruleset)
    for row in board_seen(frames):
        unseen.subtract(char if char.isupper() else "?" for char in row if char != ".")
    unseen.subtract(own_rack_seen(frames) or [])
    return +unseen


def tracker_errors(frames: list[dict[str, Any]], ruleset: str) -> list[str]:
    """Where the newest snapshot's ``unseen`` is not what the frames up to it allow."""
    at = max(index for index, frame in enumerate(frames) if frame["type"] == "snapshot")
    frames = frames[: at + 1]
    snapshot = frames[at]["snapshot"]
    unseen = snapshot["unseen"]
    shown = Counter({item["tile"]: item["count"] for item in unseen["tiles"]})
    allowed = allowed_unseen(frames, ruleset)
    errors = []
    if shown != allowed:
        errors.append(f"turn {snapshot['turn_number']}: shows {shown - allowed} too many, "
                      f"{allowed - shown} too few")  # fmt: skip
    order = [item["tile"] for item in unseen["tiles"]]
    if order != sorted(order, key=lambda tile: (tile == "?", tile)):
        errors.append(f"not in the order A to Z, then ?: {order}")
    vowels = sum(shown[tile] for tile in VOWELS)
    sums = (unseen["total"], unseen["vowels"], unseen["consonants"], unseen["blanks"])
    if sums != (shown.total(), vowels, shown.total() - vowels - shown["?"], shown["?"]):
        errors.append(f"totals {sums} are not the counts' {shown}")
    # At the table: the bag's count and the racks' counts (the opponent's, for a player).
    others = [s["rack_count"] for s in snapshot["seats"] if s["position"] != snapshot["your_seat"]]
    if snapshot["status"] == "live" and unseen["total"] != snapshot["bag_count"] + sum(others):
        errors.append(f"total {unseen['total']} is not the bag's and the other racks' counts")
    return errors


# ---------------------------------------------------------------- a game to watch


def deal_into(match_id: int, position: int, tiles: str) -> str:
    """Test data: swap tiles of a seat's rack for ``tiles`` from the bag (all conserved)."""
    match = Match.objects.get(pk=match_id)
    state = match.game_state
    seat = Seat.objects.get(match_id=match_id, position=position)
    rack, bag = list(seat.rack), list(state["bag"])
    for tile in tiles:
        if tile in rack:
            continue
        index = next(i for i, held in enumerate(rack) if held not in tiles)
        at = bag.index(tile)
        bag[at], rack[index] = rack[index], tile
    state["bag"] = "".join(bag)
    Match.objects.filter(pk=match_id).update(game_state=state)
    Seat.objects.filter(pk=seat.pk).update(rack="".join(sorted(rack)))
    return "".join(rack)


#: First's opening: AT across the star, the A a blank.
BLANK_OPENING = {
    "kind": "play",
    "tiles": [
        {"row": 7, "col": 7, "letter": "A", "blank": True},
        {"row": 7, "col": 8, "letter": "T", "blank": False},
    ],
}


async def play_and_check(
    match: Match, players: list[Socket], spectator: Socket, *, seed: int
) -> list[str]:
    """Play the game to its end (the opening puts a blank down), checking every socket's
    snapshot after every move; every error found."""
    everyone = [*players, spectator]
    rng = random.Random(seed)
    errors: list[str] = []
    for socket in everyone:
        errors += [f"{socket.name}: {e}" for e in tracker_errors(socket.frames, match.ruleset)]
    turn, to_move = 0, 0
    while to_move is not None:
        assert turn < MAX_TURNS
        move = BLANK_OPENING if turn == 0 else await db(some_move)(match.id, rng)
        ack = await players[to_move].request(
            move_frame(move, turn=turn, client_id=f"unseen-{turn}")
        )
        assert ack["accepted"] is True, ack
        turn += 1
        for socket in everyone:
            news = (await socket.event("turn", number=turn))["data"]
        await players[to_move].event("rack", turn_number=turn)
        to_move = news["to_move"]
        for socket in everyone:
            await socket.sync()
            errors += [f"{socket.name}: {e}" for e in tracker_errors(socket.frames, match.ruleset)]
    return errors


async def a_watched_game(
    make_fixture: Any, alice: Any, bob: Any, connect: Opener, seed: int
) -> tuple[Match, list[Socket], Socket]:
    match = await db(seeded_match)(make_fixture, alice, bob, seed=seed)
    await db(deal_into)(match.id, 0, "?T")
    alice_socket, _ = await connect(match.id, member=alice)
    bob_socket, _ = await connect(match.id, member=bob)
    spectator, _ = await connect(match.id, name="spectator")
    return match, [alice_socket, bob_socket], spectator


# ---------------------------------------------------------------- the tests


@pytest.mark.parametrize("seed", [4] if QUICK else [4, 5])
async def test_the_tracker_is_what_each_viewers_own_frames_allow_and_no_rack_leaks(
    seed, make_fixture, alice, bob, connect
):
    match, players, spectator = await a_watched_game(make_fixture, alice, bob, connect, seed)

    assert await play_and_check(match, players, spectator, seed=seed) == []

    # The blank opening counted as a blank: one fewer ? for everyone from the first move on.
    whole = whole_set(match.ruleset)
    first = next(f["snapshot"] for f in spectator.frames if f["type"] == "snapshot"
                 and f["snapshot"]["turn_number"] == 1)  # fmt: skip
    assert {t["tile"]: t["count"] for t in first["unseen"]["tiles"]}["?"] == whole["?"] - 1
    # The game went to its end: the bag empty, a player's tracker is the other rack exactly,
    # as a player counting tiles at the table would know it.
    held = [await db(racks_ever_held)(match.id, position) for position in (0, 1)]
    last = [await db(rack_of)(match.id, position) for position in (0, 1)]
    for position, socket in enumerate(players):
        view = await socket.sync()
        assert view["status"] == "finished"
        shown = Counter({t["tile"]: t["count"] for t in view["unseen"]["tiles"]})
        assert shown == Counter(last[1 - position])
    # Nothing of the other seat's racks reaches the opponent, nor any rack the spectator.
    public = await db(public_record)(match.id)
    for position, socket in enumerate(players):
        leaks = privacy_leaks(
            socket.frames, own_racks=held[position], foreign_racks=held[1 - position],
            public=public,
        )  # fmt: skip
        assert leaks == [], f"{socket.name}: {leaks}"
    leaks = privacy_leaks(
        spectator.frames, own_racks=set(), foreign_racks=held[0] | held[1], public=public
    )
    assert leaks == []


def _without_own_rack(real: Callable[..., Any]) -> Callable[..., Any]:
    return lambda ruleset, board, rack: real(ruleset, board, None)


def _a_blank_as_its_letter(real: Callable[..., Any]) -> Callable[..., Any]:
    return lambda ruleset, board, rack: real(ruleset, [row.upper() for row in board], rack)


def _a_rack_for_everyone(real: Callable[..., Any], shown: str) -> Callable[..., Any]:
    def planted(ruleset: str, board: list[str], rack: list[str] | None) -> Any:
        # A spectator's tracker that takes a seat's rack off: they could work it out.
        return real(ruleset, board, list(shown) if rack is None else rack)

    return planted


@pytest.mark.parametrize(
    "plant", ["own rack not taken off", "a blank counted as its letter", "a rack shown"]
)
async def test_the_comparison_catches_a_tracker_that_counts_wrong(
    plant, make_fixture, alice, bob, connect, monkeypatch
):
    match, players, spectator = await a_watched_game(make_fixture, alice, bob, connect, 6)
    real = payloads.unseen_tiles
    firsts_rack = await db(rack_of)(match.id, 0)
    planted = {
        "own rack not taken off": lambda: _without_own_rack(real),
        "a blank counted as its letter": lambda: _a_blank_as_its_letter(real),
        "a rack shown": lambda: _a_rack_for_everyone(real, firsts_rack),
    }[plant]()
    monkeypatch.setattr(payloads, "unseen_tiles", planted)
    for socket in [*players, spectator]:
        await socket.sync()
    ack = await players[0].request(move_frame(BLANK_OPENING, turn=0, client_id="plant"))
    assert ack["accepted"] is True, ack
    errors = []
    for socket in [*players, spectator]:
        await socket.event("turn", number=1)
        await socket.sync()
        errors += tracker_errors(socket.frames, match.ruleset)
    assert errors, f"the plant ({plant}) went unseen"
