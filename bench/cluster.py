"""The server under test for the live benchmarks: its own database, Daphne processes, players.

Every live bench runs against a database of its own (``wordduel_perf`` next to the one in
``DATABASE_URL``, created and dropped here) and a channel-layer prefix of its own, so the
shared PostgreSQL and Redis are only ever used, never flushed or restarted. Daphne processes
are started here and stopped here, by the PIDs we got when starting them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
#: The web process as deployed (wordduel/serve.py: Daphne as shipped, its access log redacted).
WEB_COMMAND = [PYTHON, "-m", "wordduel.serve"]
#: The bench's own database and its channel-layer and cache prefix (never the product's own);
#: ``BENCH_NAME`` gives a run another, as the suite's smoke test of the benches does.
PERF_NAME = os.environ.get("BENCH_NAME", "wordduel_perf")
PREFIX = PERF_NAME
#: Sessions are signed with this, so the bench process and the servers must share it.
SECRET = "bench-only-secret-key-not-for-any-deployment-8c3e1a"  # noqa: S105
LAYERS = {
    "core": "channels_redis.core.RedisChannelLayer",
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
}


def default_layer() -> str:
    """The layer the settings choose when CHANNEL_LAYER_BACKEND is not set."""
    env = {k: v for k, v in os.environ.items() if k != "CHANNEL_LAYER_BACKEND"}
    out = subprocess.run(
        [PYTHON, "-c", "import wordduel.settings as s; print(s.CHANNEL_LAYER_BACKEND)"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


def database_url() -> str:
    """The shared PostgreSQL named by the environment (only its server is used)."""
    return os.environ.get("DATABASE_URL", "postgres://root@127.0.0.1:5432/wordduel")


def redis_url() -> str:
    return os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")


def perf_url(name: str = PERF_NAME) -> str:
    """The URL of the bench's own database ``name`` on the same server."""
    return database_url().rpartition("/")[0] + "/" + name


