"""A tournament match over the real server's sockets, from connect to the end of the game.

The web process runs as deployed (tests/live_server.py: ``python -m wordduel.serve``, with
Django's async-safety check on). Before, a tournament match's socket closed with 1011 on
connect: its snapshot asked the vacations app on the event loop. Here an anonymous
spectator, a viewing-key holder and both players open the socket of a round-robin fixture
in which alice has declared days away; each receives its snapshot (alice's days away and
the deadline they pause in it), and the players play the game to its end over their
sockets while everyone receives the news. Once with the match live before anyone
connects, once with it kicking off while the sockets are open. The refusals, a ``sync`` and
the acks go through the same server, and its log holds no error.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import Callable, Iterator
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone
from websockets.sync.client import ClientConnection, connect

from accounts.models import Member
from matches import services
from matches.models import Match, Turn
from tests.live_server import WebServer
from tests.matches.test_ws_helpers import (
    move_frame,
    new_client_id,
    session_cookie,
    socket_path,
    some_move,
)
from tournaments import services as organising
from vacations import services as vacation_services

pytestmark = pytest.mark.django_db(transaction=True)

#: Generous bound for a frame that must arrive; a failure, never a measurement.
ARRIVAL_TIMEOUT = 15
ENDED = frozenset({Match.Status.FINISHED, Match.Status.ABANDONED})


class LiveSocket:
    """One client connection to the real server that remembers every frame it received."""

    def __init__(self, name: str, connection: ClientConnection) -> None:
        self.name = name
        self.connection = connection
        self.frames: list[dict[str, Any]] = []
        self.unread: list[dict[str, Any]] = []

    def _receive(self) -> dict[str, Any]:
        frame = json.loads(self.connection.recv(timeout=ARRIVAL_TIMEOUT))
        self.frames.append(frame)
        return frame

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first unread frame matching ``predicate``; frames before it stay unread."""
        for index, frame in enumerate(self.unread):
            if predicate(frame):
                return self.unread.pop(index)
        while True:
            frame = self._receive()
            if predicate(frame):
                return frame
            self.unread.append(frame)

    def request(self, frame: dict[str, Any]) -> dict[str, Any]:
        """Send a request carrying an id; the answer naming it."""
        self.connection.send(json.dumps(frame))
        return self.wait_for(
            lambda f: f.get("id") == frame["id"] and f["type"] in {"ack", "error", "snapshot"}
        )

    def event(self, kind: str, **wanted: Any) -> dict[str, Any]:
        """The next ``kind`` news whose data has the given items (``number``: the move's)."""

        def matches(frame: dict[str, Any]) -> bool:
            if frame["type"] != kind:
                return False
            data = frame.get("data", {})
            if kind == "turn":
                data = {**data, "number": data["move"]["number"]}
            return all(data.get(name) == value for name, value in wanted.items())

        return self.wait_for(matches)

    def sync(self) -> dict[str, Any]:
        answer = self.request({"type": "sync", "id": new_client_id("sync")})
        assert answer["type"] == "snapshot", (self.name, answer)
        return answer["snapshot"]


@pytest.fixture
def open_socket(web_server: WebServer) -> Iterator[Callable[..., tuple[LiveSocket, dict]]]:
    """Connect to a match's socket on the real server (as ``member``, or anonymously, with
    ``key``); the socket and the snapshot it received on connect. Closed after the test."""
    connections = contextlib.ExitStack()

    def open_(
        match: Match, name: str, *, member: Member | None = None, key: str | None = None
    ) -> tuple[LiveSocket, dict[str, Any]]:
        headers = {}
        if member is not None:
            headers["Cookie"] = f"{settings.SESSION_COOKIE_NAME}={session_cookie(member)}"
        connection = connections.enter_context(
            connect(
                web_server.ws_url + socket_path(match.id, key),
                origin=web_server.url,  # type: ignore[arg-type]
                additional_headers=headers,
                proxy=None,
                open_timeout=ARRIVAL_TIMEOUT,
            )
        )
        socket = LiveSocket(name, connection)
        first = socket._receive()  # a socket that closes instead (1011) fails here
        assert (first["type"], first.get("reason")) == ("snapshot", "connect"), (name, first)
        return socket, first["snapshot"]

    with connections:
        yield open_


@pytest.fixture
def server_log(web_server: WebServer) -> Callable[[], str]:
    """What the server has logged since the test began."""
    start = web_server.log_size()
    return lambda: web_server.log_since(start)


def round_robin_match(organiser: Member, alice: Member, bob: Member, kickoff: Any) -> Match:
    tournament = organising.create_round_robin(
        organiser=organiser,
        name="Socket League",
        players=[alice, bob],
        first_kickoff=kickoff,
        interval=timedelta(days=7),
    )
    match = Match.objects.get(tournament=tournament)
    assert [seat.member for seat in match.seats.order_by("position")] == [alice, bob]
    return match


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text)


def stored_deadline(match: Match) -> Any:
    match.refresh_from_db()
    return match.turn_deadline_at


