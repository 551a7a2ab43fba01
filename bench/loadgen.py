"""The load generator: asyncio ``websockets`` clients in a process of their own.

Started by the benches (``bench/cluster.py`` ``Worker``) as ``python bench/loadgen.py MODE``;
reads its configuration as one JSON line on stdin, answers in JSON lines on stdout, and takes
further commands (``go``, ``stop``) on stdin. Separate processes so the clients' CPU is
visible as theirs and the server's event loop is not shared with them. Every loop here is
bounded by a count (the scripted moves, the sockets asked for) and by ``max_seconds``, after
which the process closes its sockets and ends by itself. Loopback addresses only.

Modes:
  players      scripted players of many matches committing as fast as the server answers
  spectators   anonymous viewers of one match, timing when each ``turn`` news arrives
  idle         open sockets (to matches or to an echo server) and hold them until told
  echo-server  a bare ``websockets`` echo server: the floor the Daphne numbers stand on
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import statistics
import sys
import time
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed, InvalidHandshake

HOST = "127.0.0.1"  # loopback only, always
#: Longest a request may wait for its answer before it counts as lost.
ANSWER_TIMEOUT = 15.0
#: A spectator only needs the turn number of a ``turn`` frame: found without parsing the
#: whole frame, so the clients (on the same two cores) take as little CPU from the server
#: as they can. The server's frames are compact JSON (``matches.live.protocol.encode``).
TURN_NUMBER = re.compile(r'"turn_number":(\d+)')


def emit(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


async def read_command(reader: asyncio.StreamReader) -> dict[str, Any]:
    line = await reader.readline()
    return json.loads(line) if line else {"stop": True}


async def stdin_reader() -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    return reader


async def open_socket(port: int, path: str, cookie: str | None = None) -> ClientConnection:
    """A websocket to the server under test, as a browser on the same host would open it."""
    headers = {"Cookie": f"sessionid={cookie}"} if cookie else None
    return await connect(
        f"ws://{HOST}:{port}{path}",
        origin=f"http://{HOST}:{port}",  # type: ignore[arg-type]
        additional_headers=headers,
        compression=None,
        proxy=None,
        ping_interval=None,  # browsers do not ping; Daphne does
        open_timeout=30,
        max_size=2**22,
    )


#: Handshakes the server dropped and this process tried again (reported with the results).
RETRIED = {"count": 0}


async def join(port: int, path: str, cookie: str | None = None) -> ClientConnection:
    """Open a socket and read its first frame, trying a dropped handshake twice more.

    Daphne drops a handshake the application has not accepted within 5 s; on two cores
    shared with the database that can happen to a few in a burst. Bounded: three tries.
    """
    for attempt in range(3):
        ws = None
        try:
            ws = await open_socket(port, path, cookie)
            await first_frame(ws)
        except (OSError, TimeoutError, InvalidHandshake, ConnectionClosed):
            if ws is not None:
                await close_all([ws], timeout=5)
            if attempt == 2:
                raise
            RETRIED["count"] += 1
            await asyncio.sleep(0.5)
        else:
            return ws
    raise AssertionError("unreachable")


async def close_all(sockets: list[ClientConnection], timeout: float = 20.0) -> None:
    """Close every socket politely, but never wait longer than ``timeout``."""

    async def close(ws: ClientConnection) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.close(), 5)

    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*(close(ws) for ws in sockets)), timeout)


# ---------------------------------------------------------------- players


#: The frames a move's news is (its turn to both players, its rack to the mover); a game's
#: end adds its own (``ended``), which are not counted.
MOVE_NEWS = frozenset({"turn", "rack"})


class Player:
    """One signed-in socket: routes answers to the waiting request, counts a move's news."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.news = 0
        self.task = asyncio.ensure_future(self.read())

    async def read(self) -> None:
        with contextlib.suppress(Exception):
            async for text in self.ws:
                frame = json.loads(text)
                waiter = self.pending.pop(frame.get("id"), None)
                if waiter is not None and frame["type"] in {"ack", "error"}:
                    waiter.set_result(frame)
                elif frame["type"] in MOVE_NEWS:
                    self.news += 1

    async def request(self, frame: dict[str, Any]) -> dict[str, Any]:
        waiter = asyncio.get_running_loop().create_future()
        self.pending[frame["id"]] = waiter
        await self.ws.send(json.dumps(frame, separators=(",", ":")))
        return await asyncio.wait_for(waiter, ANSWER_TIMEOUT)


async def first_frame(ws: ClientConnection) -> dict[str, Any]:
    """The snapshot every connection gets first."""
    return json.loads(await asyncio.wait_for(ws.recv(), ANSWER_TIMEOUT))