def raise_open_files() -> int:
    """Raise the soft open-files limit to the hard one (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def server_env(layer: str) -> dict[str, str]:
    """The environment of a Daphne under test and of the bench process talking to its DB."""
    env = dict(os.environ)
    env.update(
        DATABASE_URL=perf_url(),
        REDIS_URL=redis_url(),
        CHANNEL_LAYER_PREFIX=PREFIX,
        CHANNEL_LAYER_BACKEND=layer,
        CACHE_PREFIX=PREFIX,
        DJANGO_SETTINGS_MODULE="wordduel.settings",
        DEBUG="0",  # as deployed: no query log growing with every request
        SECRET_KEY=SECRET,
        SECURE_SSL_REDIRECT="0",
        LOG_LEVEL="WARNING",
        CLOCK_IN_PROCESS="0",
        PYTHONPATH=str(ROOT),
    )
    return env


def recreate_database(name: str = PERF_NAME) -> None:
    """Drop and create the bench's own database (never the one in DATABASE_URL)."""
    import psycopg

    drop_database(name)
    admin = database_url().rpartition("/")[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(name: str = PERF_NAME) -> None:
    import psycopg

    admin = database_url().rpartition("/")[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (name,),
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


def setup_django(layer: str) -> None:
    """Point this process at the bench database and layer, then set Django up."""
    os.environ.update(server_env(layer))
    import django

    django.setup()


def clear_layer_keys() -> int:
    """Delete what the bench's channel layer left in Redis (our prefix only)."""
    import redis

    client = redis.Redis.from_url(redis_url())
    removed = 0
    for pattern in (f"{PREFIX}*", f":1:{PREFIX}*"):
        keys = list(client.scan_iter(match=pattern, count=1000))
        for start in range(0, len(keys), 500):
            removed += client.delete(*keys[start : start + 500])
    client.close()
    return removed


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            time.sleep(0.1)
        else:
            return
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


# ---------------------------------------------------------------- /proc readings


def rss_kib(pid: int) -> int:
    """Resident set size of ``pid`` in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def settle_database(name: str = PERF_NAME, pause: float = 2.0) -> None:
    """Vacuum and checkpoint the bench database, then pause: a run that follows another
    (the commit bench leaves thousands of dead rows and dirty pages) starts from quiet."""
    import psycopg

    with psycopg.connect(perf_url(name), autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        conn.execute("CHECKPOINT")
    time.sleep(pause)


def postgres_pids(name: str = PERF_NAME) -> list[int]:
    """The PostgreSQL backends serving the bench database right now (same machine)."""
    import psycopg

    admin = database_url().rpartition("/")[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (name,)
        ).fetchall()
    return [pid for (pid,) in rows]


def redis_pid() -> int | None:
    """The Redis server's PID, if it runs on this machine (it answers for itself)."""
    import redis

    client = redis.Redis.from_url(redis_url())
    try:
        pid = int(client.info("server")["process_id"])
    finally:
        client.close()
    return pid if Path(f"/proc/{pid}").exists() else None


def cpu_of(pids: list[int]) -> float:
    """CPU seconds used so far by those of ``pids`` still alive."""
    total = 0.0
    for pid in pids:
        with contextlib.suppress(OSError):
            total += cpu_seconds(pid)
    return total


# ---------------------------------------------------------------- Daphne processes


@dataclass
class Cluster:
    """``count`` Daphne processes of the real ASGI application, one port each."""

    layer: str
    count: int = 2
    ports: list[int] = field(default_factory=list)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self) -> Cluster:
        ports = [free_port() for _ in range(self.count)]
        env = server_env(self.layer)
        # The load generators open their sockets as pages of these servers would (Origin:
        # the server's own address), all from loopback: one address holds every socket.
        env.update(
            WEBSOCKET_ALLOWED_ORIGINS=",".join(f"http://127.0.0.1:{port}" for port in ports),
            WS_MAX_SOCKETS_PER_ADDRESS="1000000",
            WS_NEW_SOCKETS_PER_MINUTE="1000000",
            WS_SYNCS_PER_MINUTE_PER_ADDRESS="1000000",
            WS_SYNCS_PER_MINUTE_PER_SOCKET="1000000",
        )
        for port in ports:
            proc = subprocess.Popen(
                [
                    *WEB_COMMAND,
                    "-v",
                    "0",
                    "-e",
                    f"tcp:port={port}:interface=127.0.0.1:backlog=2048",
                    "wordduel.asgi:application",
                ],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            self.ports.append(port)
            self.procs.append(proc)
        for port, proc in zip(self.ports, self.procs, strict=True):
            try:
                wait_for_port(port)
            except RuntimeError:
                self.stop()
                err = proc.stderr.read().decode() if proc.stderr else ""
                raise RuntimeError(f"daphne on {port} did not start:\n{err[-2000:]}") from None
        return self

    @property
    def pids(self) -> list[int]:
        return [proc.pid for proc in self.procs]

    def rss_kib(self) -> int:
        return sum(rss_kib(pid) for pid in self.pids)

    def cpu_seconds(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids)

    def errors(self) -> str:
        """What the servers wrote to stderr (read after stop)."""
        return "".join(
            (proc.stderr.read().decode(errors="replace") if proc.stderr else "")
            for proc in self.procs
        )

    def stop(self, grace: float = 15.0) -> None:
        """SIGTERM each server, SIGKILL what has not ended after ``grace`` seconds."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


# ---------------------------------------------------------------- load-generator processes


class Worker:
    """A load-generator process (``bench/loadgen.py``), spoken to in JSON lines."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, mode: str, config: dict[str, Any]) -> Worker:
        proc = await asyncio.create_subprocess_exec(
            PYTHON,
            str(ROOT / "bench" / "loadgen.py"),
            mode,
            cwd=ROOT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=2**26,
            start_new_session=True,
        )
        worker = cls(proc)
        await worker.send(config)
        return worker

    async def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        await self.proc.stdin.drain()

    async def read(self, timeout: float = 120.0) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if not line:
            raise RuntimeError(f"load generator {self.proc.pid} ended early")
        return json.loads(line)

    async def finish(self, timeout: float = 30.0) -> None:
        """Wait for the process to end by itself; end it (by its PID) if it does not."""
        try:
            await asyncio.wait_for(self.proc.wait(), timeout)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()


def split(items: list[Any], parts: int) -> Iterator[list[Any]]:
    """``items`` dealt round-robin into ``parts`` lists."""
    for index in range(parts):
        yield items[index::parts]


# ---------------------------------------------------------------- fixtures in the bench database


def members(count: int, prefix: str) -> list[Any]:
    """``count`` members without a usable password (signing in is not what is measured)."""
    from accounts.models import Member

    rows = []
    for index in range(count):
        member = Member(username=f"{prefix}{index}")
        member.set_unusable_password()
        rows.append(member)
    Member.objects.bulk_create(rows)
    return list(Member.objects.filter(username__startswith=prefix).order_by("id"))


def session_cookies(people: list[Any]) -> list[str]:
    """A signed-in session for each member, as ``django.contrib.auth.login`` stores one.

    Written in one bulk insert: signing in is not what is measured.
    """
    from datetime import timedelta

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.utils import timezone
    from django.utils.crypto import get_random_string

    expires = timezone.now() + timedelta(seconds=settings.SESSION_COOKIE_AGE)
    encoder = SessionStore()
    rows = [
        Session(
            session_key=get_random_string(32, "abcdefghijklmnopqrstuvwxyz0123456789"),
            session_data=encoder.encode(
                {
                    SESSION_KEY: str(member.pk),
                    BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
                    HASH_SESSION_KEY: member.get_session_auth_hash(),
                }
            ),
            expire_date=expires,
        )
        for member in people
    ]
    Session.objects.bulk_create(rows)
    return [row.session_key for row in rows]


def organiser() -> Any:
    """The bench's organiser (a superuser holds every permission, ``organise`` too)."""
    from accounts.models import Member

    member, created = Member.objects.get_or_create(
        username="bench-organiser", defaults={"is_superuser": True}
    )
    if created:
        member.set_unusable_password()
        member.save()
    return member


def live_matches(count: int, *, prefix: str) -> list[dict[str, Any]]:
    """``count`` live public matches with two signed-in players each, dealt and ready.

    Each entry: the match id, both players' session cookies and the dealt game's JSON.
    """
    from django.db import transaction

    from matches.models import Match
    from matches.stored_game import game_of
    from tournaments import services as organising

    boss = organiser()
    players = members(2 * count, prefix)
    cookies = session_cookies(players)
    created = []
    with transaction.atomic():  # one commit for them all: setting up is not measured
        for index in range(count):
            match = organising.create_fixture(
                organiser=boss,
                name=f"bench {prefix} {index}",
                first=players[2 * index],
                second=players[2 * index + 1],
            )
            created.append((match.pk, cookies[2 * index], cookies[2 * index + 1]))
    states = {
        match.pk: game_of(match, list(match.seats.order_by("position"))).to_json()  # dealt
        for match in Match.objects.filter(pk__in=[pk for pk, _, _ in created])
    }
    return [{"match_id": pk, "cookies": [c0, c1], "game": states[pk]} for pk, c0, c1 in created]


# ---------------------------------------------------------------- scripted games

_SCRIPTING: dict[str, Any] = {}


def _script_one(job: tuple[dict[str, Any], int]) -> list[tuple[int, dict[str, Any]]]:
    """A whole random legal game from the dealt state: (seat, frame without id and turn)."""
    import random

    from engine import Game
    from engine.randomplay import random_move

    state, seed = job
    lexicon, index = _SCRIPTING["lexicon"], _SCRIPTING["index"]
    game = Game.from_json(state)
    rng = random.Random(seed)
    moves = []
    while not game.is_over:
        move = random_move(game, lexicon=lexicon, index=index, rng=rng)
        seat = game.to_move
        game = game.apply(move, player=seat, lexicon=lexicon)
        wire = move.to_dict()
        moves.append((seat, {"type": wire.pop("kind"), **wire}))
    return moves


def script_games(entries: list[dict[str, Any]], workers: int = 2) -> None:
    """Play each dealt game to its end offline, so the clients only replay known-legal moves.

    The engine is deterministic (the bag is a keyed stream), so the server accepts exactly
    these moves; the search for them (randomplay) costs the clients nothing during the run.
    Adds ``moves`` to each entry.
    """
    import multiprocessing

    from django.db import connections

    from engine import get_ruleset
    from engine.randomplay import AnagramIndex
    from lexicon.lexicon import get_lexicon

    if "lexicon" not in _SCRIPTING:
        lexicon = get_lexicon("enable", max_len=get_ruleset("word-duel").lexicon_max_len)
        _SCRIPTING.update(lexicon=lexicon, index=AnagramIndex(lexicon))
    connections.close_all()  # no database socket may be shared with the forked workers
    jobs = [(entry["game"], entry["match_id"]) for entry in entries]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        scripts = pool.map(_script_one, jobs, chunksize=4)
    for entry, moves in zip(entries, scripts, strict=True):
        entry["moves"] = moves


# ---------------------------------------------------------------- fan-out measurement


async def start_spectators(
    ports: list[int], match_id: int, spectators: int, procs: int
) -> tuple[list[Worker], float]:
    """``spectators`` sockets on ``match_id`` in ``procs`` processes; connect time (s)."""
    workers = [
        await Worker.start(
            "spectators",
            {
                "ports": ports,
                "match_id": match_id,
                "count": len(part),
                "concurrency": 8,
                "max_seconds": 240,
            },
        )
        for part in split(list(range(spectators)), procs)
    ]
    ready = [await w.read(180) for w in workers]
    return workers, max(r["seconds"] for r in ready)


async def stop_workers(workers: list[Worker]) -> None:
    for worker in workers:
        await worker.send({"stop": True})
    for worker in workers:
        await worker.read(60)
        await worker.finish()


async def fanout_rounds(
    workers: list[Worker],
    senders: list[Any],
    frames: list[tuple[int, dict[str, Any]]],
    *,
    first_turn: int = 0,
) -> list[dict[str, float]]:
    """Send each frame (from seat ``senders[seat]``, the first against ``first_turn``); time
    its ack and its last delivery.

    The next frame goes only once every spectator has read the previous one's news, so each
    round is measured alone. Times are ``CLOCK_MONOTONIC``, which all processes share.
    """
    import asyncio

    rows = []
    for number, (seat, move) in enumerate(frames, start=first_turn):
        frame = {**move, "id": f"f-{number}", "turn": number}
        sent = time.monotonic()
        answer = await senders[seat].request(frame)
        acked = time.monotonic()
        if not answer.get("accepted"):
            raise RuntimeError(f"fan-out commit refused: {answer}")
        reports = [await w.read(30) for w in workers]
        if any(r.get("turn") != number + 1 for r in reports):
            raise RuntimeError(f"spectators out of step: {reports}")
        rows.append(
            {
                "ack_ms": (acked - sent) * 1000,
                "first_ms": (min(r["first"] for r in reports) - sent) * 1000,
                "last_ms": (max(r["last"] for r in reports) - sent) * 1000,
            }
        )
        await asyncio.sleep(0.05)
    return rows