@pytest.mark.parametrize("start", ["live", "kicks_off_while_open"])
def test_a_tournament_match_is_watched_and_played_to_the_end_over_the_sockets(
    start: str, open_socket, server_log, organiser, alice, bob
) -> None:
    kickoff = timezone.now() + timedelta(hours=1)
    match = round_robin_match(organiser, alice, bob, kickoff)
    # alice will be away for one whole day, the day after tomorrow: within her first turn.
    away_day: date = timezone.now().date() + timedelta(days=2)
    vacation_services.declare_vacation(member=alice, first_day=away_day, last_day=away_day)
    if start == "live":
        assert services.open_due_matches(now=kickoff) == [match.id]

    viewers = {
        "anonymous": open_socket(match, "anonymous"),
        "key holder": open_socket(match, "key holder", key=match.viewing_key),
        "alice": open_socket(match, "alice", member=alice),
        "bob": open_socket(match, "bob", member=bob),
    }
    sockets = {name: socket for name, (socket, _) in viewers.items()}
    for name, (_, snapshot) in viewers.items():
        assert snapshot["match_id"] == match.id
        assert snapshot["status"] == ("live" if start == "live" else "scheduled"), name
        # Everyone is told alice will be away (not yet).
        assert [(a["position"], a["first_day"], a["away_now"]) for a in snapshot["away"]] == [
            (0, away_day.isoformat(), False)
        ], name
        assert snapshot["your_seat"] == {"alice": 0, "bob": 1}.get(name), name
    if start == "live":
        expected = stored_deadline(match) + timedelta(days=1)  # paused by her day away
        for name, (_, snapshot) in viewers.items():
            assert instant(snapshot["turn_deadline_at"]) == expected, name
    else:
        assert all(snapshot["rack"] in (None, []) for _, snapshot in viewers.values())
        # Kick-off comes (the clock's sweep, run here, is told the time): the news reaches
        # every open socket, and each player's rack reaches that player.
        assert services.open_due_matches(now=kickoff + timedelta(seconds=1)) == [match.id]
        expected = stored_deadline(match) + timedelta(days=1)
        for name, socket in sockets.items():
            opened = socket.event("opened")["data"]
            assert opened["status"] == "live", name
            assert instant(opened["turn_deadline_at"]) == expected, name
        for name in ("alice", "bob"):
            assert len(sockets[name].event("rack")["data"]["rack"]) == 7

    play_to_the_end(match, sockets)

    match.refresh_from_db()
    assert match.status in ENDED
    turns = Turn.objects.filter(match=match).count()
    for name, socket in sockets.items():
        final = socket.sync()
        assert final["status"] == match.status, name
        assert [move["number"] for move in final["moves"]] == list(range(1, turns + 1)), name
        assert final["away"] == [], name  # over: nobody's days away matter any more
        numbers = [f["data"]["move"]["number"] for f in socket.frames if f["type"] == "turn"]
        assert numbers == list(range(1, turns + 1)), name  # every move's news, in order
        assert sum(f["type"] == "ended" for f in socket.frames) == 1, name
    log = server_log()
    assert " ERROR " not in log, log
    assert "Traceback" not in log, log


def play_to_the_end(match: Match, sockets: dict[str, LiveSocket]) -> None:
    """The players take turns over their sockets with random legal moves until the game
    ends; every socket receives each move's news, and the end's. Along the way the server
    answers refusals (not your turn, a stale turn, a visitor's move, a taken seat) and a
    ``sync``, each with what the protocol says."""
    rng = random.Random(35)
    players = {0: sockets["alice"], 1: sockets["bob"]}
    while True:
        match.refresh_from_db()
        if match.status in ENDED:
            return
        mover, other = players[match.to_move], players[1 - match.to_move]
        turn = match.turn_number
        if turn == 1:
            check_refusals(match, mover, other, sockets)
        answer = mover.request(
            move_frame(some_move(match.id, rng), turn=turn, client_id=new_client_id("move"))
        )
        assert (answer["type"], answer["accepted"]) == ("ack", True), answer
        deadline = stored_deadline(match)
        for name, socket in sockets.items():
            news = socket.event("turn", number=turn + 1)["data"]
            if match.status not in ENDED:
                # alice's day away pauses her turns' deadlines, in everyone's news.
                paused = timedelta(days=1) if match.to_move == 0 else timedelta(0)
                assert news["to_move"] == match.to_move, name
                assert instant(news["turn_deadline_at"]) == deadline + paused, name
        assert mover.event("rack")["data"]["turn_number"] == turn + 1  # the mover's alone
        if match.status in ENDED:
            for name, socket in sockets.items():
                ended = socket.event("ended")["data"]
                assert (ended["status"], ended["result"]) == (match.status, match.result), name


def check_refusals(
    match: Match, mover: LiveSocket, other: LiveSocket, sockets: dict[str, LiveSocket]
) -> None:
    """Each refusal on the loop's side of the consumer, and a ``sync``, on this match."""
    turn = match.turn_number
    refused = other.request({"type": "pass", "id": new_client_id("early"), "turn": turn})
    assert (refused["accepted"], refused["code"]) == (False, "not_your_turn"), refused
    assert refused["snapshot"]["turn_number"] == turn  # a fresh view, to redraw from
    stale = mover.request({"type": "pass", "id": new_client_id("stale"), "turn": turn - 1})
    assert (stale["accepted"], stale["code"]) == (False, "stale_turn"), stale
    assert stale["snapshot"]["turn_number"] == turn
    seat = mover.request({"type": "take_seat", "id": new_client_id("seat"), "position": 1})
    assert (seat["type"], seat["accepted"]) == ("ack", False), seat
    visitor = sockets["key holder"].request(
        {"type": "pass", "id": new_client_id("visitor"), "turn": turn}
    )
    assert (visitor["type"], visitor["code"]) == ("error", "sign_in_required"), visitor
    snapshot = sockets["anonymous"].sync()
    assert (snapshot["turn_number"], snapshot["your_seat"]) == (turn, None)
