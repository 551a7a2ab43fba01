"""Scripted websocket clients over the real network, written from docs/PROTOCOL.md alone.

A :class:`LiveClient` is what a careful browser tab does: it connects (to the first of its
servers that answers), keeps a :class:`View` of the match built only from the frames it
receives (snapshot, then news in order, ``sync`` on a gap or after a long silence),
reconnects with a bounded backoff when its socket drops, and resends a request whose answer
was lost with the *same* id (PROTOCOL.md "Retries"). :func:`play_out` makes a seat play to
the end, choosing legal moves with an oracle that reads the database (the client cannot see
the bag; the server still judges every move). This module holds no tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from channels.db import database_sync_to_async
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from accounts.models import Member
from engine import get_ruleset
from engine.randomplay import random_move
from lexicon.lexicon import get_lexicon
from matches.models import Match, Seat, Turn
from matches.services.errors import RESYNC_CODES
from matches.stored_game import game_of
from tests.matches.test_ws_helpers import anagram_index, move_frame
from tests.reliability.harness import ORIGIN

OVER = frozenset({"finished", "abandoned"})
#: A silent socket sends ``sync`` after this long: a lost push costs at most this much.
QUIET_SYNC_SECONDS = 8.0

_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}"


class Disconnected(Exception):
    """The socket closed before the answer came; the request's fate is unknown."""


class GaveUp(AssertionError):
    """A bounded wait ran out: something that had to happen did not."""


@dataclass
class View:
    """One client's picture of a match, built from frames only (PROTOCOL.md section 7)."""

    status: str = ""
    result: str = ""
    end_reason: str = ""
    turn_number: int = -1
    to_move: int | None = None
    bag_count: int = 0
    board: list[list[str]] = field(default_factory=list)
    seats: list[dict[str, Any]] = field(default_factory=list)
    moves: list[tuple[int, int, str, int]] = field(default_factory=list)
    rack: list[str] | None = None
    rack_turn: int = -1
    your_seat: int | None = None

    def load(self, snapshot: dict[str, Any]) -> None:
        """Redraw everything from a snapshot: the server is the truth."""
        self.status = snapshot["status"]
        self.result = snapshot["result"]
        self.end_reason = snapshot["end_reason"]
        self.turn_number = snapshot["turn_number"]
        self.to_move = snapshot["to_move"]
        self.bag_count = snapshot["bag_count"]
        self.board = [list(row) for row in snapshot["board"]]
        self.seats = [self._seat(seat) for seat in snapshot["seats"]]
        self.moves = [self._move(move) for move in snapshot["moves"]]
        self.your_seat = snapshot.get("your_seat")
        if snapshot.get("rack") is not None:
            self.rack = list(snapshot["rack"])
            self.rack_turn = self.turn_number

    @staticmethod
    def _seat(seat: dict[str, Any]) -> dict[str, Any]:
        return {key: seat[key] for key in ("position", "member_id", "score", "rack_count")}

    @staticmethod
    def _move(move: dict[str, Any]) -> tuple[int, int, str, int]:
        return (move["number"], move["position"], move["kind"], move["score"])

    def take_rack(self, rack: list[str], turn_number: int) -> None:
        if turn_number >= self.rack_turn:
            self.rack, self.rack_turn = list(rack), turn_number

    def apply(self, frame: dict[str, Any]) -> bool:
        """Apply one piece of news; False when it skips ahead (the client must sync)."""
        kind, data = frame["type"], frame.get("data") or {}
        if kind == "turn":
            number = data["move"]["number"]
            if number <= self.turn_number:
                return True  # already known (news that raced a snapshot)
            if number != self.turn_number + 1:
                return False
            for tile in data["move"]["tiles"]:
                letter = tile["letter"].lower() if tile.get("blank") else tile["letter"]
                self.board[tile["row"]][tile["col"]] = letter
            self.moves.append(self._move(data["move"]))
            self.turn_number = data["turn_number"]
            self.to_move = data["to_move"]
            self.bag_count = data["bag_count"]
            self.seats = [self._seat(seat) for seat in data["seats"]]
        elif kind == "ended":
            self.status, self.result = data["status"], data["result"]
            self.end_reason = data["end_reason"]
            self.to_move = None
            for seat, score in zip(self.seats, data["scores"], strict=False):
                seat["score"] = score
        elif kind == "rack":
            self.take_rack(data["rack"], data["turn_number"])
        elif kind == "opened":
            return False  # the rack follows separately: simplest to take a snapshot
        return True

    def summary(self) -> dict[str, Any]:
        """The comparable picture: what must equal the database's at the end."""
        return {
            "status": self.status,
            "result": self.result,
            "end_reason": self.end_reason,
            "turn_number": self.turn_number,
            "to_move": self.to_move,
            "bag_count": self.bag_count,
            "board": ["".join(row) for row in self.board],
            "seats": self.seats,
            "moves": self.moves,
            "rack": self.rack if self.your_seat is not None else None,
        }