async def play_match(
    entry: dict[str, Any], players: list[Player], stop_at: float, samples: list[list[float]]
) -> dict[str, int]:
    """Commit the match's scripted moves in turn, each as soon as the previous one is acked."""
    tally = {"accepted": 0, "refused": 0, "lost": 0, "finished": 0}
    for number, (seat, move) in enumerate(entry["moves"]):
        if time.monotonic() >= stop_at:
            return tally
        frame = {**move, "id": f"m{entry['match_id']}-{number}", "turn": number}
        sent = time.monotonic()
        try:
            answer = await players[seat].request(frame)
        except TimeoutError:
            tally["lost"] += 1
            return tally
        acked = time.monotonic()
        if answer.get("type") != "ack" or not answer.get("accepted"):
            tally["refused"] += 1
            emit({"log": f"match {entry['match_id']} move {number}: {answer}"})
            return tally
        tally["accepted"] += 1
        samples.append([sent, acked])
    tally["finished"] += 1
    return tally


async def run_players(config: dict[str, Any], commands: asyncio.StreamReader) -> None:
    ports = config["ports"]
    gate = asyncio.Semaphore(config.get("concurrency", 16))

    async def sit(index: int, entry: dict[str, Any]) -> list[Player]:
        port = ports[index % len(ports)]
        seats = []
        for cookie in entry["cookies"]:
            async with gate:
                ws = await join(port, f"/ws/matches/{entry['match_id']}/", cookie)
            seats.append(Player(ws))
        return seats

    matches = config["matches"]
    tables = await asyncio.gather(*(sit(i, entry) for i, entry in enumerate(matches)))
    emit({"ready": sum(len(t) for t in tables), "retried": RETRIED["count"]})
    command = await read_command(commands)
    stop_at = min(command.get("stop_at", 0.0), time.monotonic() + config["max_seconds"])
    samples: list[list[float]] = []
    tallies = await asyncio.gather(
        *(
            play_match(entry, seats, stop_at, samples)
            for entry, seats in zip(matches, tables, strict=True)
        )
    )
    totals = {key: sum(t[key] for t in tallies) for key in tallies[0]}
    cpu_seconds = time.process_time()  # the load's own CPU, before the wait below
    news_at_stop = sum(p.news for seats in tables for p in seats)
    # News still on its way when the moves stop: wait until a second passes without any
    # (30 s at most), so that late news is told apart from news that never comes.
    drain_started = news_seen = time.monotonic()
    news = news_at_stop
    while time.monotonic() - news_seen < 1.0 and time.monotonic() - drain_started < 30:
        await asyncio.sleep(0.1)
        heard = sum(p.news for seats in tables for p in seats)
        if heard != news:
            news, news_seen = heard, time.monotonic()
    # Each match's own account: three frames for each of its moves accepted.
    short = [
        [entry["match_id"], 3 * tally["accepted"], sum(p.news for p in seats)]
        for entry, seats, tally in zip(matches, tables, tallies, strict=True)
        if sum(p.news for p in seats) != 3 * tally["accepted"]
    ]
    emit(
        {
            "samples": samples,
            "totals": totals,
            "news_at_stop": news_at_stop,
            "news": news,
            "news_late_s": news_seen - drain_started,
            "news_short": short,
            "cpu_seconds": cpu_seconds,
        }
    )
    await close_all([p.ws for seats in tables for p in seats])


# ---------------------------------------------------------------- spectators


async def run_spectators(config: dict[str, Any], commands: asyncio.StreamReader) -> None:
    """Watch one match; after each turn has reached every socket here, say when it did."""
    ports = config["ports"]
    count = config["count"]
    gate = asyncio.Semaphore(config.get("concurrency", 16))
    arrivals: dict[int, list[float]] = {}

    async def watch(index: int) -> ClientConnection:
        async with gate:
            return await join(ports[index % len(ports)], f"/ws/matches/{config['match_id']}/")

    async def listen(ws: ClientConnection) -> None:
        with contextlib.suppress(Exception):
            async for text in ws:
                at = time.monotonic()
                if '"type":"turn"' not in text[:48]:  # the frame's head: match_id, then type
                    continue
                found = TURN_NUMBER.search(text)
                if found is None:
                    continue
                number = int(found[1])
                times = arrivals.setdefault(number, [])
                times.append(at)
                if len(times) == count:
                    emit(
                        {
                            "turn": number,
                            "first": min(times),
                            "median": statistics.median(times),
                            "last": max(times),
                        }
                    )

    started = time.monotonic()
    sockets = await asyncio.gather(*(watch(i) for i in range(count)))
    emit(
        {"ready": len(sockets), "seconds": time.monotonic() - started, "retried": RETRIED["count"]}
    )
    listeners = [asyncio.ensure_future(listen(ws)) for ws in sockets]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(read_command(commands), config["max_seconds"])
    await close_all(sockets)
    for task in listeners:
        task.cancel()
    emit({"closed": len(sockets), "cpu_seconds": time.process_time()})


