"""Shared tools for the websocket tests: real sessions, real sockets, real checks.

Every socket goes through ``wordduel.asgi.application`` (origin check, session auth, router)
on the channels-redis layer and PostgreSQL named by the environment. Nothing is mocked.
This module holds no tests of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import itertools
import random
import re
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connections
from django.test import Client
from pydantic import TypeAdapter, ValidationError

from accounts.models import Member
from engine import BLANK, Game, get_ruleset
from engine.randomplay import AnagramIndex, find_play, random_move
from lexicon.lexicon import get_lexicon
from matches import schemas, services
from matches.models import Match, Seat, Turn
from matches.stored_game import game_of as position_game_of
from wordduel.asgi import application

ORIGIN = (b"origin", b"http://testserver")
#: Generous bound for a frame that must arrive; a failure, never a measurement.
ARRIVAL_TIMEOUT = 10

_ids = itertools.count(1)


def new_client_id(prefix: str = "c") -> str:
    """A fresh client-chosen id, as a browser would make one."""
    return f"{prefix}-{next(_ids)}"


def session_cookie(member: Member) -> str:
    """Sign ``member`` in through Django's own machinery; return the session cookie value."""
    client = Client()
    client.force_login(member)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def socket_path(match_id: int, key: str | None = None) -> str:
    return f"/ws/matches/{match_id}/" + (f"?key={key}" if key else "")


def headers_for(cookie: str | None, origin: tuple[bytes, bytes] = ORIGIN) -> list:
    headers = [origin]
    if cookie:
        headers.append((b"cookie", f"{settings.SESSION_COOKIE_NAME}={cookie}".encode()))
    return headers