def database_summary(match_id: int, member: Member | None = None) -> dict[str, Any]:
    """What ``member`` (or an anonymous viewer) should have come to see, read straight from
    the database's rows (not through ``visibility``, which built the frames under test)."""
    match = Match.objects.get(pk=match_id)
    seats = list(Seat.objects.filter(match_id=match_id).order_by("position"))
    turns = list(Turn.objects.filter(match_id=match_id).order_by("number"))
    size = get_ruleset(match.ruleset).board_size
    board = [["."] * size for _ in range(size)]
    for turn in turns:
        for tile in turn.placement if turn.kind == Turn.Kind.PLAY else []:
            letter = tile["letter"].lower() if tile["blank"] else tile["letter"]
            board[tile["row"]][tile["col"]] = letter
    mine = next((seat for seat in seats if member and seat.member_id == member.pk), None)
    return {
        "status": match.status,
        "result": match.result,
        "end_reason": match.end_reason,
        "turn_number": match.turn_number,
        "to_move": match.to_move,
        "bag_count": match.bag_count,
        "board": ["".join(row) for row in board],
        "seats": [
            {
                "position": seat.position,
                "member_id": seat.member_id,
                "score": seat.score,
                "rack_count": len(seat.rack),
            }
            for seat in seats
        ],
        "moves": [(turn.number, turn.position, turn.kind, turn.score) for turn in turns],
        "rack": list(mine.rack) if mine is not None else None,
    }


@dataclass
class ClientStats:
    """What happened to one client: the figures of the reliability report."""

    frames_in: int = 0
    frames_out: int = 0
    reconnects: int = 0
    failed_handshakes: int = 0
    resent: int = 0
    server_errors: int = 0
    gap_syncs: int = 0
    quiet_syncs: int = 0
    close_codes: Counter = field(default_factory=Counter)
    pushes: Counter = field(default_factory=Counter)
    pushed_turns: set[int] = field(default_factory=set)