# ---------------------------------------------------------------- idle connections


async def run_idle(config: dict[str, Any], commands: asyncio.StreamReader) -> None:
    """Open ``count`` sockets as fast as ``concurrency`` allows, then hold them, idle.

    The ramp ends after ``ramp_seconds`` whatever it reached (what was still opening is
    given up and counted as unfinished); the hold ends on ``stop`` or after ``max_seconds``.
    """
    ports = config["ports"]
    paths = config["paths"]
    expect_snapshot = config.get("expect_snapshot", True)
    gate = asyncio.Semaphore(config.get("concurrency", 16))
    deadline = time.monotonic() + config["max_seconds"]
    ramp_deadline = time.monotonic() + config.get("ramp_seconds", config["max_seconds"])
    failures: list[str] = []
    handshakes: list[float] = []

    async def one(index: int) -> ClientConnection | None:
        async with gate:
            began = time.monotonic()
            port, path = ports[index % len(ports)], paths[index % len(paths)]
            try:
                ws = await (join(port, path) if expect_snapshot else open_socket(port, path))
            except Exception as error:  # noqa: BLE001 - counted and reported, not fatal
                failures.append(type(error).__name__)
                return None
            handshakes.append(time.monotonic() - began)
            return ws

    started = time.monotonic()
    tasks = [asyncio.ensure_future(one(i)) for i in range(config["count"])]
    done, pending = await asyncio.wait(tasks, timeout=max(0.0, ramp_deadline - started))
    finished = time.monotonic()
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    sockets = [task.result() for task in done if task.result() is not None]
    drains = [asyncio.ensure_future(_drain(ws)) for ws in sockets]
    emit(
        {
            "connected": len(sockets),
            "unfinished": len(pending),
            "failed": len(failures),
            "failures": sorted(set(failures)),
            "started": started,
            "finished": finished,
            "handshake_p50": statistics.median(handshakes) if handshakes else None,
            "retried": RETRIED["count"],
            "cpu_seconds": time.process_time(),
        }
    )
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(read_command(commands), max(1.0, deadline - time.monotonic()))
    await close_all(sockets)
    for task in drains:
        task.cancel()
    emit({"closed": len(sockets)})


async def _drain(ws: ClientConnection) -> None:
    with contextlib.suppress(Exception):
        async for _ in ws:
            pass


# ---------------------------------------------------------------- echo server


async def run_echo_server(config: dict[str, Any], commands: asyncio.StreamReader) -> None:
    """Echo every message back; no framework, no database, no channel layer.

    With ``greet`` it also stands in for the server in the fan-out floor: it greets each
    socket as Daphne would (a snapshot-shaped frame), and a ``broadcast`` request makes it
    send a ``turn``-shaped frame to every other socket, then ``ack`` the sender.
    """
    sockets: set[ServerConnection] = set()

    async def serve_one(ws: ServerConnection) -> None:
        sockets.add(ws)
        try:
            if config.get("greet"):
                await ws.send('{"type":"snapshot"}')
            async for message in ws:
                if isinstance(message, str) and message.startswith('{"type":"broadcast"'):
                    request = json.loads(message)
                    news = {"type": "turn", "data": {"turn_number": request["turn"] + 1}}
                    broadcast(sockets - {ws}, json.dumps(news, separators=(",", ":")))
                    await ws.send(
                        json.dumps({"type": "ack", "id": request["id"], "accepted": True})
                    )
                else:
                    await ws.send(message)
        except Exception:  # noqa: BLE001, S110 - a client going away is not the server's error
            pass
        finally:
            sockets.discard(ws)

    async with serve(
        serve_one, HOST, config["port"], compression=None, ping_interval=None, backlog=2048
    ):
        emit({"ready": config["port"], "pid": os.getpid()})
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(read_command(commands), config["max_seconds"])


MODES = {
    "players": run_players,
    "spectators": run_spectators,
    "idle": run_idle,
    "echo-server": run_echo_server,
}


async def main() -> None:
    mode = sys.argv[1]
    commands = await stdin_reader()
    config = await read_command(commands)
    await MODES[mode](config, commands)


if __name__ == "__main__":
    asyncio.run(main())
