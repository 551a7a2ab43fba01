"""Real processes for the fault tests: a throwaway Redis, Daphne and Celery subprocesses.

Each process is started by the test that needs it, on a free loopback port, pointed at the
test database of this run, and stopped by that test (by its own PID; a process group for
Daphne and Celery so nothing is left behind). The machine's shared Redis and PostgreSQL are
never restarted: faults are injected into these throwaway processes, or into backends of
this run's own test database. This module holds no tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import psycopg
from django.core.management import call_command
from django.db import close_old_connections, connection

from tests.processes import spawn

ROOT = Path(__file__).resolve().parents[2]
#: The host every subprocess is reached at; it is in ALLOWED_HOSTS by default.
HOST = "127.0.0.1"
ORIGIN = f"http://{HOST}"

T = TypeVar("T")


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def wait_until(predicate: Callable[[], T], *, timeout: float, what: str, every: float = 0.05) -> T:
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` seconds.

    A bound on waiting for something that must happen, never a measurement.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


def port_open(port: int) -> bool:
    try:
        socket.create_connection((HOST, port), timeout=0.5).close()
    except OSError:
        return False
    return True


def subprocess_database_url(application_name: str = "") -> str:
    """The URL of this run's own test database (valid once the test DB is set up).

    ``application_name`` tags the subprocess's backends in ``pg_stat_activity``, so a test
    can find (and terminate) exactly those.
    """
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    where = f"{db['HOST'] or HOST}:{db['PORT'] or 5432}/{db['NAME']}"
    url = f"postgres://{db['USER']}{password}@{where}"
    return f"{url}?application_name={application_name}" if application_name else url


def connect_test_database(*, autocommit: bool = True) -> psycopg.Connection:
    """A connection of the test's own to its test database, outside Django."""
    db = connection.settings_dict
    return psycopg.connect(
        host=db["HOST"] or HOST,
        port=int(db["PORT"] or 5432),
        user=db["USER"],
        password=db.get("PASSWORD") or None,
        dbname=db["NAME"],
        autocommit=autocommit,
    )


@contextlib.contextmanager
def held_lock(sql: str, params: Sequence[object] = ()) -> Iterator[psycopg.Connection]:
    """Hold the row locks ``sql`` takes (``... FOR UPDATE``) until the block ends.

    A service that needs those rows waits inside its transaction: the test then knows
    exactly where that transaction is when it injects a fault.
    """
    with connect_test_database(autocommit=False) as conn:
        conn.execute(sql, params)
        try:
            yield conn
        finally:
            conn.rollback()


def blocked_backends(application_name: str | None = None) -> list[tuple[int, str]]:
    """(pid, query) of every backend of the test database waiting for a lock.

    With ``application_name``, only those of one tagged subprocess, looked up in the same
    query: a worker thread may open its connection after the caller started waiting.
    """
    with connect_test_database() as conn:
        rows = conn.execute(
            "SELECT pid, query FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock' "
            "AND (%(app)s::text IS NULL OR application_name = %(app)s::text)",
            {"app": application_name},
        ).fetchall()
    return [(pid, query) for pid, query in rows]


def backends_of(application_name: str) -> list[int]:
    """The pids of the test database's backends opened by one tagged subprocess."""
    with connect_test_database() as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = %s",
            [application_name],
        ).fetchall()
    return [pid for (pid,) in rows]


def terminate_backend(pid: int) -> bool:
    """``pg_terminate_backend`` on one backend, refused unless it is of this test database;
    True once the backend has ended (waiting up to 5 s: without the wait the function returns
    as soon as it has signalled, and a client may use the connection before its backend has
    gone and said so, which no health check can see coming)."""
    with connect_test_database() as conn:
        row = conn.execute(
            "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
            "WHERE pid = %s AND datname = current_database()",
            [pid],
        ).fetchone()
    return bool(row and row[0])


