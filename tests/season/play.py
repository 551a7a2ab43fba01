"""Playing over the real socket, as a client does: the member's session cookie and the page's
origin on the handshake, a snapshot on connect, moves made against the turn seen and
answered by an ack naming the client's id (docs/PROTOCOL.md).

A move is chosen by the engine's random legal-move generator on the position the test reads
from the database (the oracle: the same board the snapshot shows, the seat's own rack);
a client's own rack frame is checked against it.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from typing import Any

from websockets.sync.client import ClientConnection, connect

from engine.randomplay import random_move
from tests.matches.test_ws_helpers import anagram_index, current_game, move_frame
from tests.season.world import PATIENCE, Member, World

_ids = itertools.count(1)


class Board:
    """One open socket to one match: frames kept in order, read with a bound."""

    def __init__(self, world: World, match_id: int, member: Member | None) -> None:
        headers = {"X-Forwarded-For": member.address if member else "10.9.9.9"}
        if member is not None and member.http.cookies:  # a member's session, a guest's cookie
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in member.http.cookies.items())
        self.who = member.name if member else "anonymous"
        self.match_id = match_id
        self.socket: ClientConnection = connect(
            f"{world.ws}/ws/matches/{match_id}/",
            origin=world.site,  # type: ignore[arg-type]
            additional_headers=headers,
            open_timeout=PATIENCE,
        ).__enter__()  # (closed by close(), as the context would)
        self.unread: list[dict[str, Any]] = []
        self.snapshot = self.wait_for(lambda f: f["type"] == "snapshot")["snapshot"]

    def _receive(self) -> dict[str, Any]:
        try:
            raw = self.socket.recv(timeout=PATIENCE)
        except TimeoutError:
            raise AssertionError(
                f"{self.who}: nothing arrived on match {self.match_id}'s socket in "
                f"{PATIENCE:.0f} s; unread: {[f['type'] for f in self.unread]}; errors: "
                f"{[f for f in self.unread if f['type'] == 'error']}"
            ) from None
        return json.loads(raw)

    def wait_for(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first frame (unread ones first) for which ``wanted`` holds."""
        for index, frame in enumerate(self.unread):
            if wanted(frame):
                return self.unread.pop(index)
        while True:
            frame = self._receive()
            if wanted(frame):
                return frame
            self.unread.append(frame)

    def event(self, kind: str) -> dict[str, Any]:
        return self.wait_for(lambda f: f["type"] == kind)

    def request(self, frame: dict[str, Any]) -> dict[str, Any]:
        self.socket.send(json.dumps(frame))
        return self.wait_for(
            lambda f: f.get("id") == frame["id"] and f["type"] in {"ack", "error", "snapshot"}
        )

    def sync(self) -> dict[str, Any]:
        return self.request({"type": "sync", "id": f"sync-{next(_ids)}"})["snapshot"]

    def close(self) -> None:
        self.socket.close()

    def __enter__(self) -> Board:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def client_id(name: str) -> str:
    return f"{name}-{next(_ids)}"


def play_one_move(
    board: Board, rng: random.Random, *, turn: int, seat: int, plays_only: bool = False
) -> dict[str, Any]:
    """The member at ``board`` (in ``seat``, whose turn it is) makes a legal move against
    ``turn``; returns the ``turn`` news of it (``to_move`` is None when it ended the game)."""
    game = current_game(board.match_id)
    assert game.to_move == seat, f"it is not {board.who}'s turn"
    move = random_move(
        game,
        lexicon=_lexicon(),
        index=anagram_index(),
        rng=rng,
        swap_chance=0 if plays_only else 0.04,
        pass_chance=0 if plays_only else 0.01,
    ).to_dict()
    frame = move_frame(
        move, turn=turn, client_id=client_id(board.who), after=position_now(board.match_id)
    )
    ack = board.request(frame)
    assert ack["type"] == "ack", ack
    assert ack["accepted"], f"{board.who}'s move was refused: {ack}"
    assert ack["turn_number"] == turn + 1
    if "rack" in ack:  # the seat's own new rack, as the engine dealt it
        assert sorted(ack["rack"]) == sorted(current_game(board.match_id).racks[seat])
    return board.wait_for(lambda f: f["type"] == "turn" and f["data"]["turn_number"] == turn + 1)[
        "data"
    ]


def position_now(match_id: int) -> str:
    """The position a move names as ``after`` (the last turn's record hash, or the bag's
    commitment before turn 1), read like the game: the board the client's news shows."""
    from matches.models import Match
    from tests.matches.helpers import position_of

    return position_of(Match.objects.get(pk=match_id))


def send(board: Board, frame: dict[str, Any]) -> dict[str, Any]:
    """Any request (resign, take_seat...) with a fresh id; its answer."""
    return board.request({**frame, "id": client_id(board.who)})


def _lexicon() -> Any:
    from lexicon.lexicon import get_lexicon

    return get_lexicon("enable")
