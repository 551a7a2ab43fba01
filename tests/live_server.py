"""The live server of the tests that need one: the web process as production runs it.

``python -m wordduel.serve`` (the command of every deployment: Daphne with its redacted
access log) runs once per session as a subprocess, on a port of its own,
against this run's test database and Redis prefixes, so pages and websockets go through the
real server and channel layer. Its environment is the test run's own with only the
database, the prefixes and its own origin set; nothing else differs from a deployment's (no
clock in the web process, as docker-compose.yml runs it; Django's async-safety check on).
Each test makes its own data (transactional tests flush the tables after each test; the
server keeps no state of its own between them). A pytest plugin (tests/conftest.py).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.processes import spawn

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class WebServer:
    url: str
    log: Path

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1)

    def log_size(self) -> int:
        return self.log.stat().st_size

    def log_since(self, offset: int) -> str:
        """What the server has logged since the log was ``offset`` bytes long."""
        with self.log.open("rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")


def _listening_socket() -> socket.socket:
    """A loopback socket bound to a port of its own and listening, for Daphne to adopt.

    Handed over by its descriptor (``--fd``) rather than by a port number that was free a
    moment ago: each xdist worker starts its own server, and with a port number the two
    could race for one port, the loser's tests then talking to the other worker's server
    and database.
    """
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    listener.set_inheritable(True)
    return listener


def _server_env(port: int) -> dict[str, str]:
    """The test database and this run's Redis prefixes, as the settings read them, and the
    pages' own origin (its port): nothing else is set for the server."""
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    env = dict(os.environ)
    env["DATABASE_URL"] = (
        f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
        f"/{db['NAME']}"
    )
    env["CHANNEL_LAYER_PREFIX"] = os.environ["CHANNEL_LAYER_PREFIX"]
    cache_prefix = settings.CACHES.get("default", {}).get("KEY_PREFIX")
    if cache_prefix:
        env["CACHE_PREFIX"] = cache_prefix
    env["CLOCK_IN_PROCESS"] = "0"  # as deployed: the clock is Celery beat's, not the web's
    env["PYTHONUNBUFFERED"] = "1"
    env["WEBSOCKET_ALLOWED_ORIGINS"] = f"http://127.0.0.1:{port}"  # the pages' own origin
    return env


@pytest.fixture(scope="session")
def web_server(django_db_setup) -> Iterator[WebServer]:
    """The web process serving the site (and its static files) on a free port, for the
    whole session; its log is kept until the session ends."""
    listener = _listening_socket()
    port = listener.getsockname()[1]
    log_dir = Path(tempfile.mkdtemp(prefix="wordduel-live-"))
    log = log_dir / "web.log"
    with log.open("wb") as out, listener:
        process = spawn(
            [
                sys.executable,
                "-m",
                "wordduel.serve",
                "--fd",
                str(listener.fileno()),
                "wordduel.asgi:application",
            ],
            cwd=ROOT,
            env=_server_env(port),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            pass_fds=(listener.fileno(),),
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, f"the web process exited:\n{log.read_text()}"
            try:
                with urllib.request.urlopen(f"{url}/healthz/web", timeout=2):  # noqa: S310
                    break
            except OSError:
                assert time.monotonic() < deadline, f"no answer from it:\n{log.read_text()}"
                time.sleep(0.2)
        yield WebServer(url=url, log=log)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        shutil.rmtree(log_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def live_server_url(web_server: WebServer) -> str:
    return web_server.url