@dataclass
class Socket:
    """One client connection that remembers every frame it ever received."""

    name: str
    communicator: WebsocketCommunicator
    frames: list[dict[str, Any]] = field(default_factory=list)
    unread: list[dict[str, Any]] = field(default_factory=list)

    async def send(self, frame: dict[str, Any] | str | bytes) -> None:
        """Send a text, binary or JSON frame (empty frames too, as a browser could)."""
        if isinstance(frame, bytes):
            await self.communicator.send_input({"type": "websocket.receive", "bytes": frame})
        elif isinstance(frame, str):
            await self.communicator.send_input({"type": "websocket.receive", "text": frame})
        else:
            await self.communicator.send_json_to(frame)

    async def _receive(self) -> dict[str, Any]:
        frame = await self.communicator.receive_json_from(timeout=ARRIVAL_TIMEOUT)
        self.frames.append(frame)
        return frame

    async def wait_for(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first unread frame matching ``predicate``; frames before it stay unread."""
        for index, frame in enumerate(self.unread):
            if predicate(frame):
                return self.unread.pop(index)
        while True:
            frame = await self._receive()
            if predicate(frame):
                return frame
            self.unread.append(frame)

    async def next(self) -> dict[str, Any]:
        """The next frame, unread ones first."""
        if self.unread:
            return self.unread.pop(0)
        return await self._receive()

    async def answer_to(self, client_id: str) -> dict[str, Any]:
        """The direct answer (ack, error or snapshot) naming ``client_id``."""
        return await self.wait_for(
            lambda f: f.get("id") == client_id and f["type"] in {"ack", "error", "snapshot"}
        )

    async def request(self, frame: dict[str, Any]) -> dict[str, Any]:
        """Send a request carrying an id and return the answer naming it."""
        await self.send(frame)
        return await self.answer_to(frame["id"])

    async def event(self, kind: str, **match: Any) -> dict[str, Any]:
        """The next ``kind`` frame whose data includes the given items (e.g. a turn number)."""

        def wanted(frame: dict[str, Any]) -> bool:
            if frame["type"] != kind:
                return False
            data = frame.get("data", {})
            if kind == "turn":
                data = {**data, "number": data["move"]["number"]}
            return all(data.get(name) == value for name, value in match.items())

        return await self.wait_for(wanted)

    async def sync(self) -> dict[str, Any]:
        """Ask for a fresh snapshot; return the snapshot itself."""
        client_id = new_client_id("sync")
        answer = await self.request({"type": "sync", "id": client_id})
        assert answer["type"] == "snapshot", answer
        return answer["snapshot"]

    async def is_quiet(self) -> bool:
        """Nothing unread, and nothing on its way: a ``sync`` of our own, sent now, must be
        answered by the very next frame (a stray frame sent before it would arrive first,
        however late; frames keep their order on one socket)."""
        if self.unread:
            return False
        client_id = new_client_id("quiet")
        await self.send({"type": "sync", "id": client_id})
        frame = await self._receive()
        if frame.get("id") == client_id and frame["type"] in {"snapshot", "error"}:
            return True  # its answer (an error for a socket whose session has lapsed)
        self.unread.append(frame)
        return False

    async def close(self) -> None:
        if not self.communicator.future.done():
            await self.communicator.disconnect()


async def open_socket(
    match_id: int,
    *,
    member: Member | None = None,
    key: str | None = None,
    name: str = "",
    cookie: str | None = None,
) -> tuple[Socket, dict[str, Any]]:
    """Connect as ``member`` (or anonymously, or with ``cookie``); return it and its snapshot."""
    if member is not None and cookie is None:
        cookie = await database_sync_to_async(session_cookie)(member)
    communicator = WebsocketCommunicator(
        application, socket_path(match_id, key), headers=headers_for(cookie)
    )
    connected, code = await communicator.connect(timeout=ARRIVAL_TIMEOUT)
    assert connected, f"{name or member} was refused with {code}"
    socket = Socket(name or str(member or "anonymous"), communicator)
    first = await socket.next()
    assert first["type"] == "snapshot"
    assert first["reason"] == "connect"
    return socket, first["snapshot"]


async def refusal_code(
    match_id: int,
    *,
    member: Member | None = None,
    key: str | None = None,
    origin: tuple[bytes, bytes] = ORIGIN,
) -> int | None:
    """The close code a handshake is refused with, or None if it was accepted.

    A refused viewer's socket opens and is closed at once with the code (4403, 4404), so a
    client can tell why; a refused origin never opens (an HTTP 403, code None from the
    communicator, reported here as 403).
    """
    cookie = await database_sync_to_async(session_cookie)(member) if member else None
    communicator = WebsocketCommunicator(
        application, socket_path(match_id, key), headers=headers_for(cookie, origin)
    )
    connected, code = await communicator.connect(timeout=ARRIVAL_TIMEOUT)
    try:
        if not connected:
            return 403 if code is None else code
        first = await communicator.receive_output(timeout=ARRIVAL_TIMEOUT)
        if first["type"] == "websocket.close":
            return int(first["code"])
        return None
    finally:
        await communicator.disconnect()  # as a client would after a refusal, too


Opener = Callable[..., Awaitable[tuple[Socket, dict[str, Any]]]]


@contextlib.asynccontextmanager
async def socket_opener() -> AsyncIterator[Opener]:
    """Open sockets that are all closed at the end, with their database sessions.

    Each test module wraps this in its ``connect`` fixture. Worker threads keep their
    database connections open for the next request, as they should in a server; here they
    are closed at the end (asgiref's thread for thread-sensitive work directly, the loop's
    worker threads by shutting them down) so the test database can be dropped after the run.
    """
    opened: list[Socket] = []

    async def open_(match_id: int, **kwargs: Any) -> tuple[Socket, dict[str, Any]]:
        socket, snapshot = await open_socket(match_id, **kwargs)
        opened.append(socket)
        return socket, snapshot

    try:
        yield open_
    finally:
        for socket in reversed(opened):  # last opened, first closed: see test_race
            await socket.close()
        await database_sync_to_async(connections.close_all)()
        await asyncio.get_running_loop().shutdown_default_executor()
        gc.collect()  # the exited threads' connections close when collected


# ---------------------------------------------------------------- the database's view


def seeded_match(
    make_fixture: Callable[..., Match],
    first: Member,
    second: Member,
    *,
    seed: int = 1,
    visibility: str = Match.Visibility.PUBLIC,
) -> Match:
    """A live match whose bag is fixed by ``seed``, so its racks and plays are repeatable.

    The fixture is scheduled empty, its secret seed and the seats' contributions are set,
    then both players sit down through the service, which deals and opens it.
    """
    match = make_fixture(visibility=visibility, name=f"Seeded fixture {seed}")
    return seed_and_seat(
        match, first, second, bag_text=f"word-duel-test-{seed}", seat_text=f"{seed}"
    )


def seed_and_seat(
    match: Match, first: Member, second: Member, *, bag_text: str, seat_text: str
) -> Match:
    """``match`` (scheduled empty) with its secret seed fixed by ``bag_text`` and each seat's
    contribution by ``seat_text``, then ``first`` and ``second`` seated through the service,
    which deals and opens it: live, its racks and plays repeatable."""
    bag_seed = hashlib.sha256(bag_text.encode()).hexdigest()
    Match.objects.filter(pk=match.pk).update(
        bag_seed=bag_seed, bag_commitment=hashlib.sha256(bytes.fromhex(bag_seed)).hexdigest()
    )
    for position in (0, 1):
        Seat.objects.filter(match=match, position=position).update(
            contribution=hashlib.sha256(f"{seat_text}-{position}".encode()).hexdigest()[:32]
        )
    services.match_take_seat(match_id=match.pk, member=first, position=0)
    services.match_take_seat(match_id=match.pk, member=second, position=1)
    match.refresh_from_db()
    assert match.status == Match.Status.LIVE
    return match


def match_state(match_id: int) -> dict[str, Any]:
    """Everything a request could change: the match row, both seats, the move log."""
    match = Match.objects.get(pk=match_id)
    return {
        "status": match.status,
        "result": match.result,
        "turn_number": match.turn_number,
        "to_move": match.to_move,
        "bag_count": match.bag_count,
        "game_state": match.game_state,
        "viewing_key": match.viewing_key,
        "seats": list(
            Seat.objects.filter(match_id=match_id)
            .order_by("position")
            .values_list("member_id", "rack", "score")
        ),
        "turns": Turn.objects.filter(match_id=match_id).count(),
    }


def rack_of(match_id: int, position: int) -> str:
    return Seat.objects.get(match_id=match_id, position=position).rack


def assert_tiles_conserved(match_id: int) -> None:
    """Board + racks + bag is the ruleset's full set, and the counters agree with the log."""
    match = Match.objects.get(pk=match_id)
    game = stored_game(match)
    assert game.tiles_in_play() == sorted(get_ruleset(match.ruleset).full_bag)
    assert match.turn_number == match.turns.count()
    assert match.bag_count == game.bag_count


def racks_ever_held(match_id: int, position: int) -> set[str]:
    """Every rack a seat has held: before each of its turns, and now (and, for a play later
    withdrawn after a challenge, the rack it held between the play and the withdrawal)."""
    turns = list(Turn.objects.filter(match_id=match_id, position=position))
    racks = {turn.rack_before for turn in turns}
    for turn in turns:
        if turn.challenge is not None and turn.challenge["phonies"]:
            left = Counter(turn.rack_before)
            left.subtract("?" if tile["blank"] else tile["letter"] for tile in turn.placement)
            racks.add("".join(left.elements()) + turn.drawn)
    racks.add(rack_of(match_id, position))
    return {rack for rack in racks if rack}


def stored_game(match: Match) -> Game:
    """The match's game at its stored position (matches/stored_game.py)."""
    return position_game_of(match, list(match.seats.order_by("position")))


def current_game(match_id: int) -> Game:
    return stored_game(Match.objects.get(pk=match_id))


# ---------------------------------------------------------------- finding moves


_index_cache: dict[str, AnagramIndex] = {}


def anagram_index() -> AnagramIndex:
    """Built once per test process from ENABLE."""
    if "enable" not in _index_cache:
        _index_cache["enable"] = AnagramIndex(get_lexicon("enable"))
    return _index_cache["enable"]


def move_frame(
    move_dict: dict[str, Any], *, turn: int, client_id: str, after: str | None = None
) -> dict[str, Any]:
    """The protocol frame for an engine move dict (naming the position ``after`` if given)."""
    frame: dict[str, Any] = {"type": move_dict["kind"], "id": client_id, "turn": turn}
    if after is not None:
        frame["after"] = after
    if move_dict["kind"] != "pass":
        frame["tiles"] = move_dict["tiles"]
    return frame


def legal_play(match_id: int, seed: int = 0) -> dict[str, Any]:
    """A legal play for the player to move now, as an engine move dict (the test's oracle)."""
    game = current_game(match_id)
    play = find_play(
        game,
        lexicon=get_lexicon("enable"),
        index=anagram_index(),
        rng=random.Random(seed),
        max_tries=2000,
        max_lookups=100_000,
    )
    assert play is not None, "no play found for the opening rack"
    return play.to_dict()


def some_move(match_id: int, rng: random.Random) -> dict[str, Any]:
    """A random legal move for the player to move (mostly plays; swaps and passes too)."""
    game = current_game(match_id)
    return random_move(
        game, lexicon=get_lexicon("enable"), index=anagram_index(), rng=rng
    ).to_dict()


# ---------------------------------------------------------------- privacy scanning

SERVER_FRAMES: TypeAdapter[Any] = TypeAdapter(schemas.ServerFrame)
#: A run of tile letters in a text: what a rack, or part of one, would look like.
TILE_RUN = re.compile(r"[A-Z?]{2,}")
#: Text that is free by nature: ids the client chose, keys and hashes, and messages (fixed
#: texts, or the sender's own input echoed back to the sender alone).
FREE_TEXT = frozenset({"id", "viewing_key", "bag_commitment", "bag_seed", "commitment", "seed",
                       "message"})  # fmt: skip


@dataclass(frozen=True)
class PublicRecord:
    """What the move log has made public, read from the database's rows: every tile each
    square has held (as a board row writes it; under Reword a square's tile can change or
    go) and each turn's placed tiles and words."""

    squares: dict[tuple[int, int], set[str]]
    moves: dict[int, tuple[list[Any], list[Any]]]


def public_record(match_id: int) -> PublicRecord:
    squares: dict[tuple[int, int], set[str]] = {}
    moves: dict[int, tuple[list[Any], list[Any]]] = {}
    for turn in Turn.objects.filter(match_id=match_id).order_by("number"):
        placed = turn.placement if turn.kind == Turn.Kind.PLAY else []
        for take in turn.takes:  # Reword: a swap puts a rack tile down (a steal takes one)
            if take["placed"] is not None:
                letter = take["placed"].lower() if take["placed_blank"] else take["placed"]
                squares.setdefault((take["row"], take["col"]), set()).add(letter)
        for tile in placed:
            letter = tile["letter"].lower() if tile["blank"] else tile["letter"]
            squares.setdefault((tile["row"], tile["col"]), set()).add(letter)
        moves[turn.number] = (placed, turn.words)
    return PublicRecord(squares, moves)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every (path, value) in a JSON document, depth first."""
    yield path, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*path, index))


def _part_of(letters: str, racks: set[str]) -> str | None:
    """The rack that ``letters`` (two or more) could have been taken from, if any."""
    wanted = Counter(letters)
    return next((rack for rack in racks if wanted <= Counter(rack)), None)


def privacy_leaks(
    frames: list[dict[str, Any]],
    *,
    own_racks: set[str],
    foreign_racks: set[str],
    public: PublicRecord | None = None,
) -> list[str]:
    """What in ``frames`` is not what the protocol lets this receiver see.

    - Every frame must be one the schemas define, with exactly their fields: a rack under a
      field the protocol does not name is refused outright.
    - A ``rack`` must be one of the receiver's own racks (any order counts as the same rack).
    - Every seat's tiles (a finished game's record: ``racks``, ``turn_tiles``,
      ``final_racks``) only in frames after ``ended``: the whole record is public after the
      end, and not a letter of it before.
    - The board and the moves must be the public record (``public``: what the database's move
      log placed), so no hidden letter rides along as a "word" or a "tile".
    - Any other text or list of letters must not be two or more letters of another seat's rack
      (compared as multisets: in any order, and in part, e.g. the tiles just drawn).

    A quick first net only: it sees runs of capitals, and nothing under a path naming a move,
    the board, tiles or words but what it checks against the log, so a rack in lower case,
    with commas, or in a field added to the schemas under a move passes it. tests/secrecy
    proves secrecy by two worlds, whatever the spelling.
    """
    leaks: list[str] = []
    own = {"".join(sorted(rack)) for rack in own_racks}
    over = False
    for frame in frames:
        try:
            SERVER_FRAMES.validate_python(frame)
        except ValidationError as invalid:
            first = invalid.errors()[0]
            leaks.append(f"{frame.get('type')}: a frame the protocol does not name: {first}")
        for path, value in _paths(frame):
            where = f"{frame.get('type')} at {'/'.join(map(str, path))}"
            leaks += [
                f"{leak} ({where})"
                for leak in _leaks_at(path, value, own, foreign_racks, public, after_the_end=over)
            ]
        over = over or frame.get("type") == "ended"
    return leaks


async def assert_no_rack_leaks(
    match_id: int, players: list[Socket], watchers: list[Socket]
) -> None:
    """Every frame each socket received passes ``privacy_leaks``: a player's socket is checked
    against its own seat's racks and the other's (both seats, positions 0 and 1); a watcher's
    against every rack either seat ever held."""
    held = [
        await database_sync_to_async(racks_ever_held)(match_id, position) for position in (0, 1)
    ]
    public = await database_sync_to_async(public_record)(match_id)
    for position, socket in enumerate(players):
        leaks = privacy_leaks(
            socket.frames,
            own_racks=held[position],
            foreign_racks=held[1 - position],
            public=public,
        )
        assert not leaks, f"{socket.name}: {leaks}"
    for socket in watchers:
        leaks = privacy_leaks(
            socket.frames, own_racks=set(), foreign_racks=held[0] | held[1], public=public
        )
        assert not leaks, f"{socket.name}: {leaks}"


def _leaks_at(
    path: tuple[Any, ...],
    value: Any,
    own: set[str],
    foreign_racks: set[str],
    public: PublicRecord | None,
    *,
    after_the_end: bool = False,
) -> Iterator[str]:
    key = path[-1] if path else None
    if _record_tiles(path, value):
        if value and not after_the_end:
            yield f"a seat's tiles before the end of the game: {value}"
    elif _analysed_tiles(path, value):
        letters = "".join(BLANK if tile["blank"] else tile["letter"] for tile in value)
        if (rack := _part_of(letters, foreign_racks)) is not None:
            yield f"a best play of {letters}, from the rack {rack}"
    elif key == "rack":
        if value and "".join(sorted(value)) not in own:
            yield f"a rack that is not the receiver's: {value}"
    elif _is_move(path, value):
        logged = public.moves.get(value["number"]) if public is not None else None
        if logged is not None and (value["tiles"], value["words"]) != logged:
            yield f"move {value['number']} is not the one logged"
    elif "phonies" in path and isinstance(value, str) and public is not None:
        played = {word["word"] for _, words in public.moves.values() for word in words}
        if value not in played:
            yield f"a phony {value} that no logged play made"
    elif "board" in path and isinstance(value, str) and public is not None:
        for col, char in enumerate(value):
            if char != "." and char not in public.squares.get((path[-1], col), set()):
                yield f"{char} on a square where the log placed no such tile"
    elif isinstance(value, str) and key not in FREE_TEXT and not _public_letters(path):
        for run in TILE_RUN.findall(value):
            if (rack := _part_of(run, foreign_racks)) is not None:
                yield f"{run}, from the rack {rack}"
    elif (
        _letters(value)
        and not _public_letters(path)
        and (rack := _part_of("".join(value), foreign_racks)) is not None
    ):
        yield f"{value}, from the rack {rack}"


#: Where a finished game's record holds every seat's tiles (a replay's ``racks`` and
#: ``turn_tiles``, the bag check's ``turn_tiles`` and ``final_racks``): public after the end.
RECORD_TILES = frozenset({"racks", "turn_tiles", "final_racks"})


def _record_tiles(path: tuple[Any, ...], value: Any) -> bool:
    """Letters under one of the record's fields of every seat's tiles."""
    letters = isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(item, str) for item in value)
    )
    return letters and any(part in RECORD_TILES for part in path)


def _is_move(path: tuple[Any, ...], value: Any) -> bool:
    return isinstance(value, dict) and "swap_count" in value and "number" in value


def _letters(value: Any) -> bool:
    """A list of two or more single characters: how a rack travels."""
    return (
        isinstance(value, list)
        and len(value) >= 2
        and all(isinstance(item, str) and len(item) == 1 for item in value)
    )


def _public_letters(path: tuple[Any, ...]) -> bool:
    """Letters the public record holds (board, placed tiles, words), checked against it; a
    replay's analysis is not public (its best play is made of the analysed turn's rack)."""
    return "analysis" not in path and any(
        part in ("board", "tiles", "words", "move", "moves") for part in path
    )


def _analysed_tiles(path: tuple[Any, ...], value: Any) -> bool:
    """The tiles of an analysis's best play: letters of the rack that turn was made from."""
    return (
        "analysis" in path
        and path[-1] == "tiles"
        and isinstance(value, list)
        and all(isinstance(tile, dict) and "letter" in tile for tile in value)
    )