def service_env(
    *, redis_url: str, prefix: str, application_name: str = "", **extra: str
) -> dict[str, str]:
    """The environment of a subprocess: the test database, ``redis_url``, its own prefixes."""
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": subprocess_database_url(application_name),
            "REDIS_URL": redis_url,
            "CELERY_BROKER_URL": redis_url,
            "CHANNEL_LAYER_PREFIX": prefix,
            "CACHE_PREFIX": prefix,
            "CLOCK_IN_PROCESS": "0",
            "PYTHONUNBUFFERED": "1",
            "DJANGO_SETTINGS_MODULE": "wordduel.settings",
            # The clients of these tests: pages "served" from ORIGIN, hundreds of sockets
            # from one address (the security tests set a small cap where they test it).
            "WEBSOCKET_ALLOWED_ORIGINS": ORIGIN,
            "WS_MAX_SOCKETS_PER_ADDRESS": "10000",
        }
    )
    env.update(extra)
    return env


def _stop(process: subprocess.Popen, *, group: bool, grace: float = 10) -> None:
    """SIGTERM, then SIGKILL after ``grace`` seconds; only this process (and its group)."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        if group:
            os.killpg(process.pid, signal.SIGTERM)
        else:
            process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
        process.wait(timeout=10)


class RedisServer:
    """A throwaway ``redis-server`` on a port of its own: no persistence, killable at will."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def start(self) -> None:
        """Start (or start again, empty, on the same port).

        Redis cannot adopt a socket, so its port is one probed free: should another process
        of a parallel run take it first, the first start moves to another port (a restart
        keeps its port, as the clients it tests reconnect there).
        """
        assert self.process is None or self.process.poll() is not None, "already running"
        for _attempt in range(5):
            if self._started_on_its_port():
                self.starts += 1
                return
            if self.starts:
                break
            self.port = free_port()
        raise AssertionError(f"redis would not start:\n{self._log().read_text(errors='replace')}")

    def _log(self) -> Path:
        return self.workdir / f"redis-{self.port}.log"

    def _started_on_its_port(self) -> bool:
        """Spawn redis-server on ``self.port``; False if it exits before answering."""
        with self._log().open("ab") as log:
            self.process = spawn(
                [
                    "redis-server",
                    "--bind",
                    HOST,
                    "--port",
                    str(self.port),
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(self.workdir),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        process = self.process
        wait_until(
            lambda: process.poll() is not None or self.ping(),
            timeout=10,
            what=f"redis on port {self.port}",
        )
        return process.poll() is None

    def ping(self) -> bool:
        try:
            with socket.create_connection((HOST, self.port), timeout=0.5) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: every connection drops at once, every key and group membership is gone."""
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=10)

    def freeze(self) -> None:
        """SIGSTOP: connections stay open but nothing answers (an unreachable layer)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def thaw(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGCONT)
            _stop(self.process, group=False)


class _ProcessGroup:
    """A subprocess started in a session of its own, so it is killed with its children."""

    log_path: Path
    process: subprocess.Popen | None = None
    #: Seconds between SIGTERM and SIGKILL when stopped.
    grace: float = 10

    def kill(self) -> None:
        """SIGKILL the whole process group: no goodbye to any client, no cleanup."""
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None:
            _stop(self.process, group=True, grace=self.grace)

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def _reserved_port(port: int = 0) -> socket.socket:
    """A loopback socket bound to ``port`` (0: one the kernel picks) but not listening.

    Nobody else can take the port while it is held, and connections to it are refused
    (nothing listens) until the server that adopts it calls ``listen``. A port number
    probed free and bound later could meanwhile go to another process of a parallel run.
    """
    reserved = socket.socket()
    try:
        reserved.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past TIME_WAIT
        reserved.bind((HOST, port))
    except OSError:
        reserved.close()
        raise
    return reserved


class DaphneServer(_ProcessGroup):
    """``daphne`` serving ``wordduel.asgi:application`` on a free port, as deployed."""

    grace = 3

    def __init__(
        self,
        env: dict[str, str],
        log_path: Path,
        *,
        command: list[str] | None = None,
        app_name: str = "",
    ) -> None:
        self.env = env
        self.log_path = log_path
        self.app_name = app_name
        self._reserved: socket.socket | None = _reserved_port()
        self.port = self._reserved.getsockname()[1]
        self.command = command or [sys.executable, "-m", "wordduel.serve"]
        self.process: subprocess.Popen | None = None

    @property
    def http_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://{HOST}:{self.port}"

    def start(self, *, timeout: float = 60) -> None:
        """Start Daphne on this server's port (again, after a kill: the same port).

        Daphne adopts a listening socket by its descriptor (``--fd``); this process keeps
        no copy, so once Daphne dies its port refuses connections, as a dead server's does.
        """
        listener = self._reserved or _reserved_port(self.port)
        self._reserved = None
        with self.log_path.open("ab") as log, listener:
            listener.listen(128)
            listener.set_inheritable(True)
            self.process = spawn(
                [*self.command, "--fd", str(listener.fileno()), "wordduel.asgi:application"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                pass_fds=(listener.fileno(),),
            )
        wait_until(self._ready, timeout=timeout, what=f"daphne on port {self.port}")

    def _ready(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"daphne exited early:\n{self.log_text()}")
        return port_open(self.port)

    def stop(self) -> None:
        if self._reserved is not None:  # reserved, never started
            self._reserved.close()
            self._reserved = None
        super().stop()

    def get(self, path: str, *, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """A plain HTTP GET to this process (status, body); errors are answers too."""
        request = urllib.request.Request(self.http_url + path, headers=headers or {})  # noqa: S310
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(request, timeout=20) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()


class CeleryWorker(_ProcessGroup):
    """``celery worker`` (solo pool) for the test database; killable mid-task.

    It reads every queue of the app (the default one, web pushes' and imports'), or only
    ``queues`` (names, as ``wordduel.celery.queue_name`` gives them); with ``beat_schedule``
    it runs beat too (``-B``), keeping beat's schedule in that file.
    """

    grace = 20  # a warm shutdown finishes its task

    def __init__(
        self,
        env: dict[str, str],
        log_path: Path,
        *,
        name: str,
        app_name: str = "",
        queues: Sequence[str] = (),
        beat_schedule: Path | None = None,
    ) -> None:
        self.env = env
        self.app_name = app_name
        self.log_path = log_path
        self.name = name
        self.queues = list(queues)
        self.beat_schedule = beat_schedule
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        options = [f"--queues={','.join(self.queues)}"] if self.queues else []
        if self.beat_schedule is not None:
            options += ["--beat", f"--schedule={self.beat_schedule}"]
        with self.log_path.open("ab") as log:
            self.process = spawn(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "wordduel",
                    "worker",
                    "--pool=solo",
                    "--loglevel=INFO",
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                    "-n",
                    f"{self.name}@%h",
                    *options,
                ],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_until(
            lambda: self._alive() and " ready." in self.log_text(),
            timeout=60,
            what=f"celery worker {self.name}",
        )

    def _alive(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"celery worker exited early:\n{self.log_text()}")
        return True


async def in_thread(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``func(*args, **kwargs)`` in a worker thread (as ``asyncio.to_thread``), giving the
    database connection it took back to the pool when it is done: a thread that keeps one
    holds a place in the pool until it exits, and a long test would run the pool dry."""

    def call() -> T:
        try:
            return func(*args, **kwargs)
        finally:
            close_old_connections()

    return await asyncio.to_thread(call)


def record_figures(name: str, figures: dict[str, object]) -> None:
    """Report a test's figures: on stderr (``-s`` shows them) and, when the environment
    names a file in ``RELIABILITY_FIGURES``, as one JSON line appended to it."""
    line = json.dumps({"test": name, **figures}, default=str)
    sys.stderr.write(f"\n{line}\n")
    target = os.environ.get("RELIABILITY_FIGURES")
    if target:
        with Path(target).open("a") as out:
            out.write(line + "\n")


def check_integrity() -> str:
    """Run ``manage.py check_integrity`` on every match; fail with its report if unsound."""
    out = io.StringIO()
    try:
        call_command("check_integrity", stdout=out)
    except SystemExit as exit_:
        raise AssertionError(f"check_integrity failed ({exit_.code}):\n{out.getvalue()}") from None
    return out.getvalue()