class LiveClient:
    """One socket to a match that survives server and layer failures by reconnecting."""

    def __init__(
        self,
        name: str,
        match_id: int,
        servers: list[str],
        *,
        cookie: str | None = None,
        key: str | None = None,
        prefer: int = 0,
        reconnect_within: float = 60,
    ) -> None:
        self.name = name
        self.match_id = match_id
        self.servers = servers
        self.cookie = cookie
        self.key = key
        self.server_index = prefer % len(servers)
        self.reconnect_within = reconnect_within
        self.view = View()
        self.stats = ClientStats()
        self.connected = asyncio.Event()
        self._changed = asyncio.Event()
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ws: ClientConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    # -- connection ------------------------------------------------------------------------

    @property
    def server(self) -> str:
        return self.servers[self.server_index]

    def _url(self, server: str) -> str:
        return f"{server}/ws/matches/{self.match_id}/" + (f"?key={self.key}" if self.key else "")

    async def start(self) -> LiveClient:
        self._task = asyncio.create_task(self._run(), name=f"client {self.name}")
        await self._wait(self.connected.wait(), self.reconnect_within, "the first connection")
        return self

    async def _wait(self, awaitable: Awaitable[Any], timeout: float, what: str) -> Any:
        waiter = asyncio.ensure_future(awaitable)
        done, _ = await asyncio.wait(
            {waiter, self._task},  # type: ignore[arg-type]
            timeout=timeout,
            return_when=asyncio.FIRST_COMPLETED,
        )
        if waiter in done:
            return waiter.result()
        waiter.cancel()
        if self._task in done:
            self._task.result()  # re-raise what ended the client
        raise GaveUp(f"{self.name}: gave up after {timeout:.0f} s waiting for {what}")

    async def _open(self) -> ClientConnection:
        """The first server that completes a handshake, trying each in turn, with backoff."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.reconnect_within
        delay = 0.05
        headers = {"Cookie": f"sessionid={self.cookie}"} if self.cookie else {}
        while True:
            for step in range(len(self.servers)):
                index = (self.server_index + step) % len(self.servers)
                try:
                    ws = await connect(
                        self._url(self.servers[index]),
                        origin=ORIGIN,  # type: ignore[arg-type]
                        additional_headers=headers,
                        proxy=None,
                        open_timeout=10,
                        ping_interval=None,
                        close_timeout=2,
                    )
                except (OSError, InvalidHandshake, TimeoutError) as error:
                    self.stats.failed_handshakes += 1
                    last = error
                    continue
                self.server_index = index
                return ws
            if loop.time() > deadline:
                raise AssertionError(f"{self.name} could not reconnect: {last!r}")
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)

    async def _run(self) -> None:
        first_time = True
        while not self._stopping:
            ws = await self._open()
            if not first_time:
                self.stats.reconnects += 1
            first_time = False
            try:
                hello = json.loads(await ws.recv())
                self.stats.frames_in += 1
                assert hello["type"] == "snapshot", hello
                assert hello["reason"] == "connect", hello
                self.view.load(hello["snapshot"])
                self._ws = ws
                self.connected.set()
                self._notify()
                async for raw in ws:
                    self.stats.frames_in += 1
                    await self._on_frame(json.loads(raw))
            except ConnectionClosed as closed:
                self.stats.close_codes[closed.rcvd.code if closed.rcvd else 1006] += 1
            finally:
                self._ws = None
                self.connected.clear()
                for future in self._pending.values():
                    if not future.done():
                        future.set_exception(Disconnected())
                        # Read by its request, if any still waits; never logged as unread.
                        future.exception()
                self._pending.clear()
                with contextlib.suppress(Exception):
                    await ws.close()

    async def close(self) -> None:
        self._stopping = True
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    def drop(self) -> None:
        """Cut this client's socket at once (as a flaky network would); it reconnects."""
        if self._ws is not None:
            self._ws.transport.abort()

    # -- frames ----------------------------------------------------------------------------

    def _notify(self) -> None:
        self._changed.set()

    async def _on_frame(self, frame: dict[str, Any]) -> None:
        kind = frame["type"]
        future = self._pending.pop(frame.get("id") or "", None)
        if kind in {"ack", "error", "snapshot"} and future is not None:
            if kind == "snapshot":
                self.view.load(frame["snapshot"])
            future.set_result(frame)
        elif kind == "snapshot":  # the answer to a sync sent without waiting
            self.view.load(frame["snapshot"])
        elif kind in {"ack", "error"}:
            pass  # the answer to a request given up on; nothing to do
        else:
            self.stats.pushes[kind] += 1
            if kind == "turn":
                self.stats.pushed_turns.add(frame["data"]["move"]["number"])
            if not self.view.apply(frame):
                self.stats.gap_syncs += 1
                await self._send({"type": "sync", "id": new_id(f"{self.name}-gap")})
        self._notify()

    async def _send(self, frame: dict[str, Any]) -> None:
        ws = self._ws
        if ws is None:
            raise Disconnected
        try:
            await ws.send(json.dumps(frame))
        except ConnectionClosed:
            raise Disconnected from None
        self.stats.frames_out += 1

    async def request(
        self, frame: dict[str, Any], *, timeout: float = 60, retry_server_errors: int = 3
    ) -> dict[str, Any]:
        """Send ``frame`` and return its direct answer, resending it (same id) when lost.

        A socket that drops before the answer, or a ``server_error``, leaves the request's
        fate unknown: the same frame with the same id is sent again, which the protocol
        promises applies at most once.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        server_errors = 0
        while True:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"{self.name}: no answer to {frame} within {timeout:.0f} s")
            await self._wait(self.connected.wait(), remaining, "a connection")
            future: asyncio.Future[dict[str, Any]] = loop.create_future()
            self._pending[frame["id"]] = future
            try:
                await self._send(frame)
                answer = await self._wait(future, max(deadline - loop.time(), 0.1), "an answer")
            except Disconnected:
                self._pending.pop(frame["id"], None)
                self.stats.resent += 1
                continue
            if answer["type"] == "error" and answer["code"] == "server_error":
                self.stats.server_errors += 1
                server_errors += 1
                if server_errors <= retry_server_errors:
                    self.stats.resent += 1
                    await asyncio.sleep(0.2)
                    continue
            if answer.get("snapshot") is not None and answer["type"] == "ack":
                self.view.load(answer["snapshot"])
            if answer["type"] == "ack" and answer.get("accepted") and "rack" in answer:
                self.view.take_rack(answer["rack"], answer["turn_number"])
            self._notify()
            return answer

    async def sync(self) -> dict[str, Any]:
        answer = await self.request({"type": "sync", "id": new_id(f"{self.name}-sync")})
        assert answer["type"] == "snapshot", answer
        return answer["snapshot"]

    async def wait_for_view(self, predicate: Callable[[View], bool], *, timeout: float) -> View:
        """Until the view satisfies ``predicate``; a silent spell is answered with ``sync``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate(self.view):
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"{self.name}: view never got there: {self.view.summary()}")
            self._changed.clear()
            try:
                await self._wait(self._changed.wait(), min(QUIET_SYNC_SECONDS, remaining), "news")
            except GaveUp:
                if loop.time() >= deadline:
                    raise
                self.stats.quiet_syncs += 1
                with contextlib.suppress(GaveUp):
                    await self.request(
                        {"type": "sync", "id": new_id(f"{self.name}-quiet")}, timeout=remaining
                    )
        return self.view


# ---------------------------------------------------------------- playing


def _oracle_move(match_id: int, turn_number: int, seed: int) -> dict[str, Any] | None:
    """A legal move for the player to move at ``turn_number`` (None if the DB has moved on)."""
    match = Match.objects.get(pk=match_id)
    game = game_of(match, list(match.seats.order_by("position")))
    if game.turn_number != turn_number or game.is_over:
        return None
    rng = random.Random(seed * 1000 + turn_number)
    return random_move(
        game, lexicon=get_lexicon("enable"), index=anagram_index(), rng=rng
    ).to_dict()


_find_move = database_sync_to_async(_oracle_move, thread_sensitive=False)
#: At most this many move searches at once: they are pure Python, and the event loop that
#: answers every socket's pings and news must keep getting its share of the interpreter.
ORACLE_THREADS = 2
_gates: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


async def oracle_move(match_id: int, turn_number: int, seed: int) -> dict[str, Any] | None:
    """A legal move for the player to move at ``turn_number``, searched in a worker thread."""
    gate = _gates.setdefault(asyncio.get_running_loop(), asyncio.Semaphore(ORACLE_THREADS))
    async with gate:
        return await _find_move(match_id, turn_number, seed)


async def play_out(
    client: LiveClient,
    seat: int,
    *,
    seed: int,
    timeout: float,
    max_moves: int | None = None,
    on_move: Callable[[LiveClient, dict[str, Any]], Awaitable[None]] | None = None,
) -> int:
    """Play ``seat``'s turns until the match is over (or ``max_moves``); moves made."""
    made = 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout

    def my_turn_or_over(view: View) -> bool:
        return view.status in OVER or (view.status == "live" and view.to_move == seat)

    while max_moves is None or made < max_moves:
        remaining = deadline - loop.time()
        view = await client.wait_for_view(my_turn_or_over, timeout=max(remaining, 0.1))
        if view.status in OVER:
            break
        move = await oracle_move(client.match_id, view.turn_number, seed)
        if move is None:  # the view is behind the database: redraw and look again
            await client.sync()
            continue
        frame = move_frame(move, turn=view.turn_number, client_id=new_id(f"{client.name}-m"))
        if on_move is not None:
            await on_move(client, frame)
        answer = await client.request(frame, timeout=max(deadline - loop.time(), 1))
        assert answer["type"] == "ack", f"{client.name}: {frame} answered {answer}"
        if answer["accepted"]:
            made += 1
            number = answer["turn_number"]
            await client.wait_for_view(
                lambda v, n=number: v.turn_number >= n or v.status in OVER,
                timeout=max(deadline - loop.time(), 0.1),
            )
        else:
            assert answer["code"] in RESYNC_CODES, f"{client.name}: a legal move refused: {answer}"
    return made
